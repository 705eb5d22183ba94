// `dxs load k8s`: a k6 archive of one script (the script, its modules and the files it opens,
// with the options frozen for the chosen profile) and a k6-operator TestRun that runs it on N
// runners. The operator gives each runner its execution segment; the API key comes from a
// Kubernetes Secret, never from the archive or the manifests.
//
// A runner's pod is gone for `kubectl cp` once k6 exits, so with --results-pvc every runner
// writes its raw points and summary into its own sub-directory of a ReadWriteMany claim, and a
// collector Job merges them there (`dxs load merge`, bundled into dxs-merge.mjs for any image
// with Node 20 or later). With --prometheus-url the runners also stream their metrics to Prometheus.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import { SYSTEM_TAGS, scriptPath, type ScriptSettings } from './run.ts';
import { settingsEnvironment } from '../../../load/lib/run-settings.ts';
import { toYaml, type YamlValue } from './yaml.ts';

export interface K8sInput {
  k6: string;
  script: string;
  parallelism: number;
  out: string;
  settings: ScriptSettings;
  /** A ReadWriteMany PersistentVolumeClaim the runners write their results to. */
  resultsPvc?: string;
  /** Prometheus remote-write endpoint (k6's experimental-prometheus-rw output). */
  prometheusUrl?: string;
}

/** Where the claim is mounted, in the runners (each its own sub-directory) and in the collector. */
export const RESULTS_MOUNT = '/results';
/** The collector's program, written beside the manifests and put in a ConfigMap. */
export const COLLECTOR_PROGRAM = 'dxs-merge.mjs';
/**
 * Any image with Node 20 or later runs the collector: the official one of an LTS line (Node 20
 * reached its end of life in April 2026), whose Debian tar lets `kubectl cp` read the report.
 */
export const NODE_IMAGE = 'node:24-slim';
/** The user of grafana/k6's image (uid 12345): every pod that touches the claim gets this group (fsGroup). */
const RESULTS_GROUP = 12345;
/** The group on the claim; its ownership is changed once, not walked again at every pod's start. */
const RESULTS_SECURITY = { fsGroup: RESULTS_GROUP, fsGroupChangePolicy: 'OnRootMismatch' };
/** The collector and the reader run as the node image's own user, never as root. */
const NODE_IMAGE_SECURITY = { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, ...RESULTS_SECURITY };
/** The raw-point trend stats sent to Prometheus (percentiles do not add up across runners: see load/README.md). */
const PROMETHEUS_TREND_STATS = 'p(95),p(99),min,max,avg,count';

/** The names of the objects, and the paths on the claim, of one `dxs load k8s` bundle. */
export function k8sNames(input: Pick<K8sInput, 'script' | 'settings'>): {
  testRun: string;
  secret: string;
  collector: string;
  collectorConfigMap: string;
  reader: string;
  /** The run's folder on the claim: the archive's run prefix, so a run does not mix with an earlier one. */
  runDirectory: string;
  runnersDirectory: string;
  reportDirectory: string;
} {
  const testRun = `dxs-load-${input.script}`;
  const runDirectory = `${testRun}/${input.settings.runPrefix}`;
  return {
    testRun,
    secret: 'dxs-load',
    collector: `${testRun}-collector`,
    collectorConfigMap: `${testRun}-merge`,
    reader: `${testRun}-results`,
    runDirectory,
    runnersDirectory: `${runDirectory}/runners`,
    reportDirectory: `${runDirectory}/report`,
  };
}

function resultsVolume(claim: string, readOnly = false): YamlValue {
  return { name: 'results', persistentVolumeClaim: readOnly ? { claimName: claim, readOnly: true } : { claimName: claim } };
}

/** The target and its API key (from the Secret): the runners call it, and the collector's final read reads the inboxes there. */
function targetEnvironment(input: K8sInput): YamlValue[] {
  return [
    { name: 'DXS_BASE_URL', value: input.settings.baseUrl },
    { name: 'DXS_API_KEY', valueFrom: { secretKeyRef: { name: k8sNames(input).secret, key: 'api-key' } } },
  ];
}

