// Turns ajv's error objects into lines a report can show. Shared by the Node validators and the
// bundled k6 validators, so a failure reads the same on both sides. Pure module.

export interface AjvLikeError {
  instancePath: string;
  message?: string;
  params?: Record<string, unknown>;
}

export function describeErrors(errors: readonly AjvLikeError[] | null | undefined): string[] {
  if (!errors) return [];
  return errors.map((error) => {
    const where = error.instancePath === '' ? '(root)' : error.instancePath;
    const allowed = error.params?.allowedValues ?? error.params?.allowedValue;
    const detail = Array.isArray(allowed) ? `: ${allowed.join(', ')}` : allowed !== undefined ? `: ${JSON.stringify(allowed)}` : '';
    return `${where} ${error.message ?? 'is invalid'}${detail}`;
  });
}
