// Every suite test names its area and the catalog IDs it checks, and the catalog is covered:
// read from Playwright's own listing of the suites (no test runs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EXCHANGE_RULES } from '../../lib/exchange-check.ts';
import { loadRequirements, REQUIREMENT_AREAS } from '../../schemas/requirements.ts';
import { ROOT } from './helpers.ts';

interface ListedSpec {
  title: string;
  file: string;
  line: number;
  tags: string[];
}

function listSuites(): ListedSpec[] {
  const directory = mkdtempSync(join(tmpdir(), 'dxs-list-'));
  try {
    const env: Record<string, string | undefined> = { ...process.env, DXS_DESTRUCTIVE: '1', DXS_REPORT_DIR: directory };
    delete env.DXS_RUN_CONTEXT;
    const cli = createRequire(import.meta.url).resolve('@playwright/test/cli');
    const listed = spawnSync(process.execPath, [cli, 'test', '-c', join(ROOT, 'suites', 'playwright.config.ts'), '--list', '--reporter=json'], {
      cwd: ROOT, env, encoding: 'utf8', timeout: 120_000, maxBuffer: 64 * 1024 * 1024,
    });
    assert.equal(listed.status, 0, listed.stderr);
    const specs: ListedSpec[] = [];
    const walk = (suite: { specs?: ListedSpec[]; suites?: unknown[] }): void => {
      specs.push(...(suite.specs ?? []));
      for (const inner of suite.suites ?? []) walk(inner as typeof suite);
    };
    for (const suite of (JSON.parse(listed.stdout) as { suites: unknown[] }).suites) walk(suite as { specs?: ListedSpec[] });
    return specs;
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const specs = listSuites();
const catalog = new Map(loadRequirements().map((requirement) => [requirement.id, requirement]));
// Playwright's JSON listing gives tags without their @.
const idsOf = (spec: ListedSpec): string[] => spec.tags.filter((tag) => /^[A-Z]{2,4}(-[A-Z]{2,4})?-\d{2}$/.test(tag));

test('every suite test names its area and at least one catalog ID, all of them known', () => {
  assert.ok(specs.length > 20, `the suites are listed (${specs.length})`);
  const problems: string[] = [];
  for (const spec of specs) {
    const where = `${spec.file}:${spec.line} ${spec.title}`;
    const areas = spec.tags.filter((tag) => tag.startsWith('area:')).map((tag) => tag.slice(5));
    // A scenario may span two areas; the first one is where the report files it.
    if (areas.length === 0 || areas.some((area) => !(REQUIREMENT_AREAS as readonly string[]).includes(area))) problems.push(`${where}: area tags ${JSON.stringify(areas)}`);
    const ids = idsOf(spec);
    if (ids.length === 0) problems.push(`${where}: no catalog ID`);
    for (const id of ids) if (!catalog.has(id)) problems.push(`${where}: ${id} is not in the catalog`);
  }
  assert.deepEqual(problems, []);
});

test('every catalog entry is exercised by at least one test', () => {
  // The exchange's rules are judged by dxs load's history checker, not by a suite test (test/load/exchange-check.test.ts, the load kill rows).
  const tagged = new Set([...specs.flatMap(idsOf), ...EXCHANGE_RULES]);
  const missing = [...catalog.values()].filter((requirement) => !tagged.has(requirement.id)).map((requirement) => `${requirement.id} (${requirement.level})`);
  assert.deepEqual(missing, [], `${missing.length} catalog entries exercised by no suite test`);
});
