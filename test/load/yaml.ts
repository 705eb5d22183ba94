// Reads the block YAML of the k6-operator CRD and of the manifests `dxs load k8s` writes, for
// the tests: mappings, sequences (also "- key: value" items), plain, single- and double-quoted
// scalars, {} and []. No package of the project reads YAML; anything outside this subset (block
// scalars, anchors, flow collections with content) is an error, so it cannot be misread silently.
type Value = unknown;

interface Line {
  indent: number;
  text: string;
  number: number;
}

function toLines(text: string): Line[] {
  const lines: Line[] = [];
  text.split('\n').forEach((raw, index) => {
    const trimmed = raw.trim();
    if (trimmed === '' || trimmed.startsWith('#') || trimmed === '---') return;
    lines.push({ indent: raw.length - raw.trimStart().length, text: trimmed, number: index + 1 });
  });
  return lines;
}

function scalar(text: string, line: Line): Value {
  if (text === '{}') return {};
  if (text === '[]') return [];
  if (text.startsWith('"')) return JSON.parse(text) as string;
  if (text.startsWith("'")) return text.slice(1, -1).replace(/''/g, "'");
  if (/^[|>&*!{[]/.test(text)) throw new Error(`line ${line.number}: YAML beyond the tests' reader: ${text}`);
  if (text === 'true' || text === 'false') return text === 'true';
  if (text === 'null' || text === '~') return null;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  return text;
}

const isItem = (line: Line): boolean => line.text === '-' || line.text.startsWith('- ');
const KEY = /^("(?:[^"\\]|\\.)*"|[^\s"'][^:]*?):(?:\s+(.*))?$/;

function parseKey(text: string): string {
  return text.startsWith('"') ? (JSON.parse(text) as string) : text;
}

function parseBlock(lines: Line[], start: number, indent: number): [Value, number] {
  return isItem(lines[start]) ? parseSequence(lines, start, indent) : parseMapping(lines, start, indent);
}

function parseSequence(lines: Line[], start: number, indent: number): [Value[], number] {
  const items: Value[] = [];
  let index = start;
  while (index < lines.length && lines[index].indent === indent && isItem(lines[index])) {
    const line = lines[index];
    const rest = line.text.slice(1).trimStart();
    if (rest === '') {
      const [value, next] = parseBlock(lines, index + 1, lines[index + 1].indent);
      items.push(value);
      index = next;
    } else if (KEY.test(rest) && !rest.startsWith('"')) {
      // "- key: value": a mapping whose first key sits after the dash.
      const itemIndent = indent + (line.text.length - rest.length);
      lines[index] = { indent: itemIndent, text: rest, number: line.number };
      const [value, next] = parseMapping(lines, index, itemIndent);
      items.push(value);
      index = next;
    } else {
      items.push(scalar(rest, line));
      index += 1;
    }
  }
  return [items, index];
}

function parseMapping(lines: Line[], start: number, indent: number): [Record<string, Value>, number] {
  const map: Record<string, Value> = {};
  let index = start;
  while (index < lines.length && lines[index].indent === indent && !isItem(lines[index])) {
    const line = lines[index];
    const match = KEY.exec(line.text);
    if (match === null) throw new Error(`line ${line.number}: expected "key: value", got ${line.text}`);
    const key = parseKey(match[1]);
    if (key in map) throw new Error(`line ${line.number}: duplicate key ${key}`);
    const next = lines[index + 1];
    if (match[2] !== undefined && match[2] !== '') {
      map[key] = scalar(match[2], line);
      index += 1;
    } else if (next !== undefined && (next.indent > indent || (next.indent === indent && isItem(next)))) {
      const [value, after] = parseBlock(lines, index + 1, next.indent);
      map[key] = value;
      index = after;
    } else {
      map[key] = null;
      index += 1;
    }
  }
  return [map, index];
}

/** One YAML document of the subset above. */
export function readYaml(text: string): Value {
  const lines = toLines(text);
  if (lines.length === 0) return null;
  const [value, next] = parseBlock(lines, 0, lines[0].indent);
  if (next !== lines.length) throw new Error(`line ${lines[next].number}: unexpected indentation: ${lines[next].text}`);
  return value;
}
