// The facts a certificate of conformance states (issue 22), computed from the record of a run
// (results.json) and the requirements catalog. Part of the data model of a run, below the
// renderers: certificate.html and certificate.pdf are drawn from these facts alone, and
// certificate.json keeps them for machines.
//
// The verdict follows dxs test's exit code: CONFORMS only when no requirement failed, none was
// blocked by a broken prerequisite and the run completed. Warnings (hardening, guide) and
// observations do not prevent CONFORMS; they are listed.
import { INVARIANTS, type Requirement } from '../schemas/requirements.ts';
import { exitCodeOf, worst, type Results, type Summary, type TestRecord, type Verdict } from './results.ts';
import type { ConnectionInfo } from './connection.ts';
import { accessCellsOf } from './access-cells.ts';
import { PREREQUISITES } from './root-causes.ts';

export type CertificateVerdict = 'CONFORMS' | 'DOES NOT CONFORM';

/** A key the run used, by its role: never its value. */
export interface KeyRole {
  role: string;
  /** Where it came from (a flag, an environment variable, the config file, the embedded sandbox). */
  source: string;
}

export interface CertifiedRequirement {
  id: string;
  level: string;
  area: string;
  statement: string;
  /** The sentence of the spec it rests on (the catalog's quote), or the invariant, or the statement where the catalog has neither. */
  basis: string;
  basisKind: 'spec' | 'invariant' | 'statement';
  verdict: Verdict | 'not exercised';
  /** For failures: the first line of each failing test's message; for skips: why; for warnings: what was seen. */
  notes: string[];
}

/**
 * What was certified: a deployment the user named (with its base URL), or, without a base URL,
 * dxs's own reference sandbox, which is no deployment and carries no deployment's name.
 */
export interface CertificateSubject {
  kind: 'deployment' | 'reference sandbox';
  /** As the certificate states it: "acme-dx 2.4.1", or "dxs's own reference sandbox (...), not a deployment". */
  text: string;
}

/** A broken prerequisite (report/root-causes.ts) and how many tests it blocked. */
export interface CertifiedRootCause {
  /** What was broken, as the report names it: "a company reaching Registered". */
  prerequisite: string;
  requirement: string;
  message: string;
  blocked: number;
}

export type RequirementCounts = Record<Exclude<Verdict, 'flaky'> | 'not exercised', number>;

export interface CertificateFacts {
  format: 'dxs-certificate/1';
  verdict: CertificateVerdict;
  /** Why the run itself could not be judged (unreachable target, interruption), when it could not. */
  runProblem?: string;
  profile: { name: string; description: string; areas: string[]; destructive: boolean };
  subject: CertificateSubject;
  /** The deployment certified; absent for dxs's own reference sandbox. */
  deployment?: { name: string; version: string };
  target: { url: string; embedded: boolean; sandboxFaults: string[]; sandboxVariants: string[] };
  /** How the run reached the target: proxy, mutual TLS, --insecure, the server certificate (issue 31). */
  connection?: ConnectionInfo;
  /** When the run finished (ISO); the certificate's date. */
  date: string;
  startedAt: string;
  durationMs: number;
  dxsVersion: string;
  spec: { file: string; sha256: string };
  catalog: { file: string; sha256: string; requirements: number };
  keys: KeyRole[];
  /** Tests by verdict. */
  tests: Summary;
  /** Requirements of the profile's areas (and any other a test checked) by verdict. */
  requirements: RequirementCounts;
  /** The same, area by area, in the profile's order (then any other area a test checked). */
  areas: Array<{ area: string; requirements: RequirementCounts }>;
  /** The broken prerequisites, each with the tests it blocked, largest first: one fixed unblocks them all. */
  rootCauses: CertifiedRootCause[];
  failing: CertifiedRequirement[];
  warnings: CertifiedRequirement[];
  /** What the certificate does not cover: every requirement skipped or not exercised, with the reason. */
  notCovered: CertifiedRequirement[];
  seed?: number;
  runPrefix?: string;
  /** What the access matrix tried (issue 40): absent when the run selected no access test. */
  accessMatrix?: { operations: number; forms: number; cells: number; passed: number; failed: number; observed: number; notTried: number };
  /** The command as typed, secrets redacted. */
  command: string;
}

