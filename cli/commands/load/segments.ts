// `--segment I/N` (I from 1 to N) names the I-th of N equal parts of a run; k6 calls that an
// execution segment, within a sequence that all runners must share.
export interface Segment {
  index: number;
  count: number;
}

export function parseSegment(text: string): Segment {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  if (match === null) throw new Error(`--segment takes I/N, for example 1/2 (the first of two runners); got ${text}`);
  const index = Number(match[1]);
  const count = Number(match[2]);
  if (count < 1 || count > 1000 || index < 1 || index > count) throw new Error(`--segment ${text}: I must be between 1 and N (N at most 1000)`);
  return { index, count };
}

function fraction(numerator: number, denominator: number): string {
  if (numerator === 0) return '0';
  if (numerator === denominator) return '1';
  return `${numerator}/${denominator}`;
}

/** The k6 flags of a segment: --execution-segment (I-1)/N:I/N and the sequence 0,1/N,...,1. */
export function segmentArguments(segment: Segment): string[] {
  const sequence: string[] = [];
  for (let step = 0; step <= segment.count; step++) sequence.push(fraction(step, segment.count));
  return [
    '--execution-segment',
    `${fraction(segment.index - 1, segment.count)}:${fraction(segment.index, segment.count)}`,
    '--execution-segment-sequence',
    sequence.join(','),
  ];
}
