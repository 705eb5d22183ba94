// The kill table's data: for every fault of the sandbox, the `--area` selection that suffices to
// catch it (kept small so the table stays fast) and the catalog ID whose test must FAIL under it.
// Every variant names the areas it affects; the clean sandbox runs the whole default profile.
// Where a field's type or form is judged only by the answer's schema (company status and details),
// the schema check of the call's own ID (CMP-STA-01, CMP-DET-10) fails first and is the one
// expected; the other suites check such fields on their own before the schema.
import type { PrerequisiteName } from '../../report/root-causes.ts';
import type { RequirementArea } from '../../schemas/requirements.ts';

export interface FaultExpectation {
  areas: RequirementArea[];
  /** A MUST or SECURITY catalog ID; a test tagged with it must fail under the fault. */
  requirement: string;
  /** The catching test deletes data (tagged @destructive): run with --destructive. */
  destructive?: boolean;
  /**
   * The sandbox's step delay for this fault's run, where the catching test races the background
   * work: the default 20 ms steps can outrun a round trip on a loaded machine.
   */
  asyncDelayMs?: number;
  /**
   * The fault breaks a prerequisite many tests share (issue 14): the run takes its areas whole,
   * and besides the failing test it must name this prerequisite and the requirement as the root
   * cause of at least one blocked test.
   */
  prerequisite?: PrerequisiteName;
}

