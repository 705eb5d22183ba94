// A mixed business day: each iteration runs one flow, picked by weight (mostly tokens and
// lookups, some documents, a few registrations and provider A lookups). Every flow's setup runs
// once, so the mix touches every endpoint of the other scripts.
import exec from 'k6/execution';
import { buildOptions } from '../lib/options.ts';
import { ENDPOINTS } from '../lib/api.ts';
import { mulberry32, deriveSeed } from '../../fixtures/random.ts';
import { settings } from '../lib/settings.ts';
import { clientTokens, setupClientTokens, type ClientTokensData } from './client-tokens.ts';
import { registerAndPoll } from './register-and-poll.ts';
import { lookup, setupLookup, type LookupData } from './lookup.ts';
import { sendAndPoll, setupSend, type SendData } from './send-and-poll.ts';
import { drainInbox, inbox, setupInbox, type InboxData } from './inbox.ts';
import { provideraLookup, setupProviderA, type ProviderAData } from './providera-lookup.ts';

export const options = buildOptions(Object.values(ENDPOINTS));

interface BusinessDayData {
  tokens: ClientTokensData;
  lookup: LookupData;
  send: SendData;
  inbox: InboxData;
  providerA: ProviderAData;
}

/** Share of iterations per flow, in percent. */
export const WEIGHTS: Array<[number, (data: BusinessDayData) => void]> = [
  [30, (data) => clientTokens(data.tokens)],
  [30, (data) => lookup(data.lookup)],
  [15, (data) => sendAndPoll(data.send)],
  [15, (data) => inbox(data.inbox)],
  [5, () => registerAndPoll()],
  [5, (data) => provideraLookup(data.providerA)],
];

export function setup(): BusinessDayData {
  return { tokens: setupClientTokens(), lookup: setupLookup(), send: setupSend(), inbox: setupInbox(), providerA: setupProviderA() };
}

/** The inbox flow's end (the third company's last look); dxs's final read finds what was sent in the last seconds. */
export function teardown(data: BusinessDayData): void {
  drainInbox(data.inbox);
}

// One seeded stream per VU: the same seed gives the same mix on every run.
let random: (() => number) | undefined;

export default function businessDay(data: BusinessDayData): void {
  random ??= mulberry32(deriveSeed(settings.seed, `business-day-${exec.vu.idInTest}`));
  const total = WEIGHTS.reduce((sum, [weight]) => sum + weight, 0);
  let roll = random() * total;
  for (const [weight, flow] of WEIGHTS) {
    roll -= weight;
    if (roll < 0) return flow(data);
  }
}
