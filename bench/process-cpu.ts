// CPU time of a process from /proc, for the benches that compare what a server or k6 costs per
// request. Linux only; callers print "n/a" without /proc.
import { readFileSync } from 'node:fs';

// Linux counts process CPU time in ticks of 1/100 s (USER_HZ).
const MICROSECONDS_PER_TICK = 10_000;

/** CPU time (user and system) of a process so far, in microseconds; undefined without /proc or once it has exited. */
export function processCpu(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    // Fields after "pid (comm) ": state is the first, utime the 12th, stime the 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) * MICROSECONDS_PER_TICK;
  } catch {
    return undefined;
  }
}

/**
 * Seconds of this machine's cores the host gave to others so far ("steal": /proc/stat's eighth
 * figure, ticks of 1/100 s, all cores). On a shared virtual machine a run's wall time grows with
 * it, whatever the code does: compare figures taken at like steal. Undefined without /proc.
 */
export function stolenSeconds(): number | undefined {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    return Number(fields[8]) / 100;
  } catch {
    return undefined;
  }
}

/** "the host took 12.3 s of the cores (steal)" between two readings, or '' without /proc. */
export function stolenLine(before: number | undefined, after: number | undefined): string {
  return before === undefined || after === undefined ? '' : `the host took ${(after - before).toFixed(1)} s of the cores' time meanwhile (steal)`;
}
