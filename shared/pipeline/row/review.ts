import { type Classification, LIMITS } from '../../tcs/schemas.js';
import { questionsEvent } from '../audit/audit-events.js';
import type { PipelinePorts } from '../core/ports.js';
import { type ReviewItem, RowState, type RowStep } from '../core/records.js';
import { pendingResult } from '../core/row-results.js';
import { classificationInStatus } from './route-classification.js';
import { finalStep, loadRow } from './row-state.js';

/**
 * When an unanswered classification will be abandoned. The spec has no "pending since"
 * field; with one round of questions, pending_data follows the first run, which began at
 * `created_at`. `created_at` + 30 days is therefore never later than the real deadline
 * (at most one run, about a minute, early): a reviewer is never told there is more time
 * than there is. `now` only when `created_at` cannot be read.
 */
const abandonsAt = (c: Pick<Classification, 'created_at'>, now: Date): string => {
  const created = Date.parse(c.created_at);
  const from = Number.isFinite(created) ? Math.min(created, now.getTime()) : now.getTime();
  return new Date(from + LIMITS.pendingDataLifetimeDays * 24 * 60 * 60 * 1000).toISOString();
};

/**
 * Review, a step of the Row workflow for a classification that asks questions: writes them to the
 * review table once (a retry never resets an item someone has started answering), records the
 * audit event, and gives the step that ends the row `pending_data`. The product's pending
 * classification goes to the product cache too, beside its verdict, so a later batch of the same
 * product joins it instead of asking the same questions again.
 */
export const reviewRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'batches' | 'reviews' | 'cache' | 'audit'>,
  input: unknown,
): Promise<RowStep> => {
  const state = RowState.parse(input);
  const found = await classificationInStatus(ports, state, 'pending_data');
  if ('rerouted' in found) return found.rerouted;
  const { classification: c, run } = found;
  const now = ports.clock.now();
  const row = await loadRow(ports.batches, state.batch_id, state.row);
  const result = pendingResult(c, { appUrl: row.app_url ?? null });
  // Written once: a retried Review must not reset an item someone has started answering.
  const existing = await ports.reviews.get(c.id);
  const abandons = existing?.abandons_at ?? abandonsAt(c, now);
  if (!existing) {
    const provisional = c.candidates_are_provisional
      ? ([...c.candidates].sort((a, b) => a.rank - b.rank)[0] ?? null)
      : null;
    const item: ReviewItem = {
      classification_id: c.id,
      batch_id: state.batch_id,
      row: state.row,
      sku: row.product?.sku ?? null,
      external_reference: c.external_reference ?? row.product?.external_reference ?? null,
      description: row.product?.description ?? c.description,
      questions: c.questions,
      provisional_ncm: provisional?.ncm ?? null,
      provisional_confidence: provisional?.confidence ?? null,
      abandons_at: abandons,
      state: 'pending',
      created_at: now.toISOString(),
    };
    await ports.reviews.put(item);
  }
  // At the item's creation: a retried Review records the same event, once.
  await ports.audit.record([
    questionsEvent(
      { batch_id: state.batch_id, row: state.row, sku: row.product?.sku ?? null },
      {
        at: existing?.created_at ?? now.toISOString(),
        classification_id: c.id,
        questions: c.questions.length,
      },
    ),
  ]);
  // After the item: a pointer to an item not yet written would be joined by nothing. A retry
  // writes it again (the same pointer). Only the row that asked: a round's row asks nothing new.
  if (row.product_key && row.fingerprint && (!existing || existing.state === 'pending')) {
    await ports.cache.putPending({
      product_key: row.product_key,
      fingerprint: row.fingerprint,
      classification_id: c.id,
      batch_id: state.batch_id,
      row: state.row,
      abandons_at: abandons,
      result,
    });
  }
  return finalStep(result, run);
};
