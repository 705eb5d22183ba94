#!/usr/bin/env node
// The CLI is TypeScript run through tsx, so no build step stands between a clone and a run.
import { register } from 'tsx/esm/api';

register();
await import('../cli/index.ts');