/** The TestRun as an object (toYaml writes it); the tests validate it against the operator's CRD. */
export function testRunObject(input: K8sInput, archiveName: string): { [key: string]: YamlValue } {
  const names = k8sNames(input);
  // k6-operator splits `arguments` on spaces (so no value may hold one) and passes them, less --out
  // and --no-usage-report, to the initializer's `k6 archive` too.
  const argumentsLine = ['--no-usage-report', '--system-tags', SYSTEM_TAGS];
  const env: YamlValue[] = targetEnvironment(input);
  const runner: { [key: string]: YamlValue } = { env };
  if (input.resultsPvc !== undefined) {
    argumentsLine.push('--out', `json=${RESULTS_MOUNT}/raw.json.gz`, '--summary-export', `${RESULTS_MOUNT}/k6-summary.json`);
    env.push({ name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } });
    runner.securityContext = RESULTS_SECURITY;
    runner.volumes = [resultsVolume(input.resultsPvc)];
    // The last folder is the script's name: dxs load merge groups a runner's files by it.
    runner.volumeMounts = [{ name: 'results', mountPath: RESULTS_MOUNT, subPathExpr: `${names.runnersDirectory}/$(POD_NAME)/${input.script}` }];
  }
  if (input.prometheusUrl !== undefined) {
    argumentsLine.push('--out', 'experimental-prometheus-rw');
    env.push({ name: 'K6_PROMETHEUS_RW_SERVER_URL', value: input.prometheusUrl }, { name: 'K6_PROMETHEUS_RW_TREND_STATS', value: PROMETHEUS_TREND_STATS });
  }
  return {
    apiVersion: 'k6.io/v1alpha1',
    kind: 'TestRun',
    metadata: { name: names.testRun },
    spec: {
      parallelism: input.parallelism,
      script: { configMap: { name: names.testRun, file: archiveName } },
      arguments: argumentsLine.join(' '),
      runner,
    },
  };
}

export function testRunManifest(input: K8sInput, archiveName: string): string {
  const judged = input.resultsPvc === undefined
    ? 'Each runner judges only its own share of the thresholds (see README.md).'
    : `The runners write into ${input.resultsPvc}; the collector Job (collector.yaml) judges the thresholds on the whole run.`;
  return toYaml(testRunObject(input, archiveName), [
    `k6-operator TestRun for dxs load script ${input.script}: ${input.parallelism} runners share the work`,
    'through execution segments. Create the ConfigMap and the Secret first (README.md beside this file).',
    judged,
  ]);
}

/** The collector: once the TestRun has finished, `dxs load merge` over every runner's folder on the claim. */
export function collectorObject(input: K8sInput & { resultsPvc: string }): { [key: string]: YamlValue } {
  const names = k8sNames(input);
  return {
    apiVersion: 'batch/v1',
    kind: 'Job',
    metadata: { name: names.collector },
    spec: {
      backoffLimit: 0,
      ttlSecondsAfterFinished: 86400,
      template: {
        spec: {
          restartPolicy: 'Never',
          securityContext: NODE_IMAGE_SECURITY,
          containers: [
            {
              name: 'merge',
              image: NODE_IMAGE,
              // The runners' async timeout, so that the exchange is judged as each runner would have judged it.
              command: ['node', `/dxs/${COLLECTOR_PROGRAM}`, `${RESULTS_MOUNT}/${names.runnersDirectory}`, '--out', `${RESULTS_MOUNT}/${names.reportDirectory}`, '--runners', String(input.parallelism), ...(input.settings.asyncTimeout === undefined ? [] : ['--async-timeout', String(input.settings.asyncTimeout)])],
              // The final read (issue 41): the runners are bare k6, so the collector reads the inboxes at the target.
              env: targetEnvironment(input),
              volumeMounts: [
                { name: 'results', mountPath: RESULTS_MOUNT },
                { name: 'dxs', mountPath: '/dxs', readOnly: true },
              ],
            },
          ],
          volumes: [resultsVolume(input.resultsPvc), { name: 'dxs', configMap: { name: names.collectorConfigMap } }],
        },
      },
    },
  };
}

