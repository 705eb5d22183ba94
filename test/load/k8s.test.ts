// `dxs load k8s` on a cluster that is not there: the manifests it writes are validated against
// k6-operator's TestRun CRD (../shared/k6-operator/, kubectl's strict field validation: an
// unknown field is an error) and Kubernetes' own Container and Volume schemas that the CRD
// carries; the collector reads where the runners write; and the cluster is simulated: the archive
// runs on N k6 processes with the operator's execution segments and arguments, each writing into
// its own folder of one "claim" as the pods would, and the collector's program merges them to the
// verdict that one k6 process running the same total load gives.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { Ajv, type AnySchemaObject } from 'ajv';
import { PROFILE_NAMES } from '../../load/profiles/index.ts';
import { scriptNames, type ScriptSettings } from '../../cli/commands/load/run.ts';
import { segmentArguments } from '../../cli/commands/load/segments.ts';
import { COLLECTOR_PROGRAM, claimObject, collectorObject, k8sNames, k8sReadme, readerObject, testRunManifest, testRunObject, type K8sInput } from '../../cli/commands/load/k8s.ts';
import { toYaml } from '../../cli/commands/load/yaml.ts';
import { NO_K6, ROOT, dxs, k6Binary, readSummary, runCommand, sandboxForK6Tests, tempDirectory } from './helpers.ts';
import { readYaml } from './yaml.ts';

const k6 = k6Binary();
const CRD = join(ROOT, '..', 'shared', 'k6-operator', 'k6.io_testruns.yaml');
const NO_CRD = `the TestRun CRD is not at ${CRD} (the k6-operator copy beside the checkout)`;

type Json = Record<string, unknown>;

// --- schemas ---------------------------------------------------------------------------------

/** kubectl apply validates fields strictly: an object schema with properties allows no others. */
function strictFields(schema: unknown): void {
  if (typeof schema !== 'object' || schema === null) return;
  if (Array.isArray(schema)) return schema.forEach(strictFields);
  const node = schema as Json;
  if (node.properties !== undefined && node.additionalProperties === undefined && node['x-kubernetes-preserve-unknown-fields'] !== true) node.additionalProperties = false;
  for (const value of Object.values(node)) strictFields(value);
}

function kubernetesKeywords(schema: unknown, found: Set<string>): Set<string> {
  if (typeof schema === 'object' && schema !== null) {
    for (const [key, value] of Object.entries(schema)) {
      if (key.startsWith('x-kubernetes-')) found.add(key);
      kubernetesKeywords(value, found);
    }
  }
  return found;
}

let crdSchema: Json | undefined;
function testRunSchema(): Json {
  if (crdSchema !== undefined) return crdSchema;
  const crd = readYaml(readFileSync(CRD, 'utf8')) as { spec: { versions: Array<{ name: string; schema: { openAPIV3Schema: Json } }> } };
  const schema = crd.spec.versions.find((version) => version.name === 'v1alpha1')!.schema.openAPIV3Schema;
  strictFields(schema);
  crdSchema = schema;
  return schema;
}

function newAjv(): Ajv {
  // The OpenAPI formats (int32, int64, byte, date-time) are Kubernetes' own to check.
  const ajv = new Ajv({ allErrors: true, strict: true, strictTypes: false, strictRequired: false, validateFormats: false });
  ajv.addVocabulary([...kubernetesKeywords(testRunSchema(), new Set())]);
  return ajv;
}

function errorsOf(ajv: Ajv, schema: AnySchemaObject, value: unknown): string {
  const validate = ajv.compile(schema);
  return validate(value) ? '' : ajv.errorsText(validate.errors, { separator: '\n' });
}

/** Kubernetes' core schemas as the CRD holds them (the runner's init containers and volumes). */
function coreSchemas(): { container: Json; volume: Json; podSecurityContext: Json } {
  const runner = ((testRunSchema().properties as Json).spec as { properties: { runner: { properties: Record<string, { items?: Json }> } } }).properties.runner.properties;
  return { container: runner.initContainers.items!, volume: runner.volumes.items!, podSecurityContext: runner.securityContext as Json };
}

