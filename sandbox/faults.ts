// Names of the deliberate deviations (faults) and legitimate differences (variants) that the
// sandbox can be started with. Code asks `context.faults.has(name)`; this list only serves to
// reject misspelt names up front.
export const FAULTS: Record<string, string> = {
  'revoked-token-accepted': 'a revoked client token is still accepted',
  'never-registered': 'a registered company never reaches Status Registered',
  'never-delivered': 'a sent document never reaches Delivered',
};

export const VARIANTS: Record<string, string> = {
  camel: 'responses in camelCase (the default)',
  pascal: 'responses in PascalCase',
  'extra-fields': 'every object body carries a field the spec does not name',
  'status-200': '200 instead of 202 where the guide shows 200 (network setup)',
  'offset-0000': 'date-times written with a +0000 offset',
  slow: 'each background step takes at least 250 ms',
  'skip-statuses': 'documents go from Pending straight to Sent, skipping the intermediate statuses',
  gzip: 'responses gzip-compressed when the client accepts it',
  'absolute-location': 'Location headers as absolute URLs (the default)',
  'relative-location': 'Location headers as paths relative to the host',
};

export function checkNames(kind: 'fault' | 'variant', names: readonly string[]): void {
  const known = kind === 'fault' ? FAULTS : VARIANTS;
  for (const name of names) {
    if (!(name in known)) throw new Error(`unknown ${kind} "${name}" (known: ${Object.keys(known).join(', ')})`);
  }
}
