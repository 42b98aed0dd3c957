/**
 * The daily review sweep: a row nobody answers is abandoned by the service after 30 days
 * (unbilled), and its batch's results should say so without waiting for someone to drop an
 * answers file. Once a day:
 *
 *   pending review items ─▶ none: done
 *     ─▶ GET /classifications?status=abandoned&created_after=<oldest item's day − 1>  (paged)
 *     ─▶ the batches with an item among them ─▶ FinalizeAnswers on each (no round): the
 *        abandoned rows get their result, results.csv / summary.json move forward (the earlier
 *        ones kept as revisions), review.csv and the review items follow, the batch is announced
 *
 * The service's own listing says what is abandoned, not our clock: `abandons_at` on an item is
 * an estimate (the spec gives no "pending since"), and the service decides.
 */

import type { PipelinePorts } from '../core/ports.js';
import { joinedRowOf } from '../core/records.js';
import {
  type FinalizeAnswersPorts,
  type FinalizeAnswersResult,
  finalizeAnswers,
} from './finalize-answers.js';

/** The ports the review sweep uses: FinalizeAnswers', and the review items. */
export type SweepReviewsPorts = FinalizeAnswersPorts & Pick<PipelinePorts, 'reviews'>;

/** What a review sweep found and did: items waiting, those the service abandoned, and the batches revised. */
export type SweepReport = {
  /** Review items waiting for answers when the sweep began. */
  pending: number;
  /** Of those, the ones the service lists as abandoned. */
  abandoned: number;
  /** The batches whose results moved forward, with what FinalizeAnswers reported. */
  batches: FinalizeAnswersResult[];
};

const DAY_MS = 24 * 60 * 60 * 1000;
/** The listing's largest page: fewest calls. */
const PAGE_LIMIT = 100;

/** `YYYY-MM-DD` (UTC) of the day before the earliest time: the listing filters by calendar day. */
const dayBefore = (times: readonly string[]): string => {
  // A loop, not `Math.min(...times)`: spread over many items it overflows the call stack.
  const earliest = times
    .map((time) => Date.parse(time))
    .filter(Number.isFinite)
    .reduce((first, time) => Math.min(first, time), Number.POSITIVE_INFINITY);
  return new Date(earliest - DAY_MS).toISOString().slice(0, 10);
};

/**
 * The daily review sweep: finds the review items whose classification the service
 * has abandoned, and revises the results of each completed batch with such a row (its own, or one
 * that joined it); returns what it found and each batch's revision.
 */
export const sweepAbandonedReviews = async (ports: SweepReviewsPorts): Promise<SweepReport> => {
  const pending = await ports.reviews.listPending();
  if (pending.length === 0) return { pending: 0, abandoned: 0, batches: [] };

  // A classification is created before its row asks questions: the item's creation (the
  // Review step) is at most a run later, so a day's margin covers it.
  const waiting = new Map(pending.map((item) => [item.classification_id, item]));
  const abandonedBatches = new Set<string>();
  let abandoned = 0;
  const listing = ports.service.listClassifications({
    status: ['abandoned'],
    created_after: dayBefore(pending.map((item) => item.created_at)),
    limit: PAGE_LIMIT,
  });
  for await (const classification of listing) {
    const item = waiting.get(classification.id);
    if (!item) continue; // another client's, or an item already closed
    abandoned += 1;
    abandonedBatches.add(item.batch_id);
    // Rows of later batches that joined it instead of asking again are abandoned with it.
    for (const name of item.joined ?? []) {
      const joined = joinedRowOf(name);
      if (joined) abandonedBatches.add(joined.batch_id);
    }
  }

  const batches: FinalizeAnswersResult[] = [];
  for (const batchId of [...abandonedBatches].sort()) {
    const batch = await ports.batches.getBatch(batchId);
    // A batch still running finalizes on its own and reads the same statuses then.
    if (batch?.state !== 'completed') continue;
    batches.push(
      await reviseBatchResults(
        ports,
        batchId,
        'daily sweep: rows abandoned by the service after 30 days unanswered',
      ),
    );
  }
  return { pending: pending.length, abandoned, batches };
};

/**
 * FinalizeAnswers without a round on a completed batch whose rows moved outside any round (the
 * daily sweeps): its results move forward, the earlier ones kept as a revision, and it is announced
 * again. No workflow here to call it again: its legs follow one another in this invocation.
 */
export const reviseBatchResults = async (
  ports: FinalizeAnswersPorts,
  batchId: string,
  detail: string,
): Promise<FinalizeAnswersResult> => {
  const input = { prepare: { batch_id: batchId, round_id: null, next: 'finalize', detail } };
  let revised = await finalizeAnswers(ports, input);
  while ('next' in revised) revised = await finalizeAnswers(ports, { ...input, finalized: revised });
  return revised;
};
