// junit.xml, rendered from results.json (so a merged run gets one too). Warnings and
// observations pass, as CI should; they are listed in each case's system-out.
import { gatewayEndpointLines, gatewayLine, type GatewaySummary } from './rate-limits.ts';
import { NOT_REACHED_ANNOTATION, type Results, type TestRecord } from './results.ts';
import { accessCellsOf } from './access-cells.ts';

function xml(value: unknown): string {
  return String(value ?? '')
    // Characters XML 1.0 cannot carry at all.
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;');
}

/** The failing call's curl line and the script that makes it with every call before it (issue 43). */
function reproduceText(test: TestRecord): string {
  const reproduce = test.reproduce;
  if (reproduce?.script === undefined) return '';
  return `\n\nReproduce with curl (${reproduce.script} in the report folder makes every call of the test):\n${reproduce.call ?? `sh ${reproduce.script}`}`;
}

function testCase(test: TestRecord): string {
  const name = test.titlePath.join(' › ');
  const attributes = `name="${xml(name)}" classname="${xml(test.file)}" time="${(test.durationMs / 1000).toFixed(3)}"`;
  const notes = [
    `verdict: ${test.verdict}`,
    `requirements: ${test.requirements.join(', ')}`,
    ...test.annotations.filter((annotation) => annotation.type === 'warning' || annotation.type === 'info' || annotation.type === NOT_REACHED_ANNOTATION).map((annotation) => `${annotation.type}: ${annotation.description ?? ''}`),
  ].join('\n');
  let body = '';
  if (test.verdict === 'failed') {
    const first = (test.failure ?? 'failed').split('\n')[0];
    body = `<failure message="${xml(first)}" type="${xml(test.status)}">${xml((test.failure ?? '') + reproduceText(test))}</failure>`;
  } else if (test.verdict === 'blocked') {
    // An error, not a skip: CI must not read a test that never reached its check as fine.
    const first = (test.failure ?? 'blocked').split('\n')[0];
    body = `<error message="${xml(first)}" type="blocked">${xml(test.failure ?? '')}</error>`;
  } else if (test.verdict === 'skipped') {
    body = `<skipped message="${xml(test.skipReason ?? test.status)}"/>`;
  }
  return `    <testcase ${attributes}>${body}<system-out>${xml(notes)}</system-out></testcase>`;
}

/** The gateway's answers as properties CI can read, in a suite of no test (issue 31). */
function gatewaySuite(gateway: GatewaySummary | undefined): string | undefined {
  const line = gatewayLine(gateway);
  if (gateway === undefined || line === undefined) return undefined;
  const properties: Array<[string, unknown]> = [
    ['dxs.gateway.answers', gateway.answers],
    ...Object.entries(gateway.byStatus).map(([status, count]): [string, unknown] => [`dxs.gateway.${status}`, count]),
    ['dxs.gateway.waitedSeconds', (gateway.waitedMs / 1000).toFixed(1)],
    ['dxs.gateway.budgetExhausted', gateway.exhausted],
    ...(gateway.budgetSeconds === undefined ? [] : [['dxs.gateway.budgetSeconds', gateway.budgetSeconds] as [string, unknown]]),
    ...(gateway.maxRps === undefined ? [] : [['dxs.gateway.maxRps', gateway.maxRps] as [string, unknown]]),
  ];
  return `  <testsuite name="dxs gateway" tests="0" failures="0" skipped="0" errors="0" time="0"><properties>${properties.map(([name, value]) => `<property name="${xml(name)}" value="${xml(value)}"/>`).join('')}</properties><system-out>${xml([line, ...gatewayEndpointLines(gateway)].join('\n'))}</system-out></testsuite>`;
}

export function renderJunit(results: Results): string {
  const byFile = new Map<string, TestRecord[]>();
  for (const test of results.tests) byFile.set(test.file, [...(byFile.get(test.file) ?? []), test]);
  const suites = [...byFile].map(([file, tests]) => {
    const failures = tests.filter((test) => test.verdict === 'failed').length;
    const skipped = tests.filter((test) => test.verdict === 'skipped').length;
    const errors = tests.filter((test) => test.verdict === 'blocked').length;
    const time = tests.reduce((sum, test) => sum + test.durationMs, 0) / 1000;
    return `  <testsuite name="${xml(file)}" tests="${tests.length}" failures="${failures}" skipped="${skipped}" errors="${errors}" time="${time.toFixed(3)}">\n${tests.map(testCase).join('\n')}\n  </testsuite>`;
  });
  const { summary, run } = results;
  // A testcase per failing cell of the access matrix (issue 40), so CI names the door that opened.
  const failedCells = accessCellsOf(results.tests).filter((cell) => cell.outcome === 'failed');
  if (failedCells.length > 0) {
    const cases = failedCells.map((cell) => `    <testcase name="${xml(`${cell.endpoint} with ${cell.form}`)}" classname="dxs access matrix" time="0"><failure message="${xml(`${cell.requirement}: ${cell.note ?? 'failed'}; the target answered ${cell.status ?? 'nothing'}`)}" type="access-cell">${xml(cell.test)}</failure></testcase>`);
    suites.push(`  <testsuite name="dxs access matrix" tests="${cases.length}" failures="${cases.length}" skipped="0" errors="0" time="0">\n${cases.join('\n')}\n  </testsuite>`);
  }
  const gateway = gatewaySuite(results.gateway);
  if (gateway !== undefined) suites.push(gateway);
  // A run that could not be made is one failing case, so CI never reads it as green.
  if (run.status === 'unreachable' || run.status === 'error' || run.status === 'interrupted') {
    suites.push(`  <testsuite name="dxs run" tests="1" failures="1" skipped="0" errors="0" time="0"><testcase name="the run completes" classname="dxs"><failure message="${xml(run.message ?? run.status)}" type="${xml(run.status)}"/></testcase></testsuite>`);
  }
  const failures = summary.failed + failedCells.length + (run.status === 'unreachable' || run.status === 'error' || run.status === 'interrupted' ? 1 : 0);
  return `<?xml version="1.0" encoding="UTF-8"?>\n<testsuites name="dxs test" tests="${summary.total + failedCells.length}" failures="${failures}" skipped="${summary.skipped}" errors="${summary.blocked ?? 0}" time="${(run.durationMs / 1000).toFixed(3)}">\n${suites.join('\n')}\n</testsuites>\n`;
}
