// The cells of the access matrix (issue 40) as a run records them: each cell the suite tried leaves
// one annotation on its operation's test, so results.json carries the matrix and index.html,
// junit.xml and the certificate render it without rerunning anything.
import type { TestRecord } from './results.ts';

export const ACCESS_CELL_ANNOTATION = 'dxs-access-cell';

export type AccessCellOutcome = 'passed' | 'failed' | 'observed' | 'not tried';

export interface AccessCell {
  endpoint: string;
  form: string;
  outcome: AccessCellOutcome;
  requirement: string;
  /** The status the target answered, when the cell was called. */
  status?: number;
  /** What was expected, or why the cell was not tried. */
  note?: string;
}

export function accessCellAnnotation(cell: AccessCell): { type: string; description: string } {
  return { type: ACCESS_CELL_ANNOTATION, description: JSON.stringify(cell) };
}

/** Every cell a run recorded, with the test that tried it. */
export function accessCellsOf(tests: readonly Pick<TestRecord, 'annotations' | 'titlePath' | 'file'>[]): Array<AccessCell & { test: string }> {
  const cells: Array<AccessCell & { test: string }> = [];
  for (const test of tests) {
    for (const annotation of test.annotations) {
      if (annotation.type !== ACCESS_CELL_ANNOTATION || annotation.description === undefined) continue;
      try {
        cells.push({ ...(JSON.parse(annotation.description) as AccessCell), test: `${test.file} › ${test.titlePath.join(' › ')}` });
      } catch {
        // A description that is not a cell (hand-edited results) is left out.
      }
    }
  }
  return cells;
}
