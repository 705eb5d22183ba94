// What the spec leaves "not shown" across the API, recorded as observations (verdict info, never
// a failure): rate limits, upload size, events, version policy, error bodies and statuses outside
// the Errors table, roles, headers, compression, background timing and repeated calls. Probes are
// small and bounded: a burst of 20 calls, uploads of at most 2 MiB.
import type { CompanyInput } from '../../fixtures/bodies.ts';
import { minimalPdf } from '../../fixtures/index.ts';
import { BACKGROUND_CHAIN_TAG, createClientToken, observe, tags, test, TransportFailure, type ApiResponse } from '../support/index.ts';
import { pollStatus, uploadAndSend, uploadFile } from '../support/outbound.ts';

const BURST_CALLS = 20;
const BURST_CONCURRENCY = 5;
/** Upload probe sizes: modest, so a staging target is not flooded. */
const UPLOAD_PROBE_BYTES = [256 * 1024, 2 * 1024 * 1024];
const UNKNOWN_ID = '0d5c7a51-9a3e-4f0e-b7a4-2f6c1e8d9b70';

const RATE_LIMIT_HEADER = /rate-?limit|retry-after|x-ratelimit/i;
const VERSION_HEADER = /^(deprecation|sunset|api-version|x-api-version|link)$/i;
/** Headers every HTTP server sends; the observation lists the others. */
const ORDINARY_HEADERS = new Set(['content-type', 'content-length', 'date', 'connection', 'keep-alive', 'transfer-encoding', 'location']);

function shortBody(response: ApiResponse): string {
  const text = response.json !== undefined ? JSON.stringify(response.json) : (response.text ?? `(${response.size} bytes)`);
  return text.length > 160 ? `${text.slice(0, 160)}…` : text || '(empty)';
}

function headersMatching(response: ApiResponse, pattern: RegExp): string[] {
  return Object.entries(response.headers).filter(([name]) => pattern.test(name)).map(([name, value]) => `${name}: ${value}`);
}

/** A PDF padded to a size with a comment, so a target that inspects uploads still sees a PDF. */
function paddedPdf(bytes: number): Buffer {
  const pdf = minimalPdf(['dxs upload size probe'], 'dxs upload size probe');
  const padding = Math.max(0, bytes - pdf.length - 2);
  return Buffer.concat([pdf, Buffer.from(`%${'x'.repeat(padding)}\n`)]);
}

async function describeCall(label: string, call: () => Promise<ApiResponse>): Promise<{ line: string; response?: ApiResponse }> {
  try {
    const response = await call();
    return { line: `${label}: ${response.status} ${shortBody(response)}`, response };
  } catch (error) {
    // The deployment's transport is no observation of the target.
    if (error instanceof TransportFailure) throw error;
    return { line: `${label}: no answer (${(error as Error).message.split('\n')[0]})` };
  }
}

test.describe('limits', () => {
  // The burst's 429s are what it observes: the client hands them back instead of waiting them out.
  test('rate limiting under a bounded burst of 20 calls is recorded', { tag: tags('observe', 'OBS-01') }, async ({ api, registeredCompany }) => {
    const responses: ApiResponse[] = [];
    for (let sent = 0; sent < BURST_CALLS; sent += BURST_CONCURRENCY) {
      const round = Array.from({ length: Math.min(BURST_CONCURRENCY, BURST_CALLS - sent) }, () => api.get('/companies/status', { auth: { clientToken: registeredCompany.token }, gatewayAnswers: 'return' }));
      responses.push(...(await Promise.all(round)));
    }
    const statuses = new Map<number, number>();
    for (const response of responses) statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
    const limited = responses.find((response) => response.status === 429);
    const headers = [...new Set(responses.flatMap((response) => headersMatching(response, RATE_LIMIT_HEADER).map((header) => header.split(':')[0])))];
    await observe(
      'OBS-01',
      `${BURST_CALLS} calls of GET /companies/status, ${BURST_CONCURRENCY} at a time: ${[...statuses].map(([status, count]) => `${count}x ${status}`).join(', ')}; ` +
        `${limited === undefined ? 'no 429' : `429 with Retry-After ${JSON.stringify(limited.headers['retry-after'] ?? null)}`}; rate limit headers: ${headers.join(', ') || 'none'}`,
      limited ?? responses[responses.length - 1],
    );
  });

  test('the upload sizes a modest probe gets accepted are recorded', { tag: tags('observe', 'OBS-02') }, async ({ api, registeredCompany }) => {
    const lines: string[] = [];
    let largest = 0;
    let last: ApiResponse | undefined;
    for (const size of UPLOAD_PROBE_BYTES) {
      const upload = await uploadFile(api, registeredCompany.token, { name: `dxs-probe-${size}.pdf`, mimeType: 'application/pdf', buffer: paddedPdf(size) });
      last = upload.response;
      lines.push(`${size} bytes: ${upload.response.status}`);
      if (upload.reference !== undefined) largest = Math.max(largest, size);
    }
    await observe('OBS-02', `${lines.join('; ')}; largest accepted by this probe: ${largest === 0 ? 'none' : `${largest} bytes`}`, last);
  });
});

