/**
 * Rows of the same product share one classification (docs/architecture.md, property 11).
 *
 *   row 3  (first of its fingerprint)  ─▶ classified, billed once
 *   row 9  follows 3                   ─▶ never dispatched; takes row 3's outcome at USD 0.00
 *
 * A follower's result is always derived from its leader's, never stored: the results files, the
 * partial results, the console and the progress line derive it as they read (`resultNow`), so a
 * leader resumed by answers, abandoned or answered elsewhere carries its followers along, and one
 * answer resumes every row of the product. Pure.
 */
import type { RowRecord } from './records.js';

/**
 * Groups the followers among `rows` by the row they follow, each list in row order: review.csv
 * lists a product once, with the rows it covers.
 */
export const followersByLeader = (
  rows: readonly Pick<RowRecord, 'row' | 'follows'>[],
): Map<number, number[]> => {
  const byLeader = new Map<number, number[]>();
  for (const row of rows) {
    if (row.follows === undefined) continue;
    byLeader.set(row.follows, [...(byLeader.get(row.follows) ?? []), row.row]);
  }
  for (const followers of byLeader.values()) followers.sort((a, b) => a - b);
  return byLeader;
};
