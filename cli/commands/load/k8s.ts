// `dxs load k8s`: a k6 archive of one script (the script, its modules and the files it opens,
// with the options frozen for the chosen profile) and a k6-operator TestRun that runs it on N
// runners. The operator gives each runner its execution segment; the API key comes from a
// Kubernetes Secret, never from the archive or the manifest.
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SYSTEM_TAGS, scriptPath, type ScriptSettings } from './run.ts';
import { settingsEnvironment } from '../../../load/lib/run-settings.ts';

export interface K8sInput {
  k6: string;
  script: string;
  parallelism: number;
  out: string;
  settings: ScriptSettings;
}

function yamlString(value: string): string {
  return JSON.stringify(value);
}

export function testRunManifest(input: K8sInput, archiveName: string): string {
  const name = `dxs-load-${input.script}`;
  return `# k6-operator TestRun for dxs load script ${input.script}: ${input.parallelism} runners share the work
# through execution segments. Create the ConfigMap and the Secret first (see README.md beside this file).
apiVersion: k6.io/v1alpha1
kind: TestRun
metadata:
  name: ${name}
spec:
  parallelism: ${input.parallelism}
  script:
    configMap:
      name: ${name}
      file: ${archiveName}
  # Each runner writes its raw points and summary; collect them and run
  #   dxs load merge <runner files...> --out <dir>
  # to judge the thresholds on the whole run (a runner only judges its own share).
  arguments: --out json=/tmp/raw.json --summary-export /tmp/k6-summary.json --system-tags ${SYSTEM_TAGS}
  runner:
    env:
      - name: DXS_BASE_URL
        value: ${yamlString(input.settings.baseUrl)}
      - name: DXS_API_KEY
        valueFrom:
          secretKeyRef:
            name: dxs-load
            key: api-key
`;
}

export function k8sReadme(input: K8sInput, archiveName: string): string {
  const name = `dxs-load-${input.script}`;
  return `# dxs load on Kubernetes (k6-operator)

Files: \`${archiveName}\` (k6 archive of load/scripts/${input.script}.ts, profile ${input.settings.profile}) and \`testrun.yaml\`.

1. Put the archive in a ConfigMap (ConfigMaps hold at most 1 MiB):

       kubectl create configmap ${name} --from-file=${archiveName}

2. Put the API key in a Secret (it is in neither file):

       kubectl create secret generic dxs-load --from-literal=api-key="$DXS_API_KEY"

3. Start the run:

       kubectl apply -f testrun.yaml

4. Each runner judges only its own share of the thresholds. Copy every runner's
   /tmp/raw.json and /tmp/k6-summary.json out (a volume, or \`kubectl cp\` before the pods go),
   one folder per runner named ${input.script}, then judge the whole:

       dxs load merge runner-1/${input.script} runner-2/${input.script} ... --out merged/
`;
}

/** Runs `k6 archive` with the run's settings (never the API key) and writes the manifest. */
export async function writeK8sBundle(input: K8sInput): Promise<{ archive: string; manifest: string; readme: string }> {
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
  return { archive, manifest, readme };
}
