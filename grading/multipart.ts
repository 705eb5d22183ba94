// Just enough multipart/form-data to say which parts a client sent: their names, file names,
// media types and sizes. The bytes themselves are the sandbox's business.
import type { RecordedPart } from './traffic.ts';

export function boundaryOf(contentType: string): string | undefined {
  const match = /boundary=(?:"([^"]+)"|([^;\s]+))/i.exec(contentType);
  return match?.[1] ?? match?.[2];
}

function parameter(header: string, name: string): string | undefined {
  const match = new RegExp(`;\\s*${name}="([^"]*)"`, 'i').exec(header) ?? new RegExp(`;\\s*${name}=([^;\\s]+)`, 'i').exec(header);
  return match?.[1];
}

export function multipartParts(body: Buffer, contentType: string): RecordedPart[] | undefined {
  const boundary = boundaryOf(contentType);
  if (boundary === undefined) return undefined;
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const parts: RecordedPart[] = [];
  let position = body.indexOf(delimiter);
  while (position !== -1) {
    const start = position + delimiter.length;
    if (body.subarray(start, start + 2).toString('latin1') === '--') break;
    const next = body.indexOf(delimiter, start);
    const chunk = body.subarray(start, next === -1 ? body.length : next);
    const headerEnd = chunk.indexOf('\r\n\r\n');
    if (headerEnd !== -1) {
      const headers = chunk.subarray(0, headerEnd).toString('utf8').split('\r\n').filter((line) => line.trim() !== '');
      const disposition = headers.find((line) => /^content-disposition:/i.test(line)) ?? '';
      const type = headers.find((line) => /^content-type:/i.test(line));
      // The part's data ends with the CRLF that precedes the next delimiter.
      const size = Math.max(0, chunk.length - headerEnd - 4 - 2);
      parts.push({ name: parameter(disposition, 'name') ?? '', filename: parameter(disposition, 'filename'), contentType: type?.replace(/^content-type:\s*/i, ''), size });
    }
    position = next;
  }
  return parts;
}
