// The timeline of a run as an inline SVG of index.html (issue 42): a row per worker, a bar per
// phase coloured by its kind (a test by its verdict), a <title> on each bar for its name and
// duration, a legend, and the critical path under it. No script, nothing fetched: the page is
// kept as evidence and opened offline, where a trace viewer would need a service.
import { escapeHtml } from './escape-html.ts';
import { criticalPath, criticalPathLine, TIMELINE_KIND_LABEL, workerTimeLine, workerTimeSummary, type RunTimeline, type TimelineEvent, type TimelineKind } from './timeline.ts';

const KIND_COLOUR: Record<Exclude<TimelineKind, 'test'>, string> = { startup: '#8c959f', fixture: '#1b7c83', cleanup: '#57606a', idle: '#eef0f3' };
const VERDICT_COLOUR: Record<string, string> = { passed: '#1a7f37', failed: '#cf222e', warning: '#bf8700', info: '#0969da', skipped: '#d0d7de', blocked: '#8250df' };

const colourOf = (event: TimelineEvent): string => (event.kind === 'test' ? (VERDICT_COLOUR[event.verdict ?? 'passed'] ?? VERDICT_COLOUR.passed) : KIND_COLOUR[event.kind]);
const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

/** A tick every 1, 2, 5, 10, ... seconds: about ten along the axis. */
function tickStep(wallMs: number): number {
  const rough = wallMs / 10;
  for (const step of [500, 1000, 2000, 5000, 10_000, 20_000, 30_000, 60_000, 120_000, 300_000, 600_000]) if (step >= rough) return step;
  return 1_200_000;
}

export const TIMELINE_CSS = `#timeline+figure{margin:6px 0;background:#fff;border:1px solid #e1e4e8;padding:6px}
#timeline+figure svg text{font:11px system-ui,sans-serif;fill:#1d232a}#timeline+figure .critical text{font-weight:600}`;

