// The preflight of every command that talks to a target (issue 59): before any suite, script or
// fuzzer runs, a few calls the spec makes tell a wrong API key or a base URL that is not the API's
// from a target that does not conform. Either is a configuration error (exit 2), named with the
// setting and where it came from, instead of a run of 401s and 404s judged as failures.
//
// The calls, chosen so that a correct target answers them without side effects (or with one undone here):
//   POST /clienttokens/create for an ErpId no company has, with each key: "sent with the header
//     APIkey" (Authentication, 1). A correct key gets past authentication (a 400 or 404 for the
//     unknown ErpId, or a token, which is revoked at once); only a 401 or 403 is looked at again.
//   POST /companies/register with an empty body, with a key the first call refused: register "is
//     called with APIkey" (Authentication, 2) and an empty body registers nothing. The key is called
//     wrong only when both calls refuse it, so a target that answers 401 for an unknown ErpId (a
//     defensible reading) is not mistaken for a wrong key, and a key valid for some calls and refused
//     on others stays a verdict of the suites.
//   GET /companies/status without a ClientToken: a /v1/api base answers 401 (or anything but 404).
//     Only when it and the token creation both answer 404 is the base URL called wrong.
// A gateway's 429 or 503 is never judged: that step is left to the run, which paces itself.
//
// Node-only module (lib/transport.ts); k6 never loads it.
import { ConfigError } from './config.ts';
import { API_KEY_HEADER, API_PREFIX, CLIENT_TOKEN_HEADER } from './defaults.ts';
import { MAINTENANCE_STATUS, RATE_LIMITED_STATUS } from './gateway.ts';
import { secrets, type SecretRegistry } from './redact.ts';
import { sendAgainOnTransient } from './transient.ts';
import { isTransientOutcome, send, TransportError, type Answer, type Connection } from './transport.ts';

/** A configuration error the preflight found: exit 2, one message. */
export class PreflightError extends ConfigError {
  override readonly name: string = 'PreflightError';
}

export interface PreflightKey {
  /** The key's value (registered as a secret by the caller). */
  value: string;
  /** The setting and its source, as the message names it: "--api-key (flag)". */
  setting: string;
  /** The flag that sets it, for the likely fix. */
  flag: string;
}

export interface PreflightInput {
  baseUrl: string;
  connection: Connection;
  /** The base URL's setting and source: "--base-url (flag)". */
  baseSetting: string;
  keys: readonly PreflightKey[];
  /** Bound on each call; the preflight makes at most 2 + 2 per key calls. */
  timeoutMs?: number;
  /** --max-rps: the preflight's few calls keep to it too, so a gateway's limit is not spent before the run starts. */
  maxRps?: number;
  /** Names the caller's ErpId prefix, so the unknown ErpId cannot be any real company's. */
  erpIdPrefix?: string;
  registry?: SecretRegistry;
}

export interface PreflightOutcome {
  /** Steps not judged, and why (a gateway's 429 or 503). */
  notJudged: string[];
}

const REFUSED = new Set([401, 403]);
/** A gateway's "not now" (429, 503), or its 502 or 504 still there after the call was sent again: no answer of the API's. */
const isGateway = (status: number): boolean => status === RATE_LIMITED_STATUS || status === MAINTENANCE_STATUS || status === 502 || status === 504;

function excerpt(answer: Answer, registry: SecretRegistry): string {
  const text = registry.redactText(answer.body.toString('utf8').replace(/\s+/g, ' ').trim());
  return text === '' ? '' : `: ${text.length > 160 ? `${text.slice(0, 160)}...` : text}`;
}

async function call(baseUrl: string, method: string, path: string, headers: Record<string, string>, body: unknown, connection: Connection, timeoutMs: number): Promise<Answer | undefined> {
  try {
    // Every call of the preflight is repeatable (token creation, company status, an empty register,
    // revoke of a token nobody uses): the deployment's 502 or reset is sent again (issue 57).
    return await sendAgainOnTransient(
      () =>
        send(`${baseUrl}${path}`, {
          method,
          headers: { accept: 'application/json', ...(body === undefined ? {} : { 'content-type': 'application/json' }), ...headers },
          body: body === undefined ? undefined : JSON.stringify(body),
          timeoutMs,
        }, connection),
      isTransientOutcome,
    );
  } catch (error) {
    // The reachability probe already judged the transport; a call that fails now is left to the run.
    if (error instanceof TransportError) return undefined;
    throw error;
  }
}

