// A catalog quote as a reader meets it: where the spec's sentence is a table row, or a cell of one,
// the raw markdown row ("| Token | string | ... |") says little; the report names the table, the
// field and the columns instead: "ClientToken, field Token: string. The token value, ...".
import { readFileSync } from 'node:fs';
import { normaliseSpecText, SPEC_PATH } from '../schemas/requirements.ts';

let specLines: string[] | undefined;

function lines(): string[] {
  if (specLines === undefined) {
    try {
      specLines = readFileSync(SPEC_PATH, 'utf8').split('\n');
    } catch {
      specLines = [];
    }
  }
  return specLines;
}

const cells = (row: string): string[] => row.trim().replace(/^\|/, '').replace(/\|$/, '').split('|').map((cell) => cell.trim());
const isRow = (line: string): boolean => line.trim().startsWith('|');

/** The table row of the spec that holds the quote, with its table's column names and the heading above it. */
function rowOf(quote: string, source: readonly string[]): { heading?: string; columns: string[]; row: string[] } | undefined {
  const wanted = normaliseSpecText(quote.replace(/^\|/, '').replace(/\|$/, ''));
  const index = source.findIndex((line) => isRow(line) && normaliseSpecText(line).includes(wanted));
  if (index === -1) return undefined;
  let start = index;
  while (start > 0 && isRow(source[start - 1])) start--;
  const heading = source.slice(0, start).reverse().find((line) => /^#{2,6}\s/.test(line))?.replace(/^#+\s*/, '');
  return { heading, columns: cells(source[start]), row: cells(source[index]) };
}

/**
 * The spec's basis of a requirement as a sentence. A whole table row becomes "Table, field Name:
 * type. Notes"; a quote inside a row keeps its words and is named by the row's table and field.
 */
export function quoteSentence(quote: string, source: readonly string[] = lines()): string {
  const found = rowOf(quote, source);
  if (found === undefined) return `“${quote}”`;
  const { heading, columns, row } = found;
  const subject = /^field$/i.test(columns[0] ?? '') ? `field ${row[0]}` : row[0];
  const typeIndex = columns.findIndex((column) => /^type$/i.test(column));
  const where = `${heading === undefined ? '' : `${heading}, `}${subject}${typeIndex > 0 && row[typeIndex] !== undefined ? ` (${row[typeIndex]})` : ''}`;
  const whole = quote.includes('|');
  if (!whole) return `${where}: “${quote}”`;
  const rest = row.slice(1).map((cell, offset) => ({ column: columns[offset + 1] ?? '', cell })).filter(({ cell }, offset) => cell !== '' && offset + 1 !== typeIndex);
  return `${where}: ${rest.map(({ column, cell }) => (/^notes$/i.test(column) || column === '' ? cell : `${column.toLowerCase()}: ${cell}`)).join('; ')}`;
}
