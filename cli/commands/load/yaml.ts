// YAML for the manifests of `dxs load k8s`: block style as kubectl writes it, built from plain
// objects so that the tests validate the very values written. Strings that YAML could read as
// something else are written as JSON strings, which YAML reads as double-quoted scalars.
type Value = string | number | boolean | Value[] | { [key: string]: Value | undefined };

const PLAIN = /^[A-Za-z_/$][A-Za-z0-9_./$()-]*$/;
const YAML_WORDS = /^(true|false|yes|no|on|off|y|n|null)$/i;

function scalar(value: string | number | boolean): string {
  if (typeof value !== 'string') return String(value);
  return PLAIN.test(value) && !YAML_WORDS.test(value) ? value : JSON.stringify(value);
}

function isEmpty(value: Value): boolean {
  return typeof value === 'object' && (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0);
}

function lines(value: Value, indent: string): string[] {
  if (typeof value !== 'object') return [`${indent}${scalar(value)}`];
  const out: string[] = [];
  if (Array.isArray(value)) {
    for (const item of value) {
      const [first, ...rest] = typeof item === 'object' && !isEmpty(item) ? lines(item, `${indent}  `) : [`${indent}  ${inline(item)}`];
      out.push(`${indent}- ${first.slice(indent.length + 2)}`, ...rest);
    }
    return out;
  }
  for (const [key, item] of Object.entries(value)) {
    if (item === undefined) continue;
    if (typeof item === 'object' && !isEmpty(item)) out.push(`${indent}${scalar(key)}:`, ...lines(item, `${indent}  `));
    else out.push(`${indent}${scalar(key)}: ${inline(item)}`);
  }
  return out;
}

function inline(value: Value): string {
  if (typeof value !== 'object') return scalar(value);
  return Array.isArray(value) ? '[]' : '{}';
}

export type YamlValue = Value;

/** One YAML document, with `comment` lines on top. */
export function toYaml(value: Value, comment: string[] = []): string {
  return [...comment.map((line) => `# ${line}`.trimEnd()), ...lines(value, '')].join('\n') + '\n';
}
