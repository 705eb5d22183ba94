// dxs sandbox: serves the reference implementation of the API by hand, for integrators and for
// `dxs test --base-url http://127.0.0.1:4010/v1/api`. Prints one ready line with the base URL and
// the sandbox's own (documented, sandbox-only) API keys; stops cleanly on SIGINT and SIGTERM.
import type { Command } from 'commander';
import { DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT } from '../../lib/defaults.ts';
import type { SandboxOptions } from '../../sandbox/index.ts';
import { DEFAULT_ASYNC_DELAY_MS } from '../../sandbox/timing-variants.ts';
import { FAULTS, VARIANT_GROUPS, VARIANTS } from '../../sandbox/faults.ts';

interface SandboxFlags {
  port: string;
  host: string;
  casing?: string;
  asyncDelay?: string;
  config?: string;
  fault?: string[];
  variant?: string[];
  log?: boolean;
  tlsName?: string[];
}

class UsageError extends Error {}

function integer(value: string, flag: string, minimum: number, maximum: number): number {
  if (!/^\d+$/.test(value) || Number(value) < minimum || Number(value) > maximum) {
    throw new UsageError(`${flag} ${value}: expected an integer from ${minimum} to ${maximum}`);
  }
  return Number(value);
}

function optionsOf(flags: SandboxFlags): SandboxOptions {
  if (flags.casing !== undefined && flags.casing !== 'camel' && flags.casing !== 'pascal') {
    throw new UsageError(`--casing ${flags.casing}: choose camel or pascal`);
  }
  return {
    host: flags.host,
    port: integer(flags.port, '--port', 0, 65535),
    casing: flags.casing as SandboxOptions['casing'],
    asyncDelayMs: flags.asyncDelay === undefined ? undefined : integer(flags.asyncDelay, '--async-delay', 0, 3_600_000),
    configFile: flags.config,
    faults: flags.fault ?? [],
    variants: flags.variant ?? [],
    logger: flags.log === true,
    tlsHostNames: flags.tlsName,
  };
}

function explain(error: unknown, options: SandboxOptions): string {
  const code = (error as { code?: string }).code;
  if (code === 'EADDRINUSE') return `port ${options.port} on ${options.host} is already in use; choose another with --port (0 picks a free one)`;
  if (code === 'EACCES') return `not allowed to listen on ${options.host}:${options.port}`;
  if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND') return `cannot listen on host ${options.host}`;
  return (error as Error).message;
}

/** The faults, one line each: the name and what it breaks (dxs sandbox --help; docs/sandbox.md has them as a table). */
export function faultLines(): string[] {
  const width = Math.max(...Object.keys(FAULTS).map((name) => name.length));
  return Object.entries(FAULTS).map(([name, description]) => `  ${name.padEnd(width)}  ${description}`);
}

/** What the start line says the sandbox runs with: a reader of a log sees at once whether it is the clean one. */
export function runsWith(faults: readonly string[], variants: readonly string[]): string {
  const named = variants.map((name) => (VARIANT_GROUPS[name] === undefined ? name : `${name} (${VARIANT_GROUPS[name].length} variants)`));
  return `faults: ${faults.length === 0 ? 'none' : faults.join(', ')}; variants: ${named.length === 0 ? 'none' : named.join(', ')}`;
}

export function registerSandboxCommand(program: Command): void {
  program
    .command('sandbox')
    .description('serve the reference implementation of the API (the embedded sandbox) at http://HOST:PORT/v1/api (https with --variant tls, mtls or tls-expiring)')
    .option('--port <N>', 'port to listen on (0 picks a free one)', String(DEFAULT_SANDBOX_PORT))
    .option('--host <HOST>', 'address to listen on', DEFAULT_SANDBOX_HOST)
    .option('--casing <CASING>', 'field-name casing of responses: camel or pascal [default: camel]')
    .option('--async-delay <MS>', `delay of each background step in milliseconds [default: ${DEFAULT_ASYNC_DELAY_MS}]`)
    .option('--config <FILE>', 'JSON configuration (API keys, identifier types, deletesEnabled, storage cap ...; see sandbox/README.md)')
    .option('--fault <NAME...>', 'switch on a deliberate deviation from the spec (the names, each with what it breaks: Faults below)')
    .option('--variant <NAME...>', `switch on a legitimate difference, or a group of them (${[...Object.keys(VARIANT_GROUPS), ...Object.keys(VARIANTS)].join(', ')})`)
    .option('--log', 'log every request (APIkey and ClientToken headers redacted)')
    .option('--tls-name <NAME...>', 'with --variant tls or mtls: host names the server certificate names besides localhost, 127.0.0.1 and ::1 (a name a proxy or /etc/hosts maps to this machine)')
    .addHelpText('after', () => `\nFaults (--fault NAME) and what each breaks:\n${faultLines().join('\n')}\n\nExample:\n  $ dxs sandbox --port 4010 --fault revoked-token-accepted\n\nThe start line names the faults and variants the sandbox runs with.`)
    .action(async (flags: SandboxFlags) => {
      let options: SandboxOptions;
      try {
        options = optionsOf(flags);
      } catch (error) {
        console.error(`dxs sandbox: ${(error as Error).message}`);
        process.exit(2);
      }
      let running;
      try {
        // Loaded when used: the other commands of the CLI never pay for fastify.
        const { startSandbox } = await import('../../sandbox/index.ts');
        running = await startSandbox(options);
      } catch (error) {
        console.error(`dxs sandbox: ${explain(error, options)}`);
        process.exit(2);
      }
      console.log(`dxs sandbox listening on ${running.baseUrl} (API keys: ${running.apiKey} with the DeleteRegistration role, ${running.apiKeyWithoutDelete} without); ${runsWith(options.faults ?? [], options.variants ?? [])}`);
      // One line each, after the ready line: the files a client needs, for the run's life only.
      if (running.tls !== undefined) console.log(`dxs sandbox CA certificate: ${running.tls.caCert} (dxs test --base-url ${running.baseUrl} --ca-cert ${running.tls.caCert})`);
      if (running.tls?.clientCert !== undefined) console.log(`dxs sandbox client certificate: ${running.tls.clientCert} key: ${running.tls.clientKey} (--client-cert, --client-key)`);
      let stopping = false;
      const stop = async (signal: string) => {
        if (stopping) return;
        stopping = true;
        console.error(`dxs sandbox: ${signal}, stopping`);
        await running.close();
        process.exit(0);
      };
      process.once('SIGINT', () => void stop('SIGINT'));
      process.once('SIGTERM', () => void stop('SIGTERM'));
    });
}