test.describe('not described', () => {
  test('events and the network setup result notification are recorded as not shown', { tag: tags('observe', 'OBS-03', 'OBS-04') }, async ({ api, registeredCompany, fixtures }) => {
    await observe('OBS-03', 'the spec describes no events; dxs has no channel to listen on, so none were observed');
    const setup = await api.post('/network/setup', { auth: { clientToken: registeredCompany.token }, json: fixtures.networkSetupRequest('SE') });
    const requestId = setup.data?.RequestId;
    await observe(
      'OBS-04',
      `network setup answered ${setup.status} with RequestId ${JSON.stringify(requestId ?? null)}; the result notification's channel and payload are not shown, so it was not awaited`,
      setup,
    );
  });

  test('version policy headers (Deprecation, Sunset, api-version) are recorded', { tag: tags('observe', 'OBS-05') }, async ({ api, registeredCompany }) => {
    const answers = [
      await api.get('/companies/status', { auth: { clientToken: registeredCompany.token } }),
      await api.post('/clienttokens/create', { auth: 'apiKey', json: { ErpId: registeredCompany.erpId } }),
    ];
    const found = [...new Set(answers.flatMap((response) => headersMatching(response, VERSION_HEADER)))];
    await observe('OBS-05', `version headers: ${found.join('; ') || 'none'}`, answers[0]);
  });

  test('error bodies and statuses outside the Errors table are recorded', { tag: tags('observe', 'OBS-06', 'OBS-07') }, async ({ api, registeredCompany, fixtures }) => {
    const auth = { clientToken: registeredCompany.token };
    const { Name: _name, ...withoutName }: Partial<CompanyInput> = fixtures.company('SE');
    const calls: Array<[string, () => Promise<ApiResponse>]> = [
      ['POST /clienttokens/create without ErpId', () => api.post('/clienttokens/create', { auth: 'apiKey', json: {} })],
      ['POST /companies/register without Name', () => api.post('/companies/register', { auth: 'apiKey', json: withoutName })],
      ['GET /documents/outbound/{unknown uuid}', () => api.get(`/documents/outbound/${UNKNOWN_ID}`, { auth })],
      ['GET /documents/outbound/not-a-uuid', () => api.get('/documents/outbound/not-a-uuid', { auth })],
      ['GET /companies/status with a random token', () => api.get('/companies/status', { auth: { clientToken: 'dxs-random-token-observe-0000' } })],
      ['DELETE /companies/status', () => api.call('DELETE', '/companies/status', { auth })],
      ['GET /dxs/no/such/path', () => api.get('/dxs/no/such/path', { auth })],
      ['POST /buyerparties/lookup with malformed JSON', () => api.post('/buyerparties/lookup', { auth, rawBody: '{"PartyId": ', contentType: 'application/json' })],
    ];
    const lines: string[] = [];
    let last: ApiResponse | undefined;
    for (const [label, call] of calls) {
      const { line, response } = await describeCall(label, call);
      lines.push(line);
      last = response ?? last;
    }
    await observe('OBS-06', `error bodies: ${lines.join(' | ')}`, last);
    await observe('OBS-07', `statuses: ${lines.map((line) => line.replace(/^(.*?: (\d{3}|no answer)).*$/, '$1')).join('; ')}`, last);
  });

  test('whether User.Roles on token creation changes an answer is recorded', { tag: tags('observe', 'OBS-08') }, async ({ api, registeredCompany, fixtures }) => {
    const plain = await createClientToken(api, registeredCompany.erpId);
    const withRoles = await createClientToken(api, registeredCompany.erpId, { User: { FullName: 'Dxs Observer', UserName: fixtures.user().UserName, Email: fixtures.user().Email, Roles: ['Administrator'] } });
    const lines = [`token without User: ${plain.response.status}`, `token with User.Roles ["Administrator"]: ${withRoles.response.status}`];
    for (const [label, token] of [['without User', plain.token], ['with Roles', withRoles.token]] as const) {
      if (token === undefined) continue;
      const user = await api.post('/companies/users', { auth: { clientToken: token }, json: fixtures.user() });
      lines.push(`add user with the token ${label}: ${user.status}`);
    }
    await observe('OBS-08', lines.join('; '), withRoles.response);
  });

  test('response headers beyond Location and the download headers are recorded', { tag: tags('observe', 'OBS-09') }, async ({ api, registeredCompany }) => {
    const response = await api.get('/companies/status', { auth: { clientToken: registeredCompany.token } });
    const extra = Object.entries(response.headers).filter(([name]) => !ORDINARY_HEADERS.has(name)).map(([name, value]) => `${name}: ${value.length > 80 ? `${value.slice(0, 80)}…` : value}`);
    await observe('OBS-09', `headers besides the ordinary ones on GET /companies/status: ${extra.join('; ') || 'none'}`, response);
  });

  test('compression of answers with Accept-Encoding gzip is recorded', { tag: tags('observe', 'OBS-10') }, async ({ api, registeredCompany, fixtures }) => {
    const response = await api.post('/buyerparties/lookup', { auth: { clientToken: registeredCompany.token }, json: fixtures.buyerLookup(registeredCompany.input), headers: { 'Accept-Encoding': 'gzip' } });
    await observe('OBS-10', `with Accept-Encoding gzip, ${response.status} with Content-Encoding ${JSON.stringify(response.headers['content-encoding'] ?? null)}`, response);
  });
});

