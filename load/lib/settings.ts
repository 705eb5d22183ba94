// The run's settings, read once from __ENV (see run-settings.ts for the list). The CLI always
// passes them; the defaults let a script also be run by hand with plain `k6 run` against
// `dxs sandbox`.
//
// k6 side only: no Node APIs.

import { SANDBOX_API_KEY, DEFAULT_SANDBOX_HOST, DEFAULT_SANDBOX_PORT, API_PREFIX } from '../../lib/defaults.ts';
import { DEFAULT_ASYNC_TIMEOUT, DEFAULT_CHECK_INTERVAL, DEFAULT_SCHEMA_SAMPLE, SETTING_ENV_NAMES, type RunSettings } from './run-settings.ts';

function text(key: keyof RunSettings): string | undefined {
  const raw = __ENV[SETTING_ENV_NAMES[key]];
  return raw === undefined || raw === '' ? undefined : raw;
}

function number(key: keyof RunSettings, allowZero: boolean): number | undefined {
  const raw = text(key);
  if (raw === undefined) return undefined;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) throw new Error(`${SETTING_ENV_NAMES[key]} must be a ${allowZero ? 'non-negative' : 'positive'} number, got ${raw}`);
  return value;
}

// `dxs load` runs each script as one bundle, which may sit anywhere (cli/commands/load/bundle.ts):
// it defines DXS_PROJECT_ROOT, so the files the scripts open are found from the project root. A
// script started by hand runs from its sources, which all sit two levels below the root.
declare const DXS_PROJECT_ROOT: string | undefined;
export const PROJECT_ROOT: string = typeof DXS_PROJECT_ROOT === 'string' ? DXS_PROJECT_ROOT : '../..';

export type LoadSettings = Required<Pick<RunSettings, 'baseUrl' | 'apiKey' | 'profile' | 'checkInterval' | 'schemaSample' | 'ssnCount' | 'seed' | 'runPrefix' | 'asyncTimeout'>> & RunSettings;

export const settings: LoadSettings = {
  baseUrl: (text('baseUrl') ?? `http://${DEFAULT_SANDBOX_HOST}:${DEFAULT_SANDBOX_PORT}${API_PREFIX}`).replace(/\/+$/, ''),
  apiKey: text('apiKey') ?? SANDBOX_API_KEY,
  profile: text('profile') ?? 'smoke',
  vus: number('vus', false),
  rate: number('rate', false),
  duration: text('duration'),
  iterations: number('iterations', false),
  thresholdsFile: text('thresholdsFile'),
  checkInterval: number('checkInterval', true) ?? DEFAULT_CHECK_INTERVAL,
  schemaSample: number('schemaSample', true) ?? DEFAULT_SCHEMA_SAMPLE,
  ssnCount: number('ssnCount', false) ?? 5000,
  seed: number('seed', true) ?? 20260101,
  runPrefix: text('runPrefix') ?? 'load',
  scriptTag: text('scriptTag'),
  fixturePack: text('fixturePack'),
  clientCert: text('clientCert'),
  clientKey: text('clientKey'),
  insecure: text('insecure') === 'true',
  asyncTimeout: number('asyncTimeout', false) ?? DEFAULT_ASYNC_TIMEOUT,
};