export const FAULT_EXPECTATIONS: Record<string, FaultExpectation> = {
  // tokens
  'revoked-token-accepted': { areas: ['security'], requirement: 'TOK-11' },
  'expired-token-accepted': { areas: ['security'], requirement: 'TOK-21' },
  'token-create-201': { areas: ['tokens'], requirement: 'TOK-01' },
  'token-erpid-optional': { areas: ['tokens'], requirement: 'TOK-04' },
  'token-validto-malformed': { areas: ['tokens'], requirement: 'TOK-07' },
  'search-token-company-access': { areas: ['security'], requirement: 'SEC-07' },
  'token-answer-without-token': { areas: ['tokens'], requirement: 'TOK-02', prerequisite: 'client-token' },
  'token-create-500': { areas: ['tokens'], requirement: 'TOK-01', prerequisite: 'client-token' },
  // companies
  'never-registered': { areas: ['companies'], requirement: 'CMP-STA-06', prerequisite: 'registration' },
  'register-200': { areas: ['companies'], requirement: 'CMP-REG-01' },
  'register-processes-unchecked': { areas: ['companies'], requirement: 'CMP-REG-12' },
  'register-orgno-optional': { areas: ['companies'], requirement: 'CMP-REG-08' },
  'services-orgno-unchecked': { areas: ['companies'], requirement: 'CMP-SVC-07' },
  'services-unauthenticated': { areas: ['companies'], requirement: 'CMP-SVC-10' },
  'status-details-missing': { areas: ['companies'], requirement: 'CMP-STA-01' },
  'status-companyid-number': { areas: ['companies'], requirement: 'CMP-STA-01' },
  'details-invoicechecks-string': { areas: ['companies'], requirement: 'CMP-DET-10' },
  'details-peppol-malformed': { areas: ['companies'], requirement: 'CMP-DET-10' },
  'user-username-unchecked': { areas: ['companies'], requirement: 'CMP-USR-05' },
  'user-culture-unchecked': { areas: ['companies'], requirement: 'CMP-USR-08' },
  'user-email-unchecked': { areas: ['companies'], requirement: 'CMP-USR-03' },
  'user-conflict-400': { areas: ['companies'], requirement: 'CMP-USR-10' },
  'identifier-type-unchecked': { areas: ['companies'], requirement: 'CMP-IDN-03' },
  'identifier-202': { areas: ['companies'], requirement: 'CMP-IDN-01' },
  'delete-role-ignored': { areas: ['companies'], requirement: 'CMP-DEL-03' },
  'delete-duplicate-202': { areas: ['companies'], requirement: 'CMP-DEL-02', destructive: true },
  'delete-any-api-key': { areas: ['companies'], requirement: 'CMP-DEL-04' },
  'delete-unauthenticated': { areas: ['companies'], requirement: 'CMP-DEL-10' },
  'delete-client-token-accepted': { areas: ['companies'], requirement: 'CMP-DEL-11' },
  'delete-id-optional': { areas: ['companies'], requirement: 'CMP-DEL-07' },
  'delete-every-api-key': { areas: ['companies'], requirement: 'CMP-DEL-09', destructive: true },
  'status-processes-string': { areas: ['companies'], requirement: 'CMP-STA-01' },
  'reregister-new-company': { areas: ['flows'], requirement: 'FLOW-08' },
  // network
  'lookup-partyid-optional': { areas: ['network'], requirement: 'NET-LKP-02' },
  'lookup-exacthit-string': { areas: ['network'], requirement: 'NET-LKP-05' },
  'lookup-unauthenticated': { areas: ['network'], requirement: 'NET-LKP-17' },
  'setup-feedback-email-unchecked': { areas: ['network'], requirement: 'NET-SET-04' },
  'setup-processes-unchecked': { areas: ['network'], requirement: 'NET-SET-09' },
  'setup-requestid-missing': { areas: ['network'], requirement: 'NET-SET-03' },
  'lookup-connected-string': { areas: ['network'], requirement: 'NET-LKP-07' },
  // outbound
  'upload-200': { areas: ['outbound'], requirement: 'OUT-UPL-01' },
  'upload-location-missing': { areas: ['outbound'], requirement: 'OUT-UPL-03' },
  'upload-location-url': { areas: ['outbound'], requirement: 'OUT-UPL-04' },
  'send-202': { areas: ['outbound'], requirement: 'OUT-SEND-01' },
  'send-location-missing': { areas: ['outbound'], requirement: 'OUT-SEND-03' },
  'send-type-unchecked': { areas: ['outbound'], requirement: 'OUT-SEND-07' },
  'send-format-optional': { areas: ['outbound'], requirement: 'OUT-SEND-04' },
  'stays-pending': { areas: ['flows'], requirement: 'FLOW-03', prerequisite: 'outbound-final' },
  'status-time-malformed': { areas: ['outbound'], requirement: 'OUT-STA-05' },
  'status-unlisted': { areas: ['outbound'], requirement: 'OUT-STA-09' },
  'status-history-missing': { areas: ['outbound'], requirement: 'OUT-STA-06' },
  'status-history-current-only': { areas: ['flows'], requirement: 'OUT-STA-11' },
  'document-type-fixed': { areas: ['flows'], requirement: 'FLOW-15' },
  'erp-document-id-dropped': { areas: ['outbound'], requirement: 'OUT-STA-07' },
  'file-info-ignored': { areas: ['outbound'], requirement: 'OUT-STA-13' },
  'outbound-status-any-company': { areas: ['outbound'], requirement: 'OUT-STA-20' },
  'outbound-list-all-companies': { areas: ['outbound'], requirement: 'OUT-LIST-07' },
  'outbound-download-any-company': { areas: ['outbound'], requirement: 'OUT-DL-04' },
  'outbound-bad-uuid-500': { areas: ['outbound'], requirement: 'OUT-STA-17' },
  // Leaks only a company that holds nothing, or a list read after the document was sent, shows.
  'outbound-read-by-idle-company': { areas: ['outbound'], requirement: 'OUT-STA-20' },
  'outbound-list-leak-after-sent': { areas: ['outbound'], requirement: 'OUT-LIST-07' },
  'outbound-unknown-200': { areas: ['outbound'], requirement: 'OUT-STA-26' },
  // inbound
  'handled-ignored': { areas: ['inbound'], requirement: 'INB-07' },
  'sequenceno-ignored': { areas: ['inbound'], requirement: 'INB-06' },
  'inbound-download-headers-missing': { areas: ['inbound'], requirement: 'INB-09' },
  'inbound-sequenceno-string': { areas: ['inbound'], requirement: 'INB-03' },
  'inbound-read-any-company': { areas: ['inbound'], requirement: 'INB-20' },
  'inbound-list-all-companies': { areas: ['inbound'], requirement: 'INB-18' },
  // The flows area holds only the tests that judge FLOW-04 itself; the inbound area's tests need the inbox.
  'inbox-never-receives': { areas: ['flows', 'inbound'], requirement: 'FLOW-04', prerequisite: 'inbox-delivery' },
  'info-attachments-string': { areas: ['inbound'], requirement: 'INB-10' },
  // A leak only a third company's list, or a list read after the recipient marked the document, shows.
  'inbox-leak-to-third-company': { areas: ['inbound'], requirement: 'INB-18' },
  'inbox-leak-after-handled': { areas: ['inbound'], requirement: 'INB-18' },
  'inbound-read-after-handled': { areas: ['inbound'], requirement: 'INB-20' },
  // provider A
  'providera-pubagreement-unchecked': { areas: ['provider-a'], requirement: 'PRA-11' },
  'providera-not-swedish': { areas: ['provider-a'], requirement: 'PRA-15' },
  'providera-email-unchecked': { areas: ['provider-a'], requirement: 'PRA-09' },
  'providera-conflict-400': { areas: ['provider-a'], requirement: 'PRA-14' },
  'providera-location-missing': { areas: ['flows'], requirement: 'PRA-01' },
  'providera-status-unlisted': { areas: ['provider-a'], requirement: 'PRA-18', prerequisite: 'provider-a' },
  'providera-agreementstart-iso': { areas: ['provider-a'], requirement: 'PRA-20' },
  'providera-icon-unchecked': { areas: ['provider-a'], requirement: 'PRA-31' },
  'providera-ssn-limit-off': { areas: ['provider-a'], requirement: 'PRA-39' },
  // The flow needs a B2C invoice read as Pending just before offboarding.
  'offboard-keeps-b2c': { areas: ['flows'], requirement: 'FLOW-07', asyncDelayMs: 250 },
  'providera-record-to-unregistered': { areas: ['security'], requirement: 'SEC-09' },
  // security
  'auth-not-enforced': { areas: ['security'], requirement: 'CMP-STA-09' },
  'apikey-as-client-token': { areas: ['security'], requirement: 'CMP-STA-11' },
  'malformed-json-500': { areas: ['security'], requirement: 'SEC-10' },
  'error-stack-trace': { areas: ['security'], requirement: 'SEC-19' },
  // access matrix (issue 40)
  'client-token-mints-tokens': { areas: ['access'], requirement: 'ACC-04' },
  'apikey-acts-as-company': { areas: ['access'], requirement: 'ACC-03' },
  'search-token-uploads': { areas: ['access'], requirement: 'ACC-07' },
  'inbound-served-unauthenticated': { areas: ['access'], requirement: 'ACC-01' },
  'expired-token-accepted-on-send': { areas: ['access'], requirement: 'ACC-06' },
  'revoked-token-accepted-on-provider-a': { areas: ['access'], requirement: 'ACC-05' },
  'unknown-token-on-identifiers': { areas: ['access'], requirement: 'ACC-02' },
  'empty-header-on-provider-a': { areas: ['access'], requirement: 'ACC-01' },
  'outbound-download-unauthenticated': { areas: ['access'], requirement: 'ACC-11' },
  'refused-with-effect': { areas: ['access'], requirement: 'ACC-19' },
  'wrong-api-key-registers': { areas: ['access'], requirement: 'ACC-02' },
  'details-company-from-body': { areas: ['access'], requirement: 'ACC-12' },
  'deep-nesting-500': { areas: ['access'], requirement: 'ACC-15' },
  'long-arrays-500': { areas: ['access'], requirement: 'ACC-15' },
  'gzip-bomb-500': { areas: ['access'], requirement: 'ACC-15' },
  'png-bomb-500': { areas: ['access'], requirement: 'ACC-15' },
  'inbound-filename-header-injection': { areas: ['access'], requirement: 'ACC-17' },
  'handled-any-company': { areas: ['access'], requirement: 'ACC-12' },
  'byerpid-any-company': { areas: ['access'], requirement: 'ACC-12' },
  'send-foreign-upload': { areas: ['access'], requirement: 'ACC-12' },
  'send-foreign-attachment': { areas: ['access'], requirement: 'ACC-14' },
  'odd-id-500': { areas: ['access'], requirement: 'ACC-13' },
  'xml-entities-expanded': { areas: ['access'], requirement: 'ACC-15' },
  'xml-external-entity-read': { areas: ['access'], requirement: 'ACC-16' },
};