test.describe('timing and repetition', () => {
  test('how long a sent document takes to reach a final status is recorded', { tag: tags('observe', 'OBS-11', BACKGROUND_CHAIN_TAG) }, async ({ api, target, registeredCompany, fixtures }) => {
    const started = Date.now();
    const sent = await uploadAndSend(api, fixtures, registeredCompany.token, 'PDF');
    if (sent.documentId === undefined) {
      await observe('OBS-11', `the send was refused (${sent.response.status}), so no timing was taken`, sent.response);
      return;
    }
    const poll = await pollStatus(api, target, registeredCompany.token, sent.documentId);
    await observe(
      'OBS-11',
      `${poll.reached ? 'reached' : `did not reach within ${target.asyncTimeoutSeconds} s`} ${poll.seen[poll.seen.length - 1]} after about ${Math.round((Date.now() - started) / 100) / 10} s and ${poll.reads.length} reads (${poll.seen.join(' -> ')})`,
      poll.last,
    );
  });

  test('repeated register, network setup and send are recorded', { tag: tags('observe', 'OBS-12') }, async ({ api, registeredCompany, fixtures }) => {
    const auth = { clientToken: registeredCompany.token };
    const company = fixtures.company('NO');
    const registers = [await api.post('/companies/register', { auth: 'apiKey', json: company }), await api.post('/companies/register', { auth: 'apiKey', json: company })];
    const setupBody = fixtures.networkSetupRequest('SE');
    const setups = [await api.post('/network/setup', { auth, json: setupBody }), await api.post('/network/setup', { auth, json: setupBody })];
    const lines = [
      `register twice: ${registers.map((response) => response.status).join(', ')}`,
      `network setup twice: ${setups.map((response) => `${response.status} RequestId ${JSON.stringify(response.data?.RequestId ?? null)}`).join(', ')}`,
    ];
    const upload = await uploadFile(api, registeredCompany.token, 'invoice.xml');
    if (upload.reference !== undefined) {
      const body = fixtures.sendDocument('PDF', { documentUri: upload.reference });
      const sends = [await api.post('/documents/outbound', { auth, json: body }), await api.post('/documents/outbound', { auth, json: body })];
      lines.push(`the same send (same ErpDocumentId) twice: ${sends.map((response) => `${response.status} ${JSON.stringify(response.headers['location'] ?? null)}`).join(', ')}`);
    }
    await observe('OBS-12', lines.join('; '), setups[1]);
  });
});
