// The fuzz section of the report directory: fuzz.html lists Schemathesis' failures per operation
// (from its JUnit file) and the checks relaxed with their reasons. When dxs test wrote its report
// into the same directory, index.html gets a section with the fuzz summary and a link, beside the
// conformance verdicts; otherwise fuzz.html is also the index. Everything is redacted.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { secrets } from '../../../lib/redact.ts';
import { escapeHtml } from '../../../report/html.ts';

export interface FuzzCase {
  operation: string;
  /** Failure codes with their texts (ST201 ...); empty when the operation passed. */
  failures: Array<{ code: string; text: string }>;
}

export interface FuzzSummary {
  operations: number;
  failures: number;
  cases: FuzzCase[];
}

function unescapeXml(text: string): string {
  return text.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, "'").replace(/&#(\d+);/g, (_match, code: string) => String.fromCodePoint(Number(code))).replace(/&amp;/g, '&');
}

/** The test cases of Schemathesis' JUnit report: one per operation, its failures and errors inside. */
export function parseJunit(xml: string): FuzzSummary {
  const cases: FuzzCase[] = [];
  for (const match of xml.matchAll(/<testcase\b[^>]*\bname="([^"]*)"[^>]*?(?:\/>|>([\s\S]*?)<\/testcase>)/g)) {
    const failures = [...(match[2] ?? '').matchAll(/<(failure|error)\b([^>]*)>([\s\S]*?)<\/\1>/g)].map((failure) => ({
      code: unescapeXml(/\bmessage="([^"]*)"/.exec(failure[2])?.[1] ?? failure[1]),
      text: unescapeXml(failure[3]),
    }));
    cases.push({ operation: unescapeXml(match[1]), failures });
  }
  return { operations: cases.length, failures: cases.reduce((total, item) => total + item.failures.length, 0), cases };
}

export interface FuzzReportInput {
  junitFile: string;
  outputFile: string;
  target: string;
  relaxations: string[];
  started: Date;
  /** The seed of the run, and the command that repeats it. */
  seed?: number;
  repeat?: string;
  /** What the run created at the target (the setup and Schemathesis) and what is left, one line each. */
  created?: string[];
  /** Answers slower than the limit --checks all would judge them by (fuzz/har.ts slowAnswers): warnings. */
  slowAnswers?: string[];
}

function page(summary: FuzzSummary, input: FuzzReportInput, warnings: string[]): string {
  const failed = summary.cases.filter((item) => item.failures.length > 0);
  const rows = failed.map((item) => `<section class="failed"><h3>${escapeHtml(item.operation)}</h3>${item.failures.map((failure) => `<details><summary>${escapeHtml(failure.code)}</summary><pre>${escapeHtml(failure.text)}</pre></details>`).join('')}</section>`).join('\n');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>dxs fuzz</title>
<style>body{font-family:system-ui,sans-serif;margin:2rem;max-width:70rem}pre{white-space:pre-wrap;background:#f6f6f6;padding:.5rem}.failed h3{color:#a00}.ok{color:#070}</style></head>
<body>
<h1>dxs fuzz: Schemathesis against ${escapeHtml(input.target)}</h1>
<p>Started ${escapeHtml(input.started.toISOString())}. ${summary.operations} operation(s) tested,
<strong class="${summary.failures === 0 ? 'ok' : 'failed'}">${summary.failures} failure(s)</strong>.
Files: <a href="fuzz-junit.xml">fuzz-junit.xml</a>, <a href="fuzz-output.txt">fuzz-output.txt</a>, <a href="openapi.json">openapi.json</a>.</p>
${input.seed === undefined ? '' : `<p id="seed">Seed ${input.seed}. To repeat this run: <code>${escapeHtml(input.repeat ?? '')}</code></p>`}
${input.created === undefined ? '' : `<h2>Data created at the target</h2><ul id="created">${input.created.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>`}
${warnings.length === 0 ? '' : `<h2>Warnings</h2><ul>${warnings.map((warning) => `<li>${escapeHtml(warning)}</li>`).join('')}</ul>`}
<h2>Failures</h2>
${rows === '' ? '<p class="ok">None.</p>' : rows}
<h2>Checks turned off or relaxed, and the spec sentence (or, for the sandbox-exact export, the sandbox rule) that forces each</h2>
<ul>${input.relaxations.map((line) => `<li>${escapeHtml(line)}</li>`).join('')}</ul>
</body></html>
`;
}

/** Schemathesis' warnings section ("Missing test data: ...") from its console output. */
function warningsOf(output: string): string[] {
  const section = /\nWarnings:\n([\s\S]*?)\n\n/.exec(output)?.[1] ?? '';
  return section.split('\n').map((line) => line.replace(/^\W+/, '').trim()).filter(Boolean);
}

const SECTION_START = '<!-- dxs fuzz -->';
const SECTION_END = '<!-- /dxs fuzz -->';

/** Writes fuzz.html (and index.html when there is none) and, beside a dxs test report, its section in index.html. */
export function writeFuzzReport(reportDir: string, input: FuzzReportInput): FuzzSummary {
  const summary = existsSync(input.junitFile) ? parseJunit(secrets.redactText(readFileSync(input.junitFile, 'utf8'))) : { operations: 0, failures: 0, cases: [] };
  if (existsSync(input.junitFile)) writeFileSync(input.junitFile, secrets.redactText(readFileSync(input.junitFile, 'utf8')));
  const warnings = [...(existsSync(input.outputFile) ? warningsOf(readFileSync(input.outputFile, 'utf8')) : []), ...(input.slowAnswers ?? [])];
  const html = secrets.redactText(page(summary, input, warnings));
  writeFileSync(join(reportDir, 'fuzz.html'), html);
  const index = join(reportDir, 'index.html');
  const conformance = existsSync(join(reportDir, 'results.json')) && existsSync(index);
  if (!conformance) {
    writeFileSync(index, html);
    return summary;
  }
  const section = `${SECTION_START}<section id="fuzz"><h2>Schemathesis (dxs fuzz)</h2><p>${summary.operations} operation(s), ${summary.failures} failure(s)${warnings.length > 0 ? `, ${warnings.length} warning(s)` : ''}: <a href="fuzz.html">details</a>.</p>${summary.cases.filter((item) => item.failures.length > 0).map((item) => `<p>${escapeHtml(item.operation)}: ${item.failures.map((failure) => escapeHtml(failure.code)).join(', ')}</p>`).join('')}</section>${SECTION_END}`;
  const current = readFileSync(index, 'utf8');
  const start = current.indexOf(SECTION_START);
  const withoutOld = start >= 0 ? current.slice(0, start) + current.slice(current.indexOf(SECTION_END) + SECTION_END.length) : current;
  writeFileSync(index, withoutOld.includes('</body>') ? withoutOld.replace('</body>', `${section}</body>`) : withoutOld + section);
  return summary;
}
