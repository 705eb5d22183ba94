// The known name a mistyped one was most likely meant to be, for usage errors that name it instead of
// listing every known name (a list of a hundred names on one line hides the one that was meant).

/** Edits (insert, delete, substitute, swap two neighbours) between two names. */
function distance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      rows[i][j] = Math.min(rows[i - 1][j] + 1, rows[i][j - 1] + 1, rows[i - 1][j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) rows[i][j] = Math.min(rows[i][j], rows[i - 2][j - 2] + 1);
    }
  }
  return rows[a.length][b.length];
}

/** A few edits away, or the start of exactly one known name; undefined when no name is near. */
export function closestName(name: string, known: readonly string[]): string | undefined {
  const given = name.toLowerCase();
  const starting = known.filter((candidate) => candidate.toLowerCase().startsWith(given));
  if (given.length >= 3 && starting.length === 1) return starting[0];
  let best: { name: string; edits: number } | undefined;
  for (const candidate of known) {
    const edits = distance(given, candidate.toLowerCase());
    if (edits <= Math.max(1, Math.floor(candidate.length / 4)) && (best === undefined || edits < best.edits)) best = { name: candidate, edits };
  }
  return best?.name;
}