export interface CertificateInput {
  results: Results;
  catalog: readonly Requirement[];
  profile: { name: string; description: string; areas: string[]; destructive: boolean };
  /** Absent where no deployment was tested: the embedded reference sandbox. */
  deployment?: { name: string; version: string };
  sandboxFaults?: string[];
  sandboxVariants?: string[];
  keys: KeyRole[];
  spec: { file: string; sha256: string };
  catalogFile: { file: string; sha256: string };
  command: string;
}

/** "sandbox 0.1" -> name sandbox, version 0.1; the version is the last word, the name may have spaces. */
export function parseDeployment(text: string): { name: string; version: string } | undefined {
  const match = /^\s*(.+?)\s+(\S+)\s*$/.exec(text);
  return match === null ? undefined : { name: match[1], version: match[2] };
}

function basisOf(requirement: Requirement | undefined): Pick<CertifiedRequirement, 'basis' | 'basisKind'> {
  if (requirement?.quote !== undefined && requirement.quote.trim() !== '') return { basis: requirement.quote.replace(/\s+/g, ' ').trim(), basisKind: 'spec' };
  if (requirement?.invariant !== undefined && INVARIANTS[requirement.invariant] !== undefined) {
    return { basis: requirement.rationale ?? INVARIANTS[requirement.invariant], basisKind: 'invariant' };
  }
  return { basis: requirement?.statement ?? '(not in the catalog)', basisKind: 'statement' };
}

function firstLine(text: string | undefined): string {
  return (text ?? '').split('\n').find((line) => line.trim() !== '')?.trim() ?? '';
}

/** What a test says about one requirement of its, for the certificate's notes. */
function noteOf(test: TestRecord, id: string, verdict: Verdict): string | undefined {
  if (verdict === 'failed' || verdict === 'blocked') {
    const check = test.checks.find((candidate) => candidate.requirement === id && candidate.verdict === 'failed');
    const why = check !== undefined ? `${check.check}: expected ${check.expected}, got ${check.actual}` : firstLine(test.failure);
    return `${test.title}: ${why}`;
  }
  if (verdict === 'skipped') return test.skipReason ?? 'skipped';
  if (verdict === 'warning') {
    const check = test.checks.find((candidate) => candidate.requirement === id && candidate.verdict === 'warning');
    const annotation = test.annotations.find((candidate) => candidate.type === 'warning' && (candidate.description ?? '').startsWith(`${id}:`));
    return check !== undefined ? `${check.check}: expected ${check.expected}, got ${check.actual}` : annotation?.description ?? test.title;
  }
  return undefined;
}

function accessMatrixOf(results: Results): Pick<CertificateFacts, 'accessMatrix'> {
  const cells = accessCellsOf(results.tests);
  if (cells.length === 0) return {};
  const count = (outcome: string): number => cells.filter((cell) => cell.outcome === outcome).length;
  return { accessMatrix: { operations: new Set(cells.map((cell) => cell.endpoint)).size, forms: new Set(cells.map((cell) => cell.form)).size, cells: cells.length, passed: count('passed'), failed: count('failed'), observed: count('observed'), notTried: count('not tried') } };
}

function noCounts(): RequirementCounts {
  return { passed: 0, failed: 0, warning: 0, info: 0, skipped: 0, blocked: 0, 'not exercised': 0 };
}

function subjectOf(input: CertificateInput): CertificateSubject {
  if (input.deployment !== undefined) return { kind: 'deployment', text: `${input.deployment.name} ${input.deployment.version}` };
  const run = input.results.run;
  if (run.embedded) return { kind: 'reference sandbox', text: `dxs's own reference sandbox (embedded in dxs ${run.version}), not a deployment` };
  return { kind: 'deployment', text: `the target at ${run.target} (no deployment named)` };
}

