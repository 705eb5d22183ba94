// Conventions: the base URL, JSON bodies, the multipart upload, the casing sent, known endpoints,
// the incoming list's type.
import { canonicalFieldName, toCamel } from '../../lib/casing.ts';
import { catalogEndpoints } from '../../report/endpoints.ts';
import { type Finding, type Judge } from '../graded-call.ts';

const JSON_TYPE = /^application\/(?:[\w.+-]+\+)?json/i;

function casingOf(value: unknown, seen: { pascal: number; camel: number }): void {
  if (Array.isArray(value)) value.forEach((item) => casingOf(item, seen));
  else if (typeof value === 'object' && value !== null) {
    for (const [key, inner] of Object.entries(value)) {
      const canonical = canonicalFieldName(key);
      // Names the same in both casings say nothing, nor does the handled body's documents, which the spec writes in lower case.
      if (canonical !== undefined && canonical !== toCamel(canonical) && key !== 'documents') {
        if (key === canonical) seen.pascal++;
        else if (key === toCamel(canonical)) seen.camel++;
      }
      casingOf(inner, seen);
    }
  }
}

export const judgeConventions: Judge = ({ calls }) => {
  const findings: Finding[] = [];
  const known = new Set(catalogEndpoints());
  const bodies = { pascal: 0, camel: 0, mixed: 0 };
  const unknown: string[] = [];
  for (const call of calls) {
    const underBase = /^\/v1\/api\//i.test(call.path);
    findings.push({ id: 'CLI-CNV-01', verdict: underBase ? 'passed' : 'failed', seq: call.seq, check: 'the path is under the base URL', expected: '/v1/api/...', actual: call.path });
    if (call.endpoint === 'POST /documents') {
      const multipart = call.contentType !== undefined && /^multipart\/form-data/i.test(call.contentType);
      const exact = call.parts?.some((part) => part.name === 'File' && part.filename !== undefined) === true;
      const other = call.parts?.some((part) => part.name.toLowerCase() === 'file') === true;
      findings.push({
        id: 'CLI-CNV-03', verdict: multipart && exact ? 'passed' : multipart && other ? 'warning' : 'failed', seq: call.seq, check: 'the upload is multipart/form-data with the part File', expected: 'multipart/form-data, a file part named File',
        actual: !multipart ? `Content-Type ${call.contentType ?? '(none)'}` : `parts: ${(call.parts ?? []).map((part) => `${part.name}${part.filename !== undefined ? ` (file ${part.filename})` : ''}`).join(', ') || 'none'}`,
      });
    } else if (call.bodySize > 0) {
      const ok = call.bodyError === undefined && call.body !== undefined && call.contentType !== undefined && JSON_TYPE.test(call.contentType);
      findings.push({ id: 'CLI-CNV-02', verdict: ok ? 'passed' : 'failed', seq: call.seq, check: 'the body is JSON with a JSON Content-Type', expected: 'application/json', actual: `Content-Type ${call.contentType ?? '(none)'}${call.bodyError !== undefined ? `, not JSON: ${call.bodyError}` : ''}` });
      const seen = { pascal: 0, camel: 0 };
      casingOf(call.body, seen);
      if (seen.pascal > 0 && seen.camel > 0) bodies.mixed++;
      else if (seen.pascal > 0) bodies.pascal++;
      else if (seen.camel > 0) bodies.camel++;
    }
    if (!known.has(call.endpoint)) unknown.push(`#${call.seq} ${call.endpoint}`);
    else findings.push({ id: 'CLI-CNV-05', verdict: 'passed', seq: call.seq, check: 'the call is an endpoint of the spec', expected: 'an endpoint the spec lists', actual: call.endpoint });
    if (call.endpoint === 'GET /documents/incoming') {
      const type = Object.entries(call.query).find(([name]) => name.toLowerCase() === 'type')?.[1];
      findings.push({ id: 'CLI-CNV-06', verdict: type !== undefined && type.trim() !== '' ? 'passed' : 'failed', seq: call.seq, check: 'the incoming list names its type', expected: 'query type, e.g. invoice', actual: type === undefined ? 'no query type' : `type=${type}` });
    }
  }
  for (const entry of unknown) findings.push({ id: 'CLI-CNV-05', verdict: 'failed', seq: Number(entry.slice(1, entry.indexOf(' '))), check: 'the call is an endpoint of the spec', expected: 'an endpoint the spec lists', actual: entry });
  if (bodies.pascal + bodies.camel + bodies.mixed > 0) {
    findings.push({ id: 'CLI-CNV-04', verdict: 'info', check: 'field-name casing of the bodies sent', expected: 'either (whether names are matched regardless of case: not shown)', actual: `PascalCase ${bodies.pascal}, camelCase ${bodies.camel}, mixed ${bodies.mixed}` });
  }
  return findings;
};
