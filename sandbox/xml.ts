// Just enough XML to decide what a sent document is: whether it is well-formed, and the local
// name of its root element (which gives the DocumentType, e.g. Invoice or Order).
const NAME = /^[A-Za-z_][\w.\-]*(:[A-Za-z_][\w.\-]*)?$/;
const ATTRIBUTES = /^(\s+[A-Za-z_][\w.\-]*(:[A-Za-z_][\w.\-]*)?\s*=\s*("[^"<]*"|'[^'<]*'))*\s*$/;

export type XmlInspection = { root: string } | { error: string };

export function inspectXml(text: string): XmlInspection {
  const stack: string[] = [];
  let root: string | undefined;
  let position = 0;
  let closedRoot = false;
  while (position < text.length) {
    const open = text.indexOf('<', position);
    const between = text.slice(position, open === -1 ? text.length : open);
    if ((stack.length === 0) && between.trim() !== '') return { error: `text outside the root element at offset ${position}` };
    if (open === -1) break;
    if (text.startsWith('<?', open)) {
      const end = text.indexOf('?>', open + 2);
      if (end === -1) return { error: 'unterminated processing instruction' };
      position = end + 2;
    } else if (text.startsWith('<!--', open)) {
      const end = text.indexOf('-->', open + 4);
      if (end === -1) return { error: 'unterminated comment' };
      position = end + 3;
    } else if (text.startsWith('<![CDATA[', open)) {
      if (stack.length === 0) return { error: 'CDATA outside the root element' };
      const end = text.indexOf(']]>', open + 9);
      if (end === -1) return { error: 'unterminated CDATA section' };
      position = end + 3;
    } else if (text.startsWith('<!DOCTYPE', open)) {
      if (root !== undefined) return { error: 'DOCTYPE after the root element' };
      const end = text.indexOf('>', open);
      if (end === -1) return { error: 'unterminated DOCTYPE' };
      position = end + 1;
    } else {
      const end = text.indexOf('>', open);
      if (end === -1) return { error: `unterminated tag at offset ${open}` };
      const inner = text.slice(open + 1, end);
      position = end + 1;
      if (inner.startsWith('/')) {
        const name = inner.slice(1).trim();
        const expected = stack.pop();
        if (expected !== name) return { error: `closing tag </${name}> does not match <${expected ?? ''}>` };
        if (stack.length === 0) closedRoot = true;
        continue;
      }
      const selfClosing = inner.endsWith('/');
      const body = selfClosing ? inner.slice(0, -1) : inner;
      const nameEnd = body.search(/\s/);
      const name = nameEnd === -1 ? body : body.slice(0, nameEnd);
      if (!NAME.test(name)) return { error: `invalid element name "${name}"` };
      if (!ATTRIBUTES.test(nameEnd === -1 ? '' : body.slice(nameEnd))) return { error: `invalid attributes in <${name}>` };
      if (stack.length === 0) {
        if (closedRoot || root !== undefined) return { error: 'more than one root element' };
        root = name;
      }
      if (selfClosing) {
        if (stack.length === 0) closedRoot = true;
      } else {
        stack.push(name);
      }
    }
  }
  if (root === undefined) return { error: 'no root element' };
  if (stack.length > 0) return { error: `element <${stack[stack.length - 1]}> is not closed` };
  const colon = root.indexOf(':');
  return { root: colon === -1 ? root : root.slice(colon + 1) };
}

/** Whether the text's DOCTYPE declares an entity: what an entity-expansion bomb or an external entity needs. Scans a bounded head only. */
export function declaresEntities(bytes: Buffer): boolean {
  const head = bytes.subarray(0, 64 * 1024).toString('latin1');
  return /<!DOCTYPE[^>]*\[[\s\S]*?<!ENTITY/i.test(head);
}

/** The fault xml-entities-expanded: internal entities expanded, naively, up to `limit` characters; undefined past it. */
export function expandEntities(text: string, limit: number): string | undefined {
  const entities = new Map<string, string>();
  for (const match of text.matchAll(/<!ENTITY\s+(\w+)\s+"([^"]*)"\s*>/g)) entities.set(match[1] as string, match[2] as string);
  let expanded = text;
  for (let round = 0; round < 20 && /&\w+;/.test(expanded); round++) {
    expanded = expanded.replace(/&(\w+);/g, (whole, name: string) => entities.get(name) ?? whole);
    if (expanded.length > limit) return undefined;
  }
  return expanded;
}