export function certificateFacts(input: CertificateInput): CertificateFacts {
  const { results, catalog, profile } = input;
  const byId = new Map(catalog.map((requirement) => [requirement.id, requirement]));
  // Every requirement of the profile's areas is covered or said not to be; a requirement of
  // another area that a test checked on the way counts too.
  const verdicts = new Map<string, Verdict[]>();
  const notes = new Map<string, Set<string>>();
  for (const requirement of catalog) if (profile.areas.includes(requirement.area)) verdicts.set(requirement.id, []);
  for (const test of results.tests) {
    for (const [id, verdict] of Object.entries(test.requirementVerdicts)) {
      verdicts.set(id, [...(verdicts.get(id) ?? []), verdict]);
      const note = noteOf(test, id, verdict);
      if (note !== undefined) notes.set(id, (notes.get(id) ?? new Set()).add(note));
    }
  }
  const counts = noCounts();
  const byArea = new Map<string, RequirementCounts>(profile.areas.map((area) => [area, noCounts()]));
  const failing: CertifiedRequirement[] = [];
  const warnings: CertifiedRequirement[] = [];
  const notCovered: CertifiedRequirement[] = [];
  for (const [id, list] of [...verdicts].sort(([left], [right]) => left.localeCompare(right))) {
    const verdict: CertifiedRequirement['verdict'] = worst(list) ?? 'not exercised';
    // A requirement's verdict is never flaky (a flaky test proved it as its passing attempt did).
    const counted = verdict === 'flaky' ? 'passed' : verdict;
    counts[counted]++;
    const requirement = byId.get(id);
    const entry: CertifiedRequirement = {
      id,
      level: requirement?.level ?? '?',
      area: requirement?.area ?? '?',
      statement: requirement?.statement ?? '(not in the catalog)',
      ...basisOf(requirement),
      verdict,
      notes: [...(notes.get(id) ?? [])],
    };
    const areaCounts = byArea.get(entry.area) ?? noCounts();
    areaCounts[counted]++;
    byArea.set(entry.area, areaCounts);
    if (verdict === 'failed' || verdict === 'blocked') failing.push(entry);
    else if (verdict === 'warning') warnings.push(entry);
    else if (verdict === 'skipped') notCovered.push(entry);
    else if (verdict === 'not exercised') notCovered.push({ ...entry, notes: [results.tests.length === 0 ? 'not reached: the run could not complete' : "no test of the profile's areas checks it"] });
  }
  const exitCode = exitCodeOf(results);
  const run = results.run;
  return {
    format: 'dxs-certificate/1',
    verdict: exitCode === 0 ? 'CONFORMS' : 'DOES NOT CONFORM',
    runProblem: exitCode === 2 || run.status === 'unreachable' || run.status === 'error' || run.status === 'interrupted' ? `${run.status}${run.message !== undefined ? `: ${run.message}` : ''}` : undefined,
    profile,
    subject: subjectOf(input),
    ...(input.deployment === undefined ? {} : { deployment: input.deployment }),
    target: { url: run.target, embedded: run.embedded, sandboxFaults: input.sandboxFaults ?? [], sandboxVariants: input.sandboxVariants ?? [] },
    ...(run.connection === undefined ? {} : { connection: run.connection }),
    date: run.finishedAt,
    startedAt: run.startedAt,
    durationMs: run.durationMs,
    dxsVersion: run.version,
    spec: input.spec,
    catalog: { ...input.catalogFile, requirements: catalog.length },
    keys: input.keys,
    tests: results.summary,
    requirements: counts,
    areas: [...byArea].map(([area, requirements]) => ({ area, requirements })),
    rootCauses: (results.rootCauses ?? []).map((cause) => ({ prerequisite: PREREQUISITES[cause.prerequisite] ?? cause.prerequisite, requirement: cause.requirement, message: cause.message, blocked: cause.tests.length })),
    failing,
    warnings,
    notCovered,
    seed: run.seed,
    runPrefix: run.runPrefix ?? results.cleanup?.runPrefix,
    ...accessMatrixOf(results),
    command: input.command,
  };
}