/**
 * Faults that only the history of a load run shows (issue 35), left out of dxs test's table, each
 * with the reason: they strike one answer among many, or break a rule about many answers together
 * that no single test of dxs test judges. The kill rows of dxs load (LOAD_FAULT_EXPECTATIONS) catch them.
 */
export const LOAD_ONLY_FAULTS: Record<string, string> = {
  'inbound-list-lossy': 'one delivery in ten of the whole service is lost: the few invoices a dxs test run sends may all be among the other nine',
  'inbound-list-lossy-total': 'one delivery in ten of the whole service is lost behind Total: the few invoices a dxs test run sends may all be among the other nine',
  'inbound-delivered-twice': 'one send in ten of the whole service is delivered twice: the few invoices a dxs test run sends may all be among the other nine',
  'inbound-list-duplicate': 'an Id twice in one answer breaks no rule a test of dxs test judges (its lists are read for one document); the history judges each answer whole',
  'inbound-sequenceno-repeated': 'two documents with one SequenceNo break no rule a test of dxs test judges (it reads the SequenceNo of one document); the history compares them all',
  'handled-comes-back': 'the document comes back in every other list, and dxs test lists once after the fetch: only the many lists of a load run see it again',
};

/**
 * What a legitimate difference can affect. Each one reaches further than it seems (gzip and extra
 * fields touch every answer, a slow engine every wait, a Location form every send that feeds
 * inbound and provider A tests), so every variant runs the whole default profile: a subset would
 * leave a check that is too strict unseen.
 */
