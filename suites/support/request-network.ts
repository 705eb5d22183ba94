// The run's proxy and TLS settings as Playwright's request context takes them: `proxy`,
// `clientCertificates` and `ignoreHTTPSErrors`. The CA bundle reaches Playwright another way:
// its fetch trusts Node's default roots, so dxs test starts Playwright with NODE_EXTRA_CA_CERTS
// naming the bundle (cli/commands/test.ts).
import type { Connection } from '../../lib/transport.ts';

type NewContextOptions = NonNullable<Parameters<typeof import('@playwright/test').request.newContext>[0]>;

export type RequestNetworkOptions = Pick<NewContextOptions, 'proxy' | 'clientCertificates' | 'ignoreHTTPSErrors'>;

/** The request-context options for a run against baseUrl over the given connection. */
export function requestNetworkOptions(baseUrl: string, connection: Connection | undefined): RequestNetworkOptions {
  const options: RequestNetworkOptions = {};
  if (connection === undefined) return options;
  if (connection.proxy !== undefined) {
    const proxy = new URL(connection.proxy);
    options.proxy = {
      server: `${proxy.protocol}//${proxy.host}`,
      ...(proxy.username === '' && proxy.password === '' ? {} : { username: decodeURIComponent(proxy.username), password: decodeURIComponent(proxy.password) }),
    };
  }
  if (connection.clientCert !== undefined && connection.clientKey !== undefined) {
    options.clientCertificates = [{ origin: new URL(baseUrl).origin, certPath: connection.clientCert, keyPath: connection.clientKey }];
  }
  if (connection.insecure) options.ignoreHTTPSErrors = true;
  return options;
}