function envelope(apiVersion: string, kind: string, spec: Json): Json {
  return {
    type: 'object',
    required: ['apiVersion', 'kind', 'metadata', 'spec'],
    additionalProperties: false,
    properties: {
      apiVersion: { const: apiVersion },
      kind: { const: kind },
      metadata: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: { type: 'string', pattern: '^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$' } } },
      spec,
    },
  };
}

/** The parts of batch/v1 Job and v1 Pod that the collector and the reader use, around the CRD's core schemas. */
function podSpecSchema(): Json {
  const { container, volume, podSecurityContext } = coreSchemas();
  return {
    type: 'object',
    required: ['containers', 'restartPolicy'],
    additionalProperties: false,
    properties: {
      restartPolicy: { enum: ['Never', 'OnFailure'] },
      securityContext: podSecurityContext,
      containers: { type: 'array', minItems: 1, items: container },
      volumes: { type: 'array', items: volume },
    },
  };
}

const jobSchema = (): Json =>
  envelope('batch/v1', 'Job', {
    type: 'object',
    required: ['template'],
    additionalProperties: false,
    properties: {
      backoffLimit: { type: 'integer', minimum: 0 },
      ttlSecondsAfterFinished: { type: 'integer', minimum: 0 },
      template: { type: 'object', required: ['spec'], additionalProperties: false, properties: { spec: podSpecSchema() } },
    },
  });

const podSchema = (): Json => envelope('v1', 'Pod', podSpecSchema());

const claimSchema = (): Json =>
  envelope('v1', 'PersistentVolumeClaim', {
    type: 'object',
    required: ['accessModes', 'resources'],
    additionalProperties: false,
    properties: {
      accessModes: { type: 'array', items: { enum: ['ReadWriteMany'] }, minItems: 1 },
      storageClassName: { type: 'string' },
      resources: { type: 'object', required: ['requests'], properties: { requests: { type: 'object', required: ['storage'], properties: { storage: { type: 'string', pattern: '^[0-9]+(Mi|Gi|Ti)$' } } } } },
    },
  });

// --- paths -----------------------------------------------------------------------------------

interface Mount {
  claim: string;
  mountPath: string;
  /** The sub-directory of the claim mounted there, with $(POD_NAME) replaced. */
  subPath: string;
}

/** The claim mounts of a container, resolved for one pod name. */
function claimMounts(volumes: Json[], mounts: Json[], podName: string): Mount[] {
  return mounts.flatMap((mount) => {
    const volume = volumes.find((item) => item.name === mount.name) as { persistentVolumeClaim?: { claimName: string } } | undefined;
    if (volume?.persistentVolumeClaim === undefined) return [];
    const sub = String(mount.subPathExpr ?? mount.subPath ?? '').replace(/\$\(POD_NAME\)/g, podName);
    return [{ claim: volume.persistentVolumeClaim.claimName, mountPath: String(mount.mountPath), subPath: sub }];
  });
}

/** Where on which claim a path in the container lands. */
function onClaim(mounts: Mount[], path: string): { claim: string; path: string } {
  const mount = mounts.find((item) => path === item.mountPath || path.startsWith(`${item.mountPath}/`));
  assert.ok(mount !== undefined, `${path} is on no claim mount`);
  return { claim: mount.claim, path: [mount.subPath, path.slice(mount.mountPath.length + 1)].filter((part) => part !== '').join('/') };
}