export const VARIANT_AREAS: Record<string, RequirementArea[] | 'all'> = {
  // camel is the sandbox's default, so the clean run (full profile) is the camel run.
  camel: 'all',
  pascal: 'all',
  'extra-fields': 'all',
  'status-200': 'all',
  'offset-0000': 'all',
  slow: 'all',
  'skip-statuses': 'all',
  gzip: 'all',
  'absolute-location': 'all',
  'relative-location': 'all',
  // Slower token answers only: the tokens area is enough to see the suites tolerate them.
  'delay-token-create-50ms': ['tokens'],
  // A slow staging: test/runner/slow-target.test.ts runs both on the whole destructive profile and
  // compares its verdicts with a default run; here one area each keeps the kill table's time.
  'latency-80ms': ['tokens'],
  'async-1s': ['companies'],
};

/**
 * A fault that `dxs load` must catch too: the script whose contract check fails, or whose exchange
 * breaks a rule, under the requirement's ID. A rule resting on hardening is judged with --strict.
 */
export interface LoadFaultExpectation {
  script: string;
  requirement: string;
  /** Besides the smoke profile's: an exchange row runs long enough for its async timeout to run out before the run ends. */
  args?: string[];
  /** The sandbox fault, when the row's name is not one (a second row of one fault: load:<row>). */
  fault?: string;
  /** The violation's evidence must hold the send and an answer of dxs's final read (issue 41). */
  finalReadEvidence?: boolean;
  /** The run must leave no send not judged (issue 58: a loss behind Total is proven, not given up). */
  noneNotJudged?: boolean;
}

