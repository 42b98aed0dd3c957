/**
 * Revisions of a batch's results: before FinalizeAnswers replaces results.csv, results.xlsx and
 * summary.json, the earlier ones are kept beside them as results.rev<N>.csv, results.rev<N>.xlsx
 * and summary.rev<N>.json, when the new results.csv differs (the workbook says what the CSV says).
 *
 * Run twice, it makes no second revision: a revision is made only when the new results.csv
 * differs from the one in the outbox, and a copy left by a run that stopped before writing the
 * new file is recognised (it equals results.csv) and reused. The revision needs no field on the
 * round record: the outbox's own contents say whether it was made.
 *
 *   results.csv (v1) ─▶ round 1 changes rows ─▶ results.rev1.csv = v1, results.csv = v2 (revision 1)
 *   results.csv (v2) ─▶ round 2 changes rows ─▶ results.rev2.csv = v2, results.csv = v3 (revision 2)
 *   results.csv (v3) ─▶ round 3 changes none ─▶ no copy, results.csv = v3 (revision 2)
 */

import { outboxKey } from '../core/bucket-layout.js';
import type { ObjectStore } from '../core/ports.js';
import { sha256Of } from '../finalize/outbox-rows.js';
import { OUTPUT_FILES } from '../outbox/results-files.js';

/** `results.rev<N>.csv`, `results.rev<N>.xlsx` and `summary.rev<N>.json` beside the current files. */
const revisionFile = (name: string, revision: number): string =>
  name.replace(/(\.[a-z]+)$/, `.rev${revision}$1`);
const REVISION_OF_RESULTS = /\/results\.rev([1-9][0-9]*)\.csv$/;

/** The sha256 of a stored object, read by ranges (a results.csv of 400,000 rows is never held); null: absent. */
const storedSha256 = async (objects: Pick<ObjectStore, 'source'>, key: string): Promise<string | null> => {
  const source = await objects.source(key);
  return source === null ? null : sha256Of(source.read(0, source.size));
};

/**
 * Keeps the outbox's results.csv, results.xlsx and summary.json as revision N before they are
 * replaced, when the new results.csv (known by its sha256: it is streamed, never held) differs;
 * returns the revision the new files are (the last one again when nothing changed). A copy left by
 * a run that stopped before writing the new files is recognised and reused, never made twice.
 */
export const keepRevision = async (
  objects: ObjectStore,
  batchId: string,
  nextResultsSha256: string,
): Promise<number> => {
  const resultsKey = outboxKey(batchId, OUTPUT_FILES.results);
  const kept = (await objects.list(outboxKey(batchId, 'results.rev')))
    .map((key) => REVISION_OF_RESULTS.exec(key)?.[1])
    .filter((n): n is string => n !== undefined)
    .map(Number);
  const highest = Math.max(0, ...kept);
  const current = await storedSha256(objects, resultsKey);
  if (current === null || current === nextResultsSha256) return highest;

  // A run that copied and stopped before writing the new results.csv: its copy is this revision.
  const last =
    highest > 0
      ? await storedSha256(objects, outboxKey(batchId, revisionFile(OUTPUT_FILES.results, highest)))
      : null;
  const copiedBefore = last === current;
  const revision = copiedBefore ? highest : highest + 1;
  if (!copiedBefore)
    await objects.copy(resultsKey, outboxKey(batchId, revisionFile(OUTPUT_FILES.results, revision)));
  // The workbook and the summary beside it, each unless a run that stopped already copied it.
  for (const file of [OUTPUT_FILES.results_workbook, OUTPUT_FILES.summary]) {
    const revisionKey = outboxKey(batchId, revisionFile(file, revision));
    if ((await objects.head(outboxKey(batchId, file))) && !(await objects.head(revisionKey))) {
      await objects.copy(outboxKey(batchId, file), revisionKey);
    }
  }
  return revision;
};