/** The files a runner pod writes (from the TestRun's arguments), as paths on the claim. */
function runnerFiles(testRun: Json, podName: string): Array<{ claim: string; path: string }> {
  const spec = testRun.spec as { arguments: string; runner: { volumes?: Json[]; volumeMounts?: Json[]; env: Json[] } };
  assert.ok(spec.runner.env.some((entry) => entry.name === 'POD_NAME' && JSON.stringify(entry.valueFrom) === JSON.stringify({ fieldRef: { fieldPath: 'metadata.name' } })), 'POD_NAME comes from the downward API');
  const mounts = claimMounts(spec.runner.volumes ?? [], spec.runner.volumeMounts ?? [], podName);
  const words = spec.arguments.split(' ');
  const paths: string[] = [];
  words.forEach((word, index) => {
    if (word === '--summary-export') paths.push(words[index + 1]);
    if (word === '--out' && words[index + 1].startsWith('json=')) paths.push(words[index + 1].slice('json='.length));
  });
  return paths.map((path) => onClaim(mounts, path));
}

/** The collector's inputs, report folder (as paths on the claim) and the runners it expects. */
function collectorPaths(job: Json): { claim: string; inputs: string[]; report: string; runners: number } {
  const pod = ((job.spec as Json).template as Json).spec as { containers: Array<{ command: string[]; volumeMounts: Json[] }>; volumes: Json[] };
  const [container] = pod.containers;
  const mounts = claimMounts(pod.volumes, container.volumeMounts, '');
  const program = container.command.findIndex((word) => word.endsWith(`/${COLLECTOR_PROGRAM}`));
  assert.ok(program > 0 && container.command[0] === 'node', 'the collector runs the bundled merge with node');
  const out = container.command.indexOf('--out');
  const inputs = container.command.slice(program + 1, out).map((path) => onClaim(mounts, path));
  const report = onClaim(mounts, container.command[out + 1]);
  const claims = new Set([...inputs, report].map((item) => item.claim));
  assert.equal(claims.size, 1, 'the collector reads and writes one claim');
  return { claim: report.claim, inputs: inputs.map((item) => item.path), report: report.path, runners: Number(container.command[container.command.indexOf('--runners') + 1]) };
}

// --- inputs ----------------------------------------------------------------------------------

function k8sInput(script: string, profile: string, options: { resultsPvc?: string; prometheusUrl?: string } = {}): K8sInput {
  const settings: ScriptSettings = { baseUrl: 'https://staging.example/v1/api', apiKey: '', profile, thresholdsFile: '/thresholds.json', runPrefix: 'dxs-m0k8s000-abc123' };
  return { k6: 'k6', script, parallelism: 4, out: '/unused', settings, ...options };
}

const VARIANTS = [{}, { resultsPvc: 'dxs-results' }, { prometheusUrl: 'http://prometheus.monitoring:9090/api/v1/write' }, { resultsPvc: 'dxs-results', prometheusUrl: 'http://prometheus:9090/api/v1/write' }];

// --- tests -----------------------------------------------------------------------------------

test('every TestRun that dxs load k8s writes validates against the k6-operator CRD (each profile, script, results option)', { skip: existsSync(CRD) ? false : NO_CRD }, () => {
  const ajv = newAjv();
  const validate = ajv.compile(testRunSchema());
  let count = 0;
  for (const script of scriptNames()) {
    for (const profile of PROFILE_NAMES) {
      for (const variant of VARIANTS) {
        const input = k8sInput(script, profile, variant);
        const written = readYaml(testRunManifest(input, `${script}.tar`));
        assert.deepEqual(written, testRunObject(input, `${script}.tar`), 'the YAML reads back as the object written');
        assert.ok(validate(written), `${script} ${profile} ${JSON.stringify(variant)}:\n${ajv.errorsText(validate.errors, { separator: '\n' })}`);
        count += 1;
      }
    }
  }
  assert.equal(count, scriptNames().length * PROFILE_NAMES.length * VARIANTS.length);
  // The README waits for a stage the operator really sets.
  const stages = ((testRunSchema().properties as Json).status as { properties: { stage: { enum: string[] } } }).properties.stage.enum;
  const waited = /--for=jsonpath='\{\.status\.stage\}'=(\w+)/.exec(k8sReadme(k8sInput('lookup', 'smoke'), 'lookup.tar'));
  assert.ok(waited !== null && stages.includes(waited[1]), `the README waits for stage ${waited?.[1]}, not one of ${stages.join(', ')}`);
});

