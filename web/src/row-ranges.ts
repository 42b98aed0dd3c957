/**
 * Looking at given rows of a batch again: GET /batches/{id}/rows takes `after` (the row before
 * the first wanted) and `limit`, so rows close together come in one call. No DOM here.
 */

export type RowRange = { after: number; limit: number };

/** The fewest calls covering `rows`, each at most `max` rows long. */
export const rowRanges = (rows: readonly number[], max: number): RowRange[] => {
  const sorted = [...new Set(rows)].sort((a, b) => a - b);
  const ranges: RowRange[] = [];
  let start: number | undefined;
  let end = 0;
  for (const row of sorted) {
    if (start !== undefined && row - start < max) {
      end = row;
      continue;
    }
    if (start !== undefined) ranges.push({ after: start - 1, limit: end - start + 1 });
    start = row;
    end = row;
  }
  if (start !== undefined) ranges.push({ after: start - 1, limit: end - start + 1 });
  return ranges;
};
