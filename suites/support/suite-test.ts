// The one `test` of every suite: the fixtures of each support module (outbound, inbound, provider A, access)
// merged into one pool. Playwright runs in one worker only tests whose worker fixtures are the same;
// with a pool per module, a worker was stopped and a new one started (loading the suites and
// registering its companies again) each time its next test came from another module (issue 27).
import { mergeTests } from '@playwright/test';
import { test as inboundTest } from './inbound.ts';
import { test as outboundTest } from './outbound.ts';
import { test as providerATest } from './provider-a.ts';
import { test as accessTest } from './access.ts';

export const test = mergeTests(outboundTest, inboundTest, providerATest, accessTest);