test('the CRD check catches a misspelt field and a wrong type (it can fail)', { skip: existsSync(CRD) ? false : NO_CRD }, () => {
  const ajv = newAjv();
  const manifest = testRunObject(k8sInput('lookup', 'smoke', { resultsPvc: 'dxs-results' }), 'lookup.tar') as { spec: { parallelism: unknown; runner: { volumeMounts: Json[] } } };
  const misspelt = structuredClone(manifest);
  misspelt.spec.runner.volumeMounts[0] = { ...misspelt.spec.runner.volumeMounts[0], subPathExpression: 'x' };
  assert.match(errorsOf(ajv, testRunSchema(), misspelt), /additional properties/);
  const wrongType = structuredClone(manifest);
  wrongType.spec.parallelism = '4';
  assert.match(errorsOf(ajv, testRunSchema(), wrongType), /must be integer/);
});

test('the collector Job, the reader pod and the example claim are well-formed Kubernetes objects', { skip: existsSync(CRD) ? false : NO_CRD }, () => {
  const ajv = newAjv();
  for (const script of scriptNames()) {
    const input = { ...k8sInput(script, 'average'), resultsPvc: 'dxs-results' };
    for (const [schema, object] of [[jobSchema(), collectorObject(input)], [podSchema(), readerObject(input)], [claimSchema(), claimObject('dxs-results')]] as const) {
      assert.equal(errorsOf(ajv, schema, readYaml(toYaml(object))), '', `${script}: ${String(object.kind)}`);
    }
  }
  const broken = collectorObject({ ...k8sInput('lookup', 'smoke'), resultsPvc: 'dxs-results' }) as { spec: { template: { spec: { containers: Json[] } } } };
  broken.spec.template.spec.containers[0].volumeMount = [];
  assert.match(errorsOf(ajv, jobSchema(), broken), /additional properties/);
});

test('the collector merges exactly the folders the runners write, on the same claim, and the README copies out its report', () => {
  for (const script of scriptNames()) {
    const input = { ...k8sInput(script, 'smoke'), resultsPvc: 'dxs-results' };
    const testRun = testRunObject(input, `${script}.tar`);
    const collector = collectorPaths(collectorObject(input));
    assert.equal(collector.runners, (testRun.spec as { parallelism: number }).parallelism, 'the collector expects every runner');
    const pods = ['1', '2', '3', '4'].map((index) => `${k8sNames(input).testRun}-${index}-x7k2p`);
    const files = pods.flatMap((pod) => runnerFiles(testRun, pod));
    assert.equal(files.length, pods.length * 2, 'each runner writes its raw points and its summary export');
    assert.equal(new Set(files.map((file) => file.path)).size, files.length, 'no two runners write the same file');
    for (const file of files) {
      assert.equal(file.claim, collector.claim, 'runners and collector use one claim');
      assert.ok(collector.inputs.some((input) => file.path.startsWith(`${input}/`)), `${file.path} is under the collector's inputs ${collector.inputs.join(', ')}`);
      assert.equal(basename(dirname(file.path)), script, 'dxs load merge groups a runner\'s files by their folder: the script');
      assert.ok(!file.path.startsWith(`${collector.report}/`) && !collector.inputs.some((input) => collector.report.startsWith(`${input}/`)), 'the report is not among the inputs');
    }
    const reader = readerObject(input) as { metadata: { name: string }; spec: { containers: Array<{ volumeMounts: Json[] }>; volumes: Json[] } };
    const readerMounts = claimMounts(reader.spec.volumes, reader.spec.containers[0].volumeMounts, '');
    assert.equal(readerMounts[0].claim, collector.claim);
    const readme = k8sReadme(input, `${script}.tar`);
    assert.ok(readme.includes(`kubectl cp ${reader.metadata.name}:${readerMounts[0].mountPath}/${collector.report} `), 'the README copies the collector\'s report out through the reader');
    const program = ((collectorObject(input).spec as Json).template as { spec: { volumes: Array<{ configMap?: { name: string } }> } }).spec.volumes.find((volume) => volume.configMap !== undefined)!.configMap!.name;
    assert.ok(readme.includes(`kubectl create configmap ${program} --from-file=${COLLECTOR_PROGRAM}`), 'the README puts the collector\'s program into the ConfigMap it mounts');
    assert.ok(readme.includes(`kubectl create configmap ${k8sNames(input).testRun} --from-file=${script}.tar`));
  }
});

