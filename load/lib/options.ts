// A script's options: the scenario from the chosen profile and the thresholds for the endpoints
// the script calls. Scripts only name their endpoints; everything else comes from here.
//
// k6 side only (open() runs in the init context).

import type { Options } from 'k6/options';
import { buildScenario } from '../profiles/index.ts';
import { buildThresholds, validateThresholdsFile } from './thresholds.ts';
import { PROJECT_ROOT, settings } from './settings.ts';

function thresholdsFile() {
  const text = open(settings.thresholdsFile ?? `${PROJECT_ROOT}/load/thresholds/default.json`);
  return validateThresholdsFile(JSON.parse(text));
}

export function buildOptions(endpoints: readonly string[]): Options {
  const scenario = buildScenario(settings.profile, {
    vus: settings.vus,
    rate: settings.rate,
    duration: settings.duration,
    iterations: settings.iterations,
  });
  return {
    scenarios: { [settings.profile]: scenario } as Options['scenarios'],
    thresholds: buildThresholds(thresholdsFile(), endpoints) as Options['thresholds'],
    summaryTrendStats: ['avg', 'min', 'med', 'p(90)', 'p(95)', 'p(99)', 'max'],
    // setup() registers companies and waits for the background work.
    setupTimeout: '120s',
    // teardown() of the document flows waits up to the async timeout for the last deliveries.
    teardownTimeout: `${settings.asyncTimeout + 60}s`,
    // The API key never lands in the summary or the JSON outputs: k6 does not record headers.
    userAgent: 'dxs-load/0.1 (k6)',
    // A target behind mutual TLS; its CA reaches k6 as SSL_CERT_FILE, which Go reads (cli/commands/load/run.ts).
    ...(settings.clientCert !== undefined && settings.clientKey !== undefined
      ? { tlsAuth: [{ domains: [hostOf(settings.baseUrl)], cert: open(settings.clientCert), key: open(settings.clientKey) }] }
      : {}),
    ...(settings.insecure ? { insecureSkipTLSVerify: true } : {}),
  };
}

/** The host name of a URL, without URL (k6 has one only through an extension). */
function hostOf(url: string): string {
  const authority = url.replace(/^[a-z]+:\/\//i, '').split('/')[0];
  return authority.startsWith('[') ? authority.slice(1, authority.indexOf(']')) : authority.split(':')[0];
}