/** A pod that only mounts the claim (read-only), so that `kubectl cp` can copy the report out. */
export function readerObject(input: K8sInput & { resultsPvc: string }): { [key: string]: YamlValue } {
  const names = k8sNames(input);
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: names.reader },
    spec: {
      restartPolicy: 'Never',
      securityContext: NODE_IMAGE_SECURITY,
      // Bounded: the pod leaves by itself after an hour if nobody deletes it.
      containers: [{ name: 'results', image: NODE_IMAGE, command: ['sleep', '3600'], volumeMounts: [{ name: 'results', mountPath: RESULTS_MOUNT, readOnly: true }] }],
      volumes: [resultsVolume(input.resultsPvc, true)],
    },
  };
}

/** An example claim, for a cluster that has none yet: its storage class must offer ReadWriteMany. */
export function claimObject(claim: string): { [key: string]: YamlValue } {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: claim },
    spec: { accessModes: ['ReadWriteMany'], resources: { requests: { storage: '5Gi' } } },
  };
}

export function k8sReadme(input: K8sInput, archiveName: string): string {
  const names = k8sNames(input);
  const steps: string[] = [
    `# dxs load on Kubernetes (k6-operator)

Script \`${input.script}\`, profile ${input.settings.profile}, ${input.parallelism} runners. Files:

- \`${archiveName}\`: k6 archive of load/scripts/${input.script}.ts (options and fixture pack inside; no API key);
- \`testrun.yaml\`: the k6-operator TestRun (apiVersion k6.io/v1alpha1);${input.resultsPvc === undefined ? '' : `
- \`results-pvc.yaml\`: an example of the ReadWriteMany claim \`${input.resultsPvc}\` (only if it does not exist yet);
- \`${COLLECTOR_PROGRAM}\` and \`collector.yaml\`: the collector Job, which runs \`dxs load merge\` (bundled into
  this one file; it needs Node 20 or later and nothing else) in \`${NODE_IMAGE}\` over every runner's folder on the claim;
- \`results-reader.yaml\`: a pod that mounts the claim read-only, to copy the report out.`}

Needs: kubectl (1.23 or later, for \`kubectl wait --for=jsonpath\`), k6-operator installed in the cluster
(the CRD testruns.k6.io), and this folder. The runners use the operator's default image
(grafana/k6:latest; \`spec.runner.image\` sets another), whose k6 must be at least as new as the
one that wrote the archive (\`k6 version\` where \`dxs load k8s\` ran).
All commands run in the namespace of the TestRun (add \`-n NAMESPACE\` to each, or set it with
\`kubectl config set-context --current --namespace NAMESPACE\`).
`,
  ];
  let step = 0;
  const add = (text: string): void => {
    step += 1;
    steps.push(`${step}. ${text}\n`);
  };
  if (input.resultsPvc !== undefined) {
    add(`The claim \`${input.resultsPvc}\` must exist and be ReadWriteMany (NFS, CephFS, EFS, Azure Files, ...): all
   runners mount it at once, possibly on different nodes. If there is none:

       kubectl apply -f results-pvc.yaml      # edit storageClassName first if the default class is not RWX
       kubectl get pvc ${input.resultsPvc}                  # STATUS Bound (some classes bind only once a pod uses it)

   Every pod that uses the claim gets the group ${RESULTS_GROUP} (fsGroup; the runners run as grafana/k6's
   user 12345, the collector and the reader as the node image's user 1000). A volume whose driver
   ignores fsGroup (many NFS setups) needs a root directory that group ${RESULTS_GROUP}, or everyone, may
   write to. The kubelet makes each runner's sub-directory itself, as root: on an NFS export that
   squashes root, the root directory must be writable by everyone.`);
  }
  add(`Put the archive in a ConfigMap (ConfigMaps hold at most 1 MiB):

       kubectl create configmap ${names.testRun} --from-file=${archiveName}`);
  add(`Put the API key in a Secret (it is in none of these files):

       kubectl create secret generic ${names.secret} --from-literal=api-key="$DXS_API_KEY"`);
  add(`Start the run, and wait until the operator says it has finished (the STAGE column):

       kubectl apply -f testrun.yaml
       kubectl wait --for=jsonpath='{.status.stage}'=finished testrun/${names.testRun} --timeout=2h   # longer than the run
       kubectl get testrun ${names.testRun}          # STAGE error: kubectl logs job/${names.testRun}-initializer`);
  if (input.resultsPvc === undefined) {
    add(`Each runner judged only its own share of the thresholds; its verdict and summary are in its log
   while its pod exists (\`kubectl logs -l k6_cr=${names.testRun},runner=true --prefix --tail=-1 --max-log-requests=${input.parallelism}\`). The runners' raw
   points were not kept: write \`dxs load k8s\` again with \`--results-pvc CLAIM\` to judge the whole
   run${input.prometheusUrl === undefined ? '' : ', or judge it in Prometheus (below: which thresholds carry over)'}.`);
  } else {
    add(`Collect: put the collector's program in a ConfigMap and run the collector Job. It merges every
   runner's folder under \`${names.runnersDirectory}/\` on the claim, judges the thresholds on the whole
   run and writes the report to \`${names.reportDirectory}/\`:

       kubectl create configmap ${names.collectorConfigMap} --from-file=${COLLECTOR_PROGRAM}
       kubectl apply -f collector.yaml
       until kubectl get job ${names.collector} -o jsonpath='{.status.succeeded}{.status.failed}' | grep -q 1; do sleep 5; done
       kubectl logs job/${names.collector}

   (If the loop keeps waiting, \`kubectl describe job ${names.collector}\` says why the pod does not run,
   for example a claim that cannot be mounted on its node.)

   The log holds the verdict (\`${input.script}: passed ...\` or \`${input.script}: FAILED ...\` with the failed
   thresholds). The Job succeeds when the thresholds passed. It fails when they did not (exit 1;
   the report is written all the same) or when the whole run cannot be judged (exit 2; the log says
   why: no runner output under the folder, or not ${input.parallelism} runners' raw points, as when a
   runner's pod was evicted or this TestRun was applied twice; a report of what is there is written).`);
    add(`Copy the report out, through a pod that mounts the claim read-only (the collector's pod has
   exited, and \`kubectl cp\` needs a running one):

       kubectl apply -f results-reader.yaml
       kubectl wait --for=condition=Ready pod/${names.reader} --timeout=5m
       kubectl cp ${names.reader}:${RESULTS_MOUNT}/${names.reportDirectory} ./${input.script}-report
       kubectl delete -f results-reader.yaml

   Open \`./${input.script}-report/index.html\`. The runners' raw points stay on the claim; copy
   \`${RESULTS_MOUNT}/${names.runnersDirectory}\` the same way to merge them again elsewhere
   (\`dxs load merge runners/ --out merged/\`).`);
    add(`To run again, delete this run's objects, write a new bundle with \`dxs load k8s\` (a new run folder
   on the claim) and start again from the ConfigMaps. Applying this testrun.yaml a second time
   would add its runners to this run's folder, and the collector would merge both runs.

       kubectl delete --ignore-not-found -f testrun.yaml -f collector.yaml
       kubectl delete configmap ${names.testRun} ${names.collectorConfigMap}`);
  }
  if (input.prometheusUrl !== undefined) {
    steps.push(`## Prometheus

The runners also send their metrics to ${input.prometheusUrl} (k6's experimental-prometheus-rw output;
the operator tags every series with \`testrun_name\` and \`instance_id\`). k6 still judges the
thresholds per runner, on its share of the load:

- rates (error rate, checks), percentiles (p95, p99), averages, maxima and minima: when every
  runner passes, the whole run passes too (each share's value bounds the whole's on the side the
  threshold checks); one runner failing does not mean that the whole run failed;
- counts and per-second rates of counters (\`http_reqs\`, \`iterations\`): each runner counts only its
  share, so \`count<N\` can pass on every runner and fail on the whole, and \`count>=N\` the other way
  round; judge them on the sum over \`instance_id\` in Prometheus;
- abortOnFail stops only the runner that crosses it.

Per-runner percentiles (the trend stats ${PROMETHEUS_TREND_STATS}) do not combine into the whole
run's: their maximum over the runners is only an upper bound. For percentiles of the whole run,
add \`K6_PROMETHEUS_RW_TREND_AS_NATIVE_HISTOGRAM=true\` to \`spec.runner.env\` (Prometheus with native
histograms enabled) and query \`histogram_quantile\` over the sum of the runners' histograms.
`);
  }
  return steps.join('\n');
}

