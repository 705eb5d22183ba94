// k6's own outputs for `dxs load --out`: the metrics of a run go where its owner watches them
// (Prometheus remote write, InfluxDB, OpenTelemetry, a CSV or JSON file), with the tags our scripts
// put on each request (name, the endpoint; status, method, scenario) as k6 names them. Each output
// is configured by k6's own environment variables (K6_PROMETHEUS_RW_SERVER_URL, K6_INFLUXDB_*, ...),
// which dxs passes on to k6 while it keeps every other K6_ variable of its caller away from the run.
// And `--dashboard [PORT]`: k6's live web dashboard, on 127.0.0.1 only, while the run lasts.
import { ConfigError } from '../../../lib/config.ts';

/** The outputs dxs passes through, with the prefixes of the environment variables that configure each. */
export const K6_OUTPUTS: Readonly<Record<string, readonly string[]>> = {
  'experimental-prometheus-rw': ['K6_PROMETHEUS_RW_'],
  influxdb: ['K6_INFLUXDB_'],
  opentelemetry: ['K6_OTEL_'],
  csv: ['K6_CSV_'],
  json: [],
};

/** k6's dashboard port when --dashboard names none. */
export const DEFAULT_DASHBOARD_PORT = 5665;

/** "name" or "name=configuration", as k6's --out takes it; unknown names are refused before k6 runs. */
export function checkOutput(output: string): string {
  const name = output.split('=')[0];
  if (!Object.hasOwn(K6_OUTPUTS, name)) throw new ConfigError(`--out ${output}: not an output dxs passes to k6 (known: ${Object.keys(K6_OUTPUTS).join(', ')})`);
  return output;
}

/** commander's collector: --out is repeatable; undefined until given, so `dxs load k8s --out DIR` keeps its own. */
export function collectOutput(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}

export function outputArguments(outputs: readonly string[]): string[] {
  return outputs.flatMap((output) => ['--out', output]);
}

/** The caller's K6_ variables that configure the outputs asked for, and only those. */
export function outputEnvironment(outputs: readonly string[], env: NodeJS.ProcessEnv): Record<string, string> {
  const prefixes = outputs.flatMap((output) => K6_OUTPUTS[output.split('=')[0]] ?? []);
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined && prefixes.some((prefix) => entry[0].startsWith(prefix))));
}

/** --dashboard: true for k6's default port, a number for another; undefined without the flag. */
export function dashboardPort(value: unknown): number | undefined {
  if (value === undefined || value === false) return undefined;
  if (value === true) return DEFAULT_DASHBOARD_PORT;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError(`--dashboard ${String(value)}: a port is a whole number from 1 to 65535`);
  return port;
}

/**
 * k6's web dashboard: always exported to dashboard.html at the end; served live only with
 * --dashboard, and then on 127.0.0.1 alone (it shows the target's figures to whoever connects).
 */
export function dashboardEnvironment(port: number | undefined, exportFile: string, period: string): Record<string, string> {
  return {
    K6_WEB_DASHBOARD: 'true',
    K6_WEB_DASHBOARD_EXPORT: exportFile,
    // -1: no dashboard server, so nothing binds a port and k6 exits when the test ends.
    K6_WEB_DASHBOARD_PORT: port === undefined ? '-1' : String(port),
    ...(port === undefined ? {} : { K6_WEB_DASHBOARD_HOST: '127.0.0.1' }),
    K6_WEB_DASHBOARD_PERIOD: period,
  };
}