/** A token the preflight was given is revoked at once (revoke's scheme is not shown: both headers). */
async function revoke(apiKey: string, answer: Answer, post: (path: string, headers: Record<string, string>, body: unknown) => Promise<Answer | undefined>, registry: SecretRegistry): Promise<void> {
  let token: unknown;
  try {
    const parsed = JSON.parse(answer.body.toString('utf8')) as Record<string, unknown>;
    token = parsed.Token ?? parsed.token;
  } catch {
    return;
  }
  if (typeof token !== 'string' || token === '') return;
  registry.add(token);
  await post('/clienttokens/revoke', { [API_KEY_HEADER]: apiKey, [CLIENT_TOKEN_HEADER]: token }, { ClientToken: token });
}

/** Throws PreflightError for a base URL that is not the API's or a key the target refuses. */
export async function preflight(input: PreflightInput): Promise<PreflightOutcome> {
  const timeoutMs = input.timeoutMs ?? 4000;
  const registry = input.registry ?? secrets;
  const { baseUrl, connection } = input;
  const notJudged: string[] = [];
  const spacingMs = input.maxRps === undefined ? 0 : Math.ceil(1000 / input.maxRps);
  let lastCall = 0;
  const paced = async (url: string, method: string, path: string, headers: Record<string, string>, body: unknown): Promise<Answer | undefined> => {
    const wait = lastCall + spacingMs - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    lastCall = Date.now();
    return call(url, method, path, headers, body, connection, timeoutMs);
  };
  const erpId = `${input.erpIdPrefix ?? 'dxs-preflight'}-${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}`;
  const tokenCreate = (key: string): Promise<Answer | undefined> => paced(baseUrl, 'POST', '/clienttokens/create', { [API_KEY_HEADER]: key }, { ErpId: erpId });

  const first = input.keys[0];
  const firstAnswer = first === undefined ? undefined : await tokenCreate(first.value);
  const status = await paced(baseUrl, 'GET', '/companies/status', {}, undefined);
  if (status !== undefined && status.status === 404 && (first === undefined || firstAnswer?.status === 404)) {
    const tried = `${first === undefined ? '' : 'POST /clienttokens/create and '}GET /companies/status`;
    let fix = `the spec's base URL ends in ${API_PREFIX}: pass the URL the service's operator gives for it`;
    if (!baseUrl.endsWith(API_PREFIX)) {
      const withPrefix = await paced(`${baseUrl}${API_PREFIX}`, 'GET', '/companies/status', {}, undefined);
      fix = withPrefix !== undefined && withPrefix.status !== 404 ? `did you mean ${baseUrl}${API_PREFIX}? (it answers GET /companies/status with ${withPrefix.status})` : `the spec's base URL ends in ${API_PREFIX}, e.g. ${baseUrl}${API_PREFIX}`;
    }
    throw new PreflightError(`base URL ${baseUrl} from ${input.baseSetting} is not the API's base: ${tried} both answered 404. Likely fix: ${fix}`);
  }
  if (status !== undefined && isGateway(status.status)) notJudged.push(`GET /companies/status answered ${status.status} (a gateway's answer is not judged)`);

  for (const [index, key] of input.keys.entries()) {
    const answer = index === 0 ? firstAnswer : await tokenCreate(key.value);
    if (answer === undefined) continue;
    if (isGateway(answer.status)) {
      notJudged.push(`${key.setting}: POST /clienttokens/create answered ${answer.status} (a gateway's answer is not judged)`);
      continue;
    }
    if (answer.status >= 200 && answer.status < 300) {
      await revoke(key.value, answer, (path, headers, body) => paced(baseUrl, 'POST', path, headers, body), registry);
      continue;
    }
    if (!REFUSED.has(answer.status)) continue;
    const register = await paced(baseUrl, 'POST', '/companies/register', { [API_KEY_HEADER]: key.value }, {});
    if (register === undefined || !REFUSED.has(register.status)) continue;
    throw new PreflightError(
      `the API key of ${key.setting} was refused by ${baseUrl}: POST /clienttokens/create answered ${answer.status}${excerpt(answer, registry)}, and POST /companies/register ${register.status}${excerpt(register, registry)}. ` +
        `Likely fix: give the key the target's operator issued for this base URL (${key.flag}, its DXS_* variable or the config file); a key that is valid for some calls and refused on others is left to the suites to judge`,
    );
  }
  return { notJudged };
}