/** The picture and its critical path; empty when the run recorded no timeline (an older results.json, a run that never reached Playwright). */
export function renderTimeline(timeline: RunTimeline | undefined): string {
  if (timeline === undefined || timeline.rows.every((row) => row.events.length === 0)) return '';
  const path = criticalPath(timeline);
  const width = 1150;
  const left = 92;
  const right = 12;
  const top = 20;
  const rowHeight = 16;
  const gap = 3;
  const wall = Math.max(1, timeline.wallMs);
  const x = (ms: number): number => left + ((width - left - right) * Math.min(Math.max(ms, 0), wall)) / wall;
  const rowsTop = top;
  const rows = timeline.rows.map((row, index) => {
    const y = rowsTop + index * (rowHeight + gap);
    const critical = path !== undefined && (row.worker === path.worker || row.worker === 'run');
    const bars = row.events
      .map((event) => {
        const barX = x(event.startMs);
        const barWidth = Math.max(0.8, x(event.endMs) - barX);
        const label = `${event.kind === 'test' ? `${event.verdict ?? 'test'}: ` : event.kind === 'fixture' ? 'fixture: ' : ''}${event.name}: ${seconds(event.endMs - event.startMs)} (from ${seconds(event.startMs)} to ${seconds(event.endMs)})`;
        // A hairline of white between bars: two tests of one verdict side by side still read as two.
        const outline = event.kind === 'idle' ? ' stroke="#c9ced6" stroke-dasharray="2 2"' : ' stroke="#fff" stroke-width="0.5"';
        return `<rect class="bar ${event.kind}" x="${barX.toFixed(1)}" y="${y}" width="${barWidth.toFixed(1)}" height="${rowHeight}" fill="${colourOf(event)}"${outline}><title>${escapeHtml(label)}</title></rect>`;
      })
      .join('');
    const processes = row.processes !== undefined && row.processes > 1 ? ` (${row.processes} processes)` : '';
    return `<g class="timeline-row${critical ? ' critical' : ''}" data-worker="${escapeHtml(row.worker)}"><text x="${left - 6}" y="${y + rowHeight - 4}" text-anchor="end">${escapeHtml(row.label)}${critical && row.worker !== 'run' ? ' ★' : ''}</text>${bars}<title>${escapeHtml(`${row.label}${processes}`)}</title></g>`;
  });
  const axisY = rowsTop + timeline.rows.length * (rowHeight + gap) + 2;
  const step = tickStep(wall);
  const ticks: string[] = [];
  for (let ms = 0; ms <= wall; ms += step) ticks.push(`<line x1="${x(ms).toFixed(1)}" x2="${x(ms).toFixed(1)}" y1="${rowsTop - 4}" y2="${axisY}" stroke="#e1e4e8"/><text x="${x(ms).toFixed(1)}" y="${axisY + 12}" text-anchor="middle">${ms / 1000} s</text>`);
  const legendY = axisY + 30;
  const legendEntries: Array<[string, string, string]> = [
    ...(['passed', 'warning', 'info', 'failed', 'blocked', 'skipped'] as const).map((verdict): [string, string, string] => [`test: ${verdict}`, VERDICT_COLOUR[verdict], `legend-test-${verdict}`]),
    ...(['fixture', 'startup', 'idle', 'cleanup'] as const).map((kind): [string, string, string] => [TIMELINE_KIND_LABEL[kind], KIND_COLOUR[kind], `legend-${kind}`]),
  ];
  const totals = kindTotals(timeline);
  const legend = legendEntries
    .map(([name, colour, key], index) => {
      const itemX = left + (index % 5) * 200;
      const itemY = legendY + Math.floor(index / 5) * 16;
      const total = totals.get(key.replace(/^legend-/, ''));
      return `<g class="legend ${key}"><rect x="${itemX}" y="${itemY - 9}" width="10" height="10" fill="${colour}" stroke="#c9ced6"/><text x="${itemX + 14}" y="${itemY}">${escapeHtml(name)}${total === undefined ? '' : ` (${seconds(total)} in all)`}</text></g>`;
    })
    .join('');
  const height = legendY + Math.ceil(legendEntries.length / 5) * 16 + 4;
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${height}" width="100%" role="img" aria-label="Timeline of the run: a row per worker, a bar per phase">${ticks.join('')}${rows.join('')}${legend}</svg>`;
  const caption =
    path === undefined
      ? '<figcaption class="muted">No test ran: there is no critical path.</figcaption>'
      : `<figcaption id="critical-path"><strong>Critical path</strong> (★): ${escapeHtml(criticalPathLine(path).replace(/^critical path: /, ''))}.</figcaption><p id="worker-time">${escapeHtml(workerTimeLine(workerTimeSummary(timeline)).replace(/^a/, 'A'))}.</p>`;
  return `<h2 id="timeline">Timeline of the run</h2>\n<figure>${svg}${caption}${scheduledFirstLine(timeline)}<p class="muted">A row per worker (Playwright's worker slots) and one for dxs itself. Hover a bar for its name and duration. Fixture bars are the setup a test waited for (its companies registered, their background work); idle is a worker with no test to take.</p></figure>`;
}

/** The tests queued first (report/schedule.ts): the first few named, the count of the others. */
function scheduledFirstLine(timeline: RunTimeline): string {
  const first = timeline.scheduledFirst ?? [];
  if (first.length === 0) return '';
  const shown = first.slice(0, 5).map((name) => `<li>${escapeHtml(name)}</li>`).join('');
  const more = first.length > 5 ? `<p class="muted">and ${first.length - 5} more (results.json, timeline.scheduledFirst)</p>` : '';
  return `<div id="scheduled-first"><p>Queued first, longest first (by the last run's durations and the tag @background-chain): ${first.length} test${first.length === 1 ? '' : 's'}</p><ol>${shown}</ol>${more}</div>`;
}

/** Milliseconds by legend key over every row: `test-passed`, `fixture`, `idle`, ... */
function kindTotals(timeline: RunTimeline): Map<string, number> {
  const totals = new Map<string, number>();
  for (const row of timeline.rows) {
    for (const event of row.events) {
      const key = event.kind === 'test' ? `test-${event.verdict ?? 'passed'}` : event.kind;
      totals.set(key, (totals.get(key) ?? 0) + event.endMs - event.startMs);
    }
  }
  return totals;
}
