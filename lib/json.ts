// One answer body, read as JSON where it is JSON: the callers judge or record what is not.

/** The parsed value, or undefined when the text is not JSON. */
export function parseJsonOrUndefined(text: string | Buffer): unknown {
  try {
    return JSON.parse(text.toString());
  } catch {
    return undefined;
  }
}