// --- the cluster, simulated ------------------------------------------------------------------

const RUNNERS = 3;
const ITERATIONS = 30;
const sandbox = sandboxForK6Tests(k6);

/** A process with a bare environment plus `env`, as a pod has; stdout and stderr as one text. */
async function run(command: string, args: string[], env: Record<string, string>): Promise<{ code: number; output: string }> {
  const result = await runCommand(command, args, { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env }, 120_000);
  return { code: result.code, output: `${result.stdout}${result.stderr}` };
}

/** k6 as the operator starts a runner (less --address and --paused: no port, no starter here), its claim mount a local folder. */
function runnerArgs(testRun: Json, archive: string, claimRoot: string, podName: string, segment: { index: number; count: number } | undefined): string[] {
  const spec = testRun.spec as { arguments: string; runner: { volumes: Json[]; volumeMounts: Json[] } };
  const [mount] = claimMounts(spec.runner.volumes, spec.runner.volumeMounts, podName);
  const local = join(claimRoot, mount.subPath);
  mkdirSync(local, { recursive: true }); // the kubelet makes the sub-path directory
  const argv = spec.arguments.split(' ').map((word) => word.replace(new RegExp(`(^|=)${mount.mountPath}/`), `$1${local}/`));
  const name = (testRun.metadata as Json).name as string;
  return ['run', '--quiet', ...(segment === undefined ? [] : segmentArguments(segment)), ...argv, archive, '--tag', `instance_id=${segment?.index ?? 1}`, '--tag', `testrun_name=${name}`];
}

function runnerEnv(testRun: Json, podName: string, apiKey: string): Record<string, string> {
  const env: Record<string, string> = { POD_NAME: podName, DXS_API_KEY: apiKey, K6_NO_USAGE_REPORT: 'true' };
  for (const entry of (testRun.spec as { runner: { env: Array<{ name: string; value?: string }> } }).runner.env) if (entry.value !== undefined) env[entry.name] = entry.value;
  return env;
}

/** The verdict of each threshold as k6 itself judged it in one process (summary export: true = crossed). */
function k6Verdicts(summaryExport: string): string[] {
  const summary = JSON.parse(readFileSync(summaryExport, 'utf8')) as { metrics: Record<string, { thresholds?: Record<string, boolean> }> };
  return Object.entries(summary.metrics).flatMap(([metric, value]) => Object.entries(value.thresholds ?? {}).map(([expression, crossed]) => `${metric} ${expression}: ${crossed ? 'failed' : 'ok'}`)).sort();
}

function mergedVerdicts(reportDir: string): string[] {
  return readSummary(reportDir).results[0].thresholds.map((verdict) => `${verdict.metric} ${verdict.expression}: ${verdict.ok ? 'ok' : 'failed'}`).sort();
}