/** Bundles the collector's program: `dxs load merge` alone, one ES module for Node 20 or later. */
async function writeCollectorProgram(outfile: string): Promise<void> {
  await build({
    entryPoints: [new URL('./collector.ts', import.meta.url).pathname],
    outfile,
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    banner: { js: '// dxs load merge, bundled by dxs load k8s for the collector Job: node dxs-merge.mjs DIR... --out DIR' },
    logLevel: 'silent',
  });
}

/** Runs `k6 archive` with the run's settings (never the API key) and writes the manifests. */
export async function writeK8sBundle(input: K8sInput): Promise<{ archive: string; manifest: string; readme: string; files: string[] }> {
  mkdirSync(input.out, { recursive: true });
  const archiveName = `${input.script}.tar`;
  const archive = join(input.out, archiveName);
  const env = settingsEnvironment(input.settings, false);
  // The base URL comes from the runner's environment (the manifest): values in the archive would win over it.
  delete env.DXS_BASE_URL;
  const args = ['archive', '--quiet', '-O', archive];
  for (const [key, value] of Object.entries(env)) args.push('-e', `${key}=${value}`);
  args.push(scriptPath(input.script));
  // A clean environment: `k6 archive` may record environment variables, and no secret may enter the archive.
  const clean = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
  const { code, output } = await new Promise<{ code: number; output: string }>((resolve, reject) => {
    const child = spawn(input.k6, args, { env: clean, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (text += chunk.toString()));
    child.on('error', reject);
    child.on('close', (exitCode) => resolve({ code: exitCode ?? 1, output: text }));
  });
  if (code !== 0) throw new Error(`k6 archive failed (exit ${code}): ${output.trim().slice(-2000)}`);
  const manifest = join(input.out, 'testrun.yaml');
  const readme = join(input.out, 'README.md');
  writeFileSync(manifest, testRunManifest(input, archiveName));
  writeFileSync(readme, k8sReadme(input, archiveName));
  const files = [archive, manifest];
  if (input.resultsPvc !== undefined) {
    const withClaim = { ...input, resultsPvc: input.resultsPvc };
    const written: Array<[string, string]> = [
      ['collector.yaml', toYaml(collectorObject(withClaim), [`Collector of ${k8sNames(input).testRun}: apply once the TestRun has finished (README.md).`])],
      ['results-reader.yaml', toYaml(readerObject(withClaim), ['Mounts the results claim read-only, for kubectl cp (README.md).'])],
      ['results-pvc.yaml', toYaml(claimObject(input.resultsPvc), ['Example claim: only if it does not exist yet; the storage class must offer ReadWriteMany.', 'storageClassName: set one under spec if the default class does not.'])],
    ];
    for (const [name, text] of written) {
      writeFileSync(join(input.out, name), text);
      files.push(join(input.out, name));
    }
    await writeCollectorProgram(join(input.out, COLLECTOR_PROGRAM));
    files.push(join(input.out, COLLECTOR_PROGRAM));
  }
  files.push(readme);
  return { archive, manifest, readme, files };
}
