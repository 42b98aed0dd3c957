/**
 * The batch a file just sent starts. Its id is derived from the object S3 stored (its version),
 * which the page never sees, so the page looks for it as the batch list shows it: the batch of
 * that folder and file started at or after the server's time before the file was sent (an
 * upload's `planned_at`, a plan run's `requested_at`). Prepare writes the batch's record as it
 * starts reading, so it shows within seconds of the file's arrival; the batch page then follows
 * it while it is prepared.
 */
import type { BatchListItem } from '../../shared/console/web-contract.js';

export type ExpectedBatch = { batch_name: string; file_name: string; since: string };

/** The newest batch of the folder and file started since, or null. */
export const startedBatchOf = (
  batches: readonly BatchListItem[],
  expected: ExpectedBatch,
): BatchListItem | null =>
  batches
    .filter(
      (batch) =>
        batch.name === expected.batch_name &&
        batch.file_name === expected.file_name &&
        Date.parse(batch.started_at) >= Date.parse(expected.since),
    )
    .sort((a, b) => b.started_at.localeCompare(a.started_at))[0] ?? null;

/** How long the page looks for the batch before it leaves the person on the batch list. */
const START_WAIT_MS = 60_000;
const LOOK_EVERY_MS = 1_000;

/**
 * The id of the batch started as `expected` says, looking every second; null once `waitMs` pass
 * without it (the page then shows the batch list, which keeps waiting for it by name).
 */
export const waitForStartedBatch = async (
  api: { batches(): Promise<{ batches: readonly BatchListItem[] }> },
  expected: ExpectedBatch,
  waitMs = START_WAIT_MS,
): Promise<string | null> => {
  const until = Date.now() + waitMs;
  for (;;) {
    try {
      const found = startedBatchOf((await api.batches()).batches, expected);
      if (found) return found.batch_id;
    } catch {
      // A refresh that failed: the next look tries again.
    }
    if (Date.now() >= until) return null;
    await new Promise((resolve) => setTimeout(resolve, LOOK_EVERY_MS));
  }
};
