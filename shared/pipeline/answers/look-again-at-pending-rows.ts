/**
 * FinalizeAnswers' look at the rows still waiting for answers (docs/answers-round.md):
 * the service may have abandoned one (30 days unanswered, unbilled), or someone answered it
 * elsewhere (the web app) and it has since resolved or failed. The service's final word becomes
 * the row's result, marked `to_check` under the batch's `check_below` as Store marks one.
 */
import { detailMessagesOf, detailOf } from '../../wording/details.js';
import { message } from '../../wording/index.js';
import { resultEvents } from '../audit/audit-events.js';
import { forEachLimited } from '../core/calls-in-parallel.js';
import type { PipelinePorts } from '../core/ports.js';
import type { RowRecord } from '../core/records.js';
import { afterMove, type RowMove } from '../core/row-life.js';
import { resultOfClassification } from '../core/row-results.js';
import { markVerdictToCheck } from '../row/verdict-to-check.js';
import { readClassifications } from './read-classifications.js';

/** Moves written at once. */
const IN_FLIGHT = 16;

/**
 * Asks the service about every `pending_data` row among `rows` and writes its final word on the
 * row: `abandoned` (30 days unanswered) and, when someone answered in the web app, `resolved` or
 * `failed`; anything else (still pending, running again, unknown to the service) leaves the row
 * as it is. Updates `rows` in place and returns how many were abandoned or ended elsewhere. The
 * `settled_elsewhere` move: pending_data is an output status, and the service's final word
 * replaces it. The rows are moved a few at a time, never one after another.
 */
export const lookAgainAtPendingRows = async (
  ports: Pick<PipelinePorts, 'service' | 'batches' | 'audit' | 'checks'>,
  batchId: string,
  rows: RowRecord[],
  now: Date,
  /** false: the row waited on a classification billed in another batch (it joined it): no cost here. */
  options: { billedHere?: (row: RowRecord) => boolean } = {},
): Promise<{ abandoned: number; settledElsewhere: number }> => {
  const pending = rows.flatMap((row, index) =>
    row.status === 'pending_data' && row.classification_id ? [index] : [],
  );
  const found = await readClassifications(
    ports.service,
    pending.map((index) => rows[index]!.classification_id!),
  );
  const counts = { abandoned: 0, settledElsewhere: 0 };
  await forEachLimited(pending, IN_FLIGHT, async (index) => {
    const row = rows[index]!;
    const c = found.get(row.classification_id!);
    if (!c) return;
    const appUrl = row.result?.app_url ?? row.app_url;
    const settled = resultOfClassification(c, {
      currentNcm: row.product?.current_ncm ?? null,
      verdictPdf: null,
      appUrl: appUrl ?? null,
    });
    if (settled === null) return;
    // The verdict PDF was not stored here: the note says where to find it.
    const billed = options.billedHere?.(row) ?? true;
    const result =
      settled.status === 'resolved'
        ? {
            ...settled,
            ...detailOf([
              message('resolved_elsewhere', {}),
              ...(billed ? [] : [message('billed_elsewhere', {})]),
              ...detailMessagesOf(settled),
            ]),
            ...(billed ? {} : { cost_usd: '0.00' }),
          }
        : settled;
    // Resolved elsewhere, it is checked as Store checks a verdict: under the batch's check_below.
    if (result.status === 'resolved') {
      const reasons = await markVerdictToCheck(ports, c, row, { verdictPdf: null, now });
      if (reasons.length > 0) result.check = 'to_check';
    }
    const move: RowMove = { move: 'settled_elsewhere', result, at: now.toISOString() };
    if (!(await ports.batches.moveRow(batchId, row.row, move))) return;
    rows[index] = afterMove(row, move);
    const of = { batch_id: batchId, row: row.row, sku: row.product?.sku ?? null };
    await ports.audit.record(resultEvents(of, result, move.at));
    if (settled.status === 'abandoned') counts.abandoned += 1;
    else counts.settledElsewhere += 1;
  });
  return counts;
};
