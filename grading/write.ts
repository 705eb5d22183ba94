// Writes the report of a client-check run: results.json, index.html, junit.xml, each passed
// through the SecretRegistry (the keys handed to the client and every token the sandbox issued).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { secrets as processSecrets, type SecretRegistry } from '../lib/redact.ts';
import { renderJunit } from '../report/junit.ts';
import { loadClientRequirements } from '../schemas/client-requirements.ts';
import { renderClientHtml } from './html.ts';
import type { GradedCall } from './graded-call.ts';
import type { RequirementOutcome } from './verdicts.ts';
import { exchangeOf, type ClientResults } from './results.ts';
import { HAR_FILE, harEntry, harOf } from '../report/har.ts';

/** A body larger than this is not kept whole in traffic.json. */
const TRAFFIC_BODY_LIMIT = 64 * 1024;

function bounded(body: unknown): unknown {
  if (body === undefined) return undefined;
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return text.length <= TRAFFIC_BODY_LIMIT ? body : `(${text.length} characters, not kept)`;
}

/** traffic.json: every call the client made and the answer it got, as recorded (redacted like every report file). */
function trafficOf(calls: readonly GradedCall[], baseUrl: string): unknown {
  return {
    format: 'dxs-client-traffic/1',
    calls: calls.map((call) => {
      const exchange = exchangeOf(call, baseUrl);
      return {
        seq: call.seq, provocation: call.provocation, ...exchange,
        request: { ...exchange.request, body: bounded(exchange.request.body), parts: call.parts },
        response: exchange.response === undefined ? undefined : { ...exchange.response, body: bounded(exchange.response.body) },
      };
    }),
  };
}

/** traffic.har (issue 43): the same calls as HAR 1.2, each naming the client requirements judged on it. */
function harOfCalls(calls: readonly GradedCall[], results: ClientResults, outcomes: readonly RequirementOutcome[], registry: SecretRegistry): unknown {
  // Every finding names the call it judged, kept or broken.
  const judged = new Map<number, Set<string>>();
  for (const outcome of outcomes) {
    for (const finding of outcome.findings) if (finding.seq !== undefined) judged.set(finding.seq, (judged.get(finding.seq) ?? new Set()).add(outcome.requirement.id));
  }
  const entries = calls.map((call) => {
    const exchange = exchangeOf(call, results.run.target);
    // The client's own headers are as it sent them: a key nobody registered is still a key.
    const redacted = { ...exchange, request: { ...exchange.request, headers: registry.redactHeaders(exchange.request.headers), body: bounded(exchange.request.body) }, response: exchange.response === undefined ? undefined : { ...exchange.response, headers: registry.redactHeaders(exchange.response.headers), body: bounded(exchange.response.body) } };
    const checked = [...(judged.get(call.seq) ?? [])].sort();
    return harEntry(redacted, { test: `dxs client-check: the client's call #${call.seq}`, requirements: checked, ...(checked.length === 0 ? {} : { checked }), ...(call.provocation === undefined ? {} : { verdict: `provoked: ${call.provocation}` }) });
  });
  return harOf(entries, results.run.version, 'dxs client-check: every call the client made and the answer it got; keys and tokens are [REDACTED]');
}

export function writeClientReport(directory: string, results: ClientResults, calls: readonly GradedCall[] = [], registry: SecretRegistry = processSecrets, outcomes: readonly RequirementOutcome[] = []): ClientResults {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'traffic.json'), `${JSON.stringify(registry.redactValue(JSON.parse(registry.redactText(JSON.stringify(trafficOf(calls, results.run.target))))), null, 1)}\n`);
  writeFileSync(join(directory, HAR_FILE), `${registry.redactText(JSON.stringify(harOfCalls(calls, results, outcomes, registry), null, 1))}\n`);
  const redacted = registry.redactValue(JSON.parse(registry.redactText(JSON.stringify(results))) as ClientResults);
  writeFileSync(join(directory, 'results.json'), `${JSON.stringify(redacted, null, 1)}\n`);
  writeFileSync(join(directory, 'index.html'), registry.redactText(renderClientHtml(redacted, loadClientRequirements())));
  writeFileSync(join(directory, 'junit.xml'), registry.redactText(renderJunit(redacted).replace('<testsuites name="dxs test"', '<testsuites name="dxs client-check"')));
  return redacted;
}
