// dxs schemas: the contract layer on the command line. `openapi` writes the OpenAPI 3.1 document
// assembled from schemas/bodies, `list` names the schemas, `requirements` prints the catalog, `claims`
// holds the catalog's endpoints to what a run's tests called.
import type { Command } from 'commander';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { schemaDocuments, schemaNames } from '../../schemas/index.ts';
import { buildOpenApi } from '../../schemas/openapi.ts';
import type { Casing } from '../../lib/casing.ts';
import { DEFAULT_SANDBOX_CASING } from '../../lib/defaults.ts';
import { filterRequirements, loadRequirements, REQUIREMENT_AREAS, REQUIREMENT_LEVELS } from '../../schemas/requirements.ts';
import { catalogClaims, describeUnbacked } from '../../report/catalog-claims.ts';
import { readResults } from '../../report/write.ts';

function usage(message: string): never {
  console.error(`dxs schemas: ${message}`);
  process.exit(2);
}

export function registerSchemasCommand(program: Command): void {
  const schemas = program.command('schemas').description('the contract: JSON Schemas, the OpenAPI document and the requirements catalog');

  schemas
    .command('openapi')
    .description('write the OpenAPI 3.1 document of the spec (or, with --sandbox-exact, of the sandbox), assembled from the JSON Schemas (to stdout unless --out)')
    .option('--out <file>', 'write to this file')
    .option('--casing <CASING>', `field-name casing of the bodies: camel or pascal, as the target answers [default: ${DEFAULT_SANDBOX_CASING}, the sandbox's]`)
    .option('--sandbox-exact', "the sandbox's own contract (every status it answers, its forms of values) instead of what the spec asks of every implementation")
    .action((flags: { out?: string; casing?: string; sandboxExact?: boolean }) => {
      if (flags.casing !== undefined && flags.casing !== 'camel' && flags.casing !== 'pascal') usage(`--casing ${flags.casing}: choose camel or pascal`);
      const text = `${JSON.stringify(buildOpenApi({ casing: flags.casing as Casing | undefined, sandboxExact: flags.sandboxExact === true }), null, 2)}\n`;
      if (flags.out === undefined) {
        process.stdout.write(text);
        return;
      }
      try {
        writeFileSync(flags.out, text);
      } catch (error) {
        usage(`cannot write ${flags.out}: ${(error as Error).message}`);
      }
      console.error(`dxs schemas: OpenAPI document written to ${flags.out}`);
    });

  schemas
    .command('list')
    .description('list the schema names (as passed to the validators) with their titles')
    .action(() => {
      const documents = schemaDocuments();
      const width = Math.max(...schemaNames().map((name) => name.length));
      for (const name of schemaNames()) console.log(`${name.padEnd(width)}  ${String(documents.get(name)?.title ?? '')}`);
    });

  schemas
    .command('requirements')
    .description('print the requirements catalog, optionally filtered')
    .option('--level <level>', `one of ${REQUIREMENT_LEVELS.join(', ')}`)
    .option('--area <area>', `one of ${REQUIREMENT_AREAS.join(', ')}`)
    .option('--json', 'print JSON instead of text')
    .action((flags: { level?: string; area?: string; json?: boolean }) => {
      if (flags.level !== undefined && !(REQUIREMENT_LEVELS as readonly string[]).includes(flags.level.toUpperCase())) {
        usage(`--level ${flags.level}: choose one of ${REQUIREMENT_LEVELS.join(', ')}`);
      }
      if (flags.area !== undefined && !(REQUIREMENT_AREAS as readonly string[]).includes(flags.area.toLowerCase())) {
        usage(`--area ${flags.area}: choose one of ${REQUIREMENT_AREAS.join(', ')}`);
      }
      const requirements = filterRequirements({ level: flags.level, area: flags.area });
      if (flags.json === true) {
        console.log(JSON.stringify(requirements, null, 2));
        return;
      }
      for (const requirement of requirements) {
        console.log(`${requirement.id}  ${requirement.level}  ${requirement.endpoints.join(', ')}`);
        console.log(`  ${requirement.statement}`);
        console.log(`  test: ${requirement.test}`);
      }
      console.log(`${requirements.length} requirement(s)`);
    });

  schemas
    .command('claims')
    .description("hold the catalog to a run: every endpoint a requirement names must be called by a test tagged with it (exit 1 when one is not); IDs whose tests did not run are listed, not judged")
    .argument('[DIR]', 'a report folder of dxs test', 'reports/latest')
    .option('--json', 'print JSON instead of text')
    .action((directory: string, flags: { json?: boolean }) => {
      const file = join(directory, 'results.json');
      if (!existsSync(file)) usage(`no results.json in ${directory}: run dxs test first, or name its --report-dir`);
      const results = readResults(file);
      if (!results.tests.some((test) => test.endpoints !== undefined)) usage(`${file} records no endpoints per test: it was written by a dxs older than this command`);
      const claims = catalogClaims(results, loadRequirements());
      if (flags.json === true) console.log(JSON.stringify(claims, null, 2));
      else {
        for (const claim of claims.unbacked) console.log(`not backed: ${describeUnbacked(claim)}`);
        console.log(`${claims.backed.length} requirement(s) backed by their tests' calls, ${claims.unbacked.length} not backed, ${claims.untried.length} not tried in this run${claims.untried.length > 0 ? ` (${claims.untried.join(', ')})` : ''}, ${claims.unnamed.length} name no endpoint`);
      }
      process.exitCode = claims.unbacked.length > 0 ? 1 : 0;
    });
}