test(`${RUNNERS} runners writing into their own folders of one claim, merged by the collector, judge as one k6 process`, { skip: k6 === undefined ? NO_K6 : false, timeout: 300_000 }, async () => {
  const files = tempDirectory('k8s-cluster');
  // A count that only the whole run reaches (each runner sends a third of it), a limit nobody
  // meets, and the default latency limits, which all pass.
  const thresholds = join(files, 'thresholds.json');
  writeFileSync(thresholds, JSON.stringify({ checks: 0.5, k6: { 'http_reqs{name:POST /clienttokens/create}': [`count>=${ITERATIONS}`], iteration_duration: ['p(95)<0.001'] } }));
  const bundle = join(files, 'bundle');
  const written = await dxs(['load', 'k8s', '--script', 'client-tokens', '--parallelism', String(RUNNERS), '--iterations', String(ITERATIONS), '--vus', String(RUNNERS), '--duration', '60s',
    '--thresholds', thresholds, '--results-pvc', 'dxs-results', '--base-url', sandbox()!.baseUrl, '--out', bundle]);
  assert.equal(written.code, 0, written.stderr);
  const testRun = readYaml(readFileSync(join(bundle, 'testrun.yaml'), 'utf8')) as Json;
  const collector = readYaml(readFileSync(join(bundle, 'collector.yaml'), 'utf8')) as Json;
  if (existsSync(CRD)) {
    const ajv = newAjv();
    assert.equal(errorsOf(ajv, testRunSchema(), testRun), '');
    assert.equal(errorsOf(ajv, jobSchema(), collector), '');
  }
  const archive = join(bundle, 'client-tokens.tar');

  const claim = join(files, 'claim');
  const pods = Array.from({ length: RUNNERS }, (_, index) => `dxs-load-client-tokens-${index + 1}-q${index}w8z`);
  const runners = await Promise.all(pods.map((pod, index) => run(k6!, runnerArgs(testRun, archive, claim, pod, { index: index + 1, count: RUNNERS }), runnerEnv(testRun, pod, sandbox()!.apiKey))));
  for (const runner of runners) assert.equal(runner.code, 99, `a runner crosses the impossible limit and its own share of the count:\n${runner.output.slice(-3000)}`);
  for (const pod of pods) {
    const own = k6Verdicts(join(claim, runnerFiles(testRun, pod).find((file) => file.path.endsWith('k6-summary.json'))!.path));
    assert.ok(own.includes(`http_reqs{name:POST /clienttokens/create} count>=${ITERATIONS}: failed`), `${pod} judged only its share: ${own.join('; ')}`);
  }

  const singleClaim = join(files, 'single');
  const single = await run(k6!, runnerArgs(testRun, archive, singleClaim, 'single', undefined), runnerEnv(testRun, 'single', sandbox()!.apiKey));
  assert.equal(single.code, 99, single.output.slice(-3000));
  const singleSummary = join(singleClaim, runnerFiles(testRun, 'single').find((file) => file.path.endsWith('k6-summary.json'))!.path);
  const expected = k6Verdicts(singleSummary);
  assert.ok(expected.includes(`http_reqs{name:POST /clienttokens/create} count>=${ITERATIONS}: ok`) && expected.includes('iteration_duration p(95)<0.001: failed'), expected.join('; '));

  // The collector's own command, its claim paths on the local claim folder.
  const paths = collectorPaths(collector);
  const collect = ['--out', join(claim, paths.report), '--runners', String(paths.runners)];
  const collected = await run(process.execPath, [join(bundle, COLLECTOR_PROGRAM), ...paths.inputs.map((path) => join(claim, path)), ...collect], {});
  assert.equal(collected.code, 1, `thresholds failed: the collector exits 1 as dxs load merge does\n${collected.output}`);
  assert.match(collected.output, /^client-tokens: FAILED/m);
  const merged = readSummary(join(claim, paths.report)).results[0];
  assert.equal(merged.runners, RUNNERS);
  assert.equal(merged.iterations, ITERATIONS, 'the runners together ran the iterations of one process');
  assert.deepEqual(mergedVerdicts(join(claim, paths.report)), expected, 'the merged verdict of each threshold is the single process\'s');
  assert.ok(existsSync(join(claim, paths.report, 'index.html')));

  // A runner whose pod never wrote (evicted, never scheduled): the whole run cannot be judged.
  rmSync(join(claim, dirname(runnerFiles(testRun, pods[2])[0].path)), { recursive: true });
  const partial = await run(process.execPath, [join(bundle, COLLECTOR_PROGRAM), ...paths.inputs.map((path) => join(claim, path)), ...collect], {});
  assert.equal(partial.code, 2, partial.output);
  assert.match(partial.output, new RegExp(`Found the raw points of ${RUNNERS - 1} runners, expected ${RUNNERS}`));
});
