// One inline SVG line chart of values per run, for the history pages (dxs report history: tests
// per run; dxs load report history: p95 per endpoint per run). No script, nothing fetched.
import { escapeHtml } from './escape-html.ts';

export interface ChartSeries {
  key: string;
  colour: string;
  /** One value per run; undefined where the run has none (the line skips it). */
  values: ReadonlyArray<number | undefined>;
}

export interface ChartInput {
  series: readonly ChartSeries[];
  /** One label per run along the x axis, linked when it has an href. */
  labels: ReadonlyArray<{ text: string; href?: string }>;
  /** Runs marked with a dashed line and a note above it. */
  markers?: ReadonlyArray<{ index: number; label: string; title: string }>;
  ariaLabel: string;
  /** The tooltip of one point. */
  pointTitle: (series: ChartSeries, index: number, value: number) => string;
  /** Grid label of a value (default: rounded to a whole number). */
  formatValue?: (value: number) => string;
}

export function lineChart(input: ChartInput): string {
  const width = 1100;
  const height = 300;
  const left = 48;
  const right = 70;
  const top = 28;
  const bottom = 40;
  const count = input.labels.length;
  const format = input.formatValue ?? ((value: number) => String(Math.round(value)));
  const most = Math.max(1, ...input.series.flatMap((series) => series.values.filter((value): value is number => value !== undefined)));
  const x = (index: number): number => (count === 1 ? left + (width - left - right) / 2 : left + (index * (width - left - right)) / (count - 1));
  const y = (value: number): number => top + (height - top - bottom) * (1 - value / most);
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map((fraction) => (input.formatValue === undefined ? Math.round(most * fraction) : most * fraction))
    .filter((value, index, all) => all.indexOf(value) === index)
    .map((value) => `<line x1="${left}" x2="${width - right}" y1="${y(value)}" y2="${y(value)}" stroke="#e1e4e8"/><text x="${left - 6}" y="${y(value) + 4}" text-anchor="end">${format(value)}</text>`)
    .join('');
  const markers = (input.markers ?? [])
    .map((marker) => `<g class="regression"><line x1="${x(marker.index)}" x2="${x(marker.index)}" y1="${top}" y2="${height - bottom}" stroke="#cf222e" stroke-dasharray="4 3"/><text x="${x(marker.index)}" y="${top - 8}" text-anchor="middle" fill="#cf222e">${escapeHtml(marker.label)}</text><title>${escapeHtml(marker.title)}</title></g>`)
    .join('');
  const lines = input.series.map((series) => {
    const present = series.values.map((value, index) => ({ value, index })).filter((point): point is { value: number; index: number } => point.value !== undefined);
    const coordinates = present.map((point) => `${x(point.index).toFixed(1)},${y(point.value).toFixed(1)}`);
    const dots = present
      .map((point) => `<circle cx="${x(point.index).toFixed(1)}" cy="${y(point.value).toFixed(1)}" r="3.5" fill="${series.colour}"><title>${escapeHtml(input.pointTitle(series, point.index, point.value))}</title></circle>`)
      .join('');
    return `<g class="series ${escapeHtml(series.key.replace(/\s+/g, '-'))}"><polyline fill="none" stroke="${series.colour}" stroke-width="2" points="${coordinates.join(' ')}"/>${dots}</g>`;
  }).join('');
  const labels = input.labels
    .map((item, index) => {
      const label = `<text x="${x(index)}" y="${height - bottom + 16}" text-anchor="middle">${escapeHtml(item.text)}</text>`;
      return item.href !== undefined ? `<a href="${escapeHtml(item.href)}">${label}</a>` : label;
    })
    .join('');
  // Legend entries side by side, each as wide as its name needs (at least 100).
  let offset = left;
  let row = 0;
  const legendItems: string[] = [];
  for (const series of input.series) {
    const itemWidth = Math.max(100, series.key.length * 7 + 24);
    if (offset + itemWidth > width && offset > left) {
      offset = left;
      row++;
    }
    const baseline = height - 5 + row * 16;
    legendItems.push(`<rect x="${offset}" y="${baseline - 9}" width="10" height="10" fill="${series.colour}"/><text x="${offset + 14}" y="${baseline}">${escapeHtml(series.key)}</text>`);
    offset += itemWidth;
  }
  const totalHeight = height + row * 16;
  return `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 ${width} ${totalHeight}" width="100%" role="img" aria-label="${escapeHtml(input.ariaLabel)}">${grid}${markers}${lines}${labels}${legendItems.join('')}</svg>`;
}