/**
 * The exchange rows (issue 35): a smoke run of the inbox flow of 5 s, each document given 1 s to
 * arrive (the sandbox delivers in well under that), so that the lists at the end of the run prove
 * or refute the deliveries of the first seconds.
 */
const EXCHANGE_ROW = { script: 'inbox', args: ['--duration', '5s', '--async-timeout', '1'] };

/**
 * Contract faults the load checks catch (issue 29): the checks of dxs load follow dxs test's
 * presence rules, and still fail a body of the wrong type or without a field that must be there.
 */
export const LOAD_FAULT_EXPECTATIONS: Record<string, LoadFaultExpectation> = {
  'status-companyid-number': { script: 'register-and-poll', requirement: 'CMP-STA-01' },
  'status-details-missing': { script: 'register-and-poll', requirement: 'CMP-STA-01' },
  'status-time-malformed': { script: 'send-and-poll', requirement: 'OUT-STA-05' },
  // The exchange as a whole, judged on the history of the run (issue 35).
  // A lost invoice proven by the final read (issue 41): in the default smoke run (10 s, async
  // timeout 30 s, so no list of the flow comes after a send's timeout), and in a short average run.
  'inbound-list-lossy': { script: 'inbox', requirement: 'FLOW-04', args: ['--duration', '10s'], finalReadEvidence: true },
  'inbound-list-lossy-average': { script: 'inbox', requirement: 'FLOW-04', fault: 'inbound-list-lossy', args: ['--profile', 'average', '--duration', '5s'], finalReadEvidence: true },
  // The final read lists everything on every defensible reading: a paged answer, newest first, an inclusive sequenceNo.
  'inbound-list-lossy-contrarian': { script: 'inbox', requirement: 'FLOW-04', fault: 'inbound-list-lossy', args: ['--duration', '5s', '--async-timeout', '2', '--sandbox-variant', 'contrarian'], finalReadEvidence: true },
  // A loss hidden behind Total (issue 58): every answer looks paged; the final read's walk proves the loss, none left not judged.
  'inbound-list-lossy-total': { script: 'inbox', requirement: 'FLOW-04', args: ['--duration', '10s'], finalReadEvidence: true, noneNotJudged: true },
  'inbound-list-duplicate': { ...EXCHANGE_ROW, requirement: 'XCH-02' },
  'inbound-sequenceno-repeated': { ...EXCHANGE_ROW, requirement: 'XCH-03' },
  'inbound-delivered-twice': { ...EXCHANGE_ROW, requirement: 'XCH-01' },
  'handled-comes-back': { ...EXCHANGE_ROW, requirement: 'INB-07' },
  'handled-ignored': { ...EXCHANGE_ROW, requirement: 'INB-07' },
  'inbox-leak-to-third-company': { ...EXCHANGE_ROW, requirement: 'INB-18' },
  'inbox-leak-after-handled': { ...EXCHANGE_ROW, requirement: 'INB-18' },
  'inbound-read-any-company': { ...EXCHANGE_ROW, requirement: 'INB-20' },
  'inbound-read-after-handled': { ...EXCHANGE_ROW, requirement: 'INB-20' },
};

/**
 * Runs of dxs load that must pass (issue 35): the exchange checker holds on the clean sandbox and
 * on every defensible reading the contrarian group takes (a paged incoming list, newest first, an
 * inclusive sequenceNo, the inbound Id being the DocumentId, ...). Named "load:<name>" in DXS_KILL_TABLE.
 */
export const LOAD_CLEAN_RUNS: Record<string, { script: string; variants: string[]; args?: string[] }> = {
  'clean-inbox': { script: 'inbox', variants: [], args: EXCHANGE_ROW.args },
  'contrarian-inbox': { script: 'inbox', variants: ['contrarian'], args: EXCHANGE_ROW.args },
  // A sandbox that delivers slowly, within the default async timeout: the final read waits for the last invoices (issue 41).
  'slow-delivery-inbox': { script: 'inbox', variants: ['async-1s'] },
};
