import { Command } from 'commander';
import { readFileSync } from 'node:fs';
import { registerSandboxCommand } from './commands/sandbox.ts';
import { registerTestCommand } from './commands/test.ts';
import { registerLoadCommand } from './commands/load.ts';
import { registerSchemasCommand } from './commands/schemas.ts';
import { registerReportCommand } from './commands/report.ts';
import { registerFuzzCommand } from './commands/fuzz.ts';
import { registerCleanCommand } from './commands/clean.ts';
import { registerCertifyCommand } from './commands/certify.ts';
import { registerKeysCommand } from './commands/keys.ts';
import { registerClientCheckCommand } from './commands/client-check.ts';
import { registerDoctorCommand } from './commands/doctor.ts';
import { registerSetupCommand } from './commands/setup.ts';
import { conciseUsageErrors } from './usage.ts';

const packageJson = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string };

const program = new Command();
program
  .name('dxs')
  .description('Conformance and load tests for the Document Exchange Service API.\nWith no --base-url, each command runs against the embedded sandbox.')
  .version(packageJson.version)
  .configureHelp({ sortSubcommands: false });

registerTestCommand(program);
registerLoadCommand(program);
registerSandboxCommand(program);
registerSchemasCommand(program);
registerReportCommand(program);
registerFuzzCommand(program);
registerCleanCommand(program);
registerCertifyCommand(program);
registerKeysCommand(program);
registerClientCheckCommand(program);
registerDoctorCommand(program);
registerSetupCommand(program);
// After the commands are added, so that none inherits it: the program's own options only before a
// command, so that what follows `dxs load` reaches load (which keeps its subcommands' options theirs,
// `dxs load k8s --out DIR` beside `dxs load --out OUTPUT`) instead of being gathered by the program first.
program.enablePositionalOptions();

program.addHelpText(
  'after',
  `
Examples:
  $ dxs test                                   run every default suite against the embedded sandbox
  $ dxs test --base-url https://staging.example/v1/api --api-key $KEY
  $ dxs load --script client-tokens --profile smoke
  $ dxs load --profile average --baseline reports/load-last-release
                                               per endpoint: slower, same or faster than the baseline
  $ dxs sandbox --port 4010                    serve the reference API by hand
  $ dxs fuzz --base-url https://staging.example/v1/api --api-key $KEY
                                               Schemathesis against the OpenAPI export, with dxs's data
  $ dxs clean --from reports/latest            delete what a killed run left, from its journal
  $ dxs report diff reports/a reports/b --out reports/diff
  $ dxs certify --profile invoice-sender --deployment "acme-dx 2.4.1" --sign-key keys/dxs-signing-key.pem
                                               a certification package: certificate (HTML, PDF), report, manifest, zip
  $ dxs certify verify reports/certify-<timestamp>.zip --public-key keys/dxs-signing-key.pub.pem
  $ dxs keys generate --out keys/              an Ed25519 key pair to sign packages with
  $ dxs client-check -- node my-erp-client.js  grade an ERP client of the API against the spec
  $ dxs doctor || dxs setup                    which tool each command needs, and install k6 and Schemathesis

Exit codes: 0 passed, 1 a test or threshold failed, 2 usage, configuration or unreachable target.`,
);

// Commander exits 1 on usage errors by default, and prints the whole help after one; dxs promises 2, in three lines.
conciseUsageErrors(program);

await program.parseAsync(process.argv);
