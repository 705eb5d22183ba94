// Writes the report of a client-check run: results.json, index.html, junit.xml, each passed
// through the SecretRegistry (the keys handed to the client and every token the sandbox issued).
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { secrets as processSecrets, type SecretRegistry } from '../lib/redact.ts';
import { renderJunit } from '../report/junit.ts';
import { loadClientRequirements } from '../schemas/client-requirements.ts';
import { renderClientHtml } from './html.ts';
import type { GradedCall } from './graded-call.ts';
import { exchangeOf, type ClientResults } from './results.ts';

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

export function writeClientReport(directory: string, results: ClientResults, calls: readonly GradedCall[] = [], registry: SecretRegistry = processSecrets): ClientResults {
  mkdirSync(directory, { recursive: true });
  writeFileSync(join(directory, 'traffic.json'), `${JSON.stringify(registry.redactValue(JSON.parse(registry.redactText(JSON.stringify(trafficOf(calls, results.run.target))))), null, 1)}\n`);
  const redacted = registry.redactValue(JSON.parse(registry.redactText(JSON.stringify(results))) as ClientResults);
  writeFileSync(join(directory, 'results.json'), `${JSON.stringify(redacted, null, 1)}\n`);
  writeFileSync(join(directory, 'index.html'), registry.redactText(renderClientHtml(redacted, loadClientRequirements())));
  writeFileSync(join(directory, 'junit.xml'), registry.redactText(renderJunit(redacted).replace('<testsuites name="dxs test"', '<testsuites name="dxs client-check"')));
  return redacted;
}
