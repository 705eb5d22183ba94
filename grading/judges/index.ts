// Every judge of the client catalog, run over one recorded traffic.
import type { Finding, JudgeInput } from '../graded-call.ts';
import { judgeAuth } from './auth.ts';
import { judgeBodies } from './bodies.ts';
import { judgeConventions } from './conventions.ts';
import { judgeFlows } from './flows.ts';
import { judgePace } from './pace.ts';
import { judgeReferences } from './references.ts';
import { judgeTokens } from './tokens.ts';

export const JUDGES = [judgeAuth, judgeTokens, judgeBodies, judgeReferences, judgePace, judgeConventions, judgeFlows];

export function judgeAll(input: JudgeInput): Finding[] {
  return JUDGES.flatMap((judge) => judge(input));
}
