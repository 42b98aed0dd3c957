/**
 * FinalizeAnswers' step 3b: a classification one batch's rows asked can be joined by rows of other
 * batches (a re-run of the same file while it waited: docs/answers-round.md, "A re-run does not
 * ask again"). When this batch's rows take its final outcome, the rows that joined take it too, at
 * no cost, and each such batch's results move forward as well.
 */
import { detailMessagesOf, detailOf } from '../../wording/details.js';
import { message } from '../../wording/index.js';
import { resultEvents } from '../audit/audit-events.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import type { PipelinePorts } from '../core/ports.js';
import { joinedRowOf, type ReviewItem, type RowRecord } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { checkItemOfResult, checkReasonsOfResult, withCheckMark } from '../core/verdict-check.js';
import { ncmDescriber } from '../outbox/divergence-sheet.js';

/** Outcomes the service gives a classification: the ones every row waiting on it takes. */
const SETTLED_BY_SERVICE = new Set(['resolved', 'failed', 'abandoned']);

/** Moves of other batches' rows a run writes at once. */
const JOINED_IN_FLIGHT = 8;

/**
 * The outcome a row that waited on the same classification takes: the asking row's, at no cost
 * (one classification, billed once, where its answers were sent), its PDF left where it was stored.
 */
const joinedOutcome = (result: RowResult, settledBy: { batch_id: string; row: number }): RowResult => {
  const pdf = result.verdict_pdf ? `outbox/${settledBy.batch_id}/${result.verdict_pdf}` : '';
  return {
    ...result,
    ...detailOf([
      message('settled_with', {
        classification_id: result.classification_id ?? '',
        batch: settledBy.batch_id,
        row: settledBy.row,
        pdf: pdf || undefined,
      }),
      ...detailMessagesOf(result),
    ]),
    verdict_pdf: '',
    cost_usd: '0.00',
  };
};

/** Every row waiting on the item's classification (the row that asked, and the rows that joined it). */
const rowsWaitingOn = (item: ReviewItem): { batch_id: string; row: number }[] => [
  item.owner ?? { batch_id: item.batch_id, row: item.row },
  ...(item.joined ?? []).flatMap((name) => {
    const row = joinedRowOf(name);
    return row ? [row] : [];
  }),
];

/**
 * Step 3b. For each classification still open on the review table whose final outcome a row of
 * this batch now holds (resolved, failed or abandoned at the service), the rows of other batches
 * waiting on it take that outcome (the `settled_elsewhere` move, which applies only to a row still
 * `pending_data`), a few at a time. Each such row is marked for a person by its own batch's
 * `check_below`. Returns the other batches' ids, sorted, so FinalizeAnswers revises their results
 * after this batch's, also when a crashed earlier run had already moved their rows.
 */
export const settleJoinedRows = async (
  ports: Pick<PipelinePorts, 'batches' | 'audit' | 'checks' | 'objects'>,
  batchId: string,
  rows: readonly RowRecord[],
  items: readonly ReviewItem[],
  now: Date,
): Promise<string[]> => {
  const rowByNumber = new Map(rows.map((row) => [row.row, row]));
  const moves: { batch_id: string; row: number; result: RowResult }[] = [];
  for (const item of items) {
    if (item.state === 'closed') continue;
    const row = rowByNumber.get(item.row);
    if (!row?.result || row.classification_id !== item.classification_id) continue;
    if (!SETTLED_BY_SERVICE.has(row.status)) continue;
    const result = joinedOutcome(row.result, { batch_id: batchId, row: row.row });
    for (const waiting of rowsWaitingOn(item)) {
      if (waiting.batch_id === batchId) continue;
      moves.push({ ...waiting, result });
    }
  }
  const at = now.toISOString();
  const marked = markedInItsBatch(ports, now);
  await mapLimited(moves, JOINED_IN_FLIGHT, async (move) => {
    try {
      const result = await marked(move);
      const moved = await ports.batches.moveRow(move.batch_id, move.row, {
        move: 'settled_elsewhere',
        result,
        at,
      });
      // In the joined batch's audit.csv, which its revision (just after) adds to.
      if (moved) await ports.audit.record(resultEvents(move, result, at));
    } catch {
      // A joined batch whose Prepare never wrote the row (it failed after joining): nothing waits there.
    }
  });
  return [...new Set(moves.map((move) => move.batch_id))].sort();
};

/**
 * The outcome a joined row takes, marked by its own batch's `check_below` (not the asking
 * batch's mark): when its verdict waits for a person there, its check item is written in that
 * batch (if absent), described from the NCM table in force, as Prepare writes a reused verdict's.
 */
const markedInItsBatch = (ports: Pick<PipelinePorts, 'batches' | 'checks' | 'objects'>, now: Date) => {
  const thresholds = new Map<string, Promise<number | undefined>>();
  const describe = ncmDescriber(ports.objects);
  return async (move: { batch_id: string; row: number; result: RowResult }): Promise<RowResult> => {
    if (!thresholds.has(move.batch_id))
      thresholds.set(
        move.batch_id,
        ports.batches.getBatch(move.batch_id).then((batch) => batch?.options?.check_below),
      );
    const checkBelow = await thresholds.get(move.batch_id);
    const reasons = move.result.status === 'resolved' ? checkReasonsOfResult(move.result, checkBelow) : [];
    const result = withCheckMark(move.result, reasons);
    const row = reasons.length > 0 ? await ports.batches.getRow(move.batch_id, move.row) : null;
    if (!row) return result;
    const followers = await ports.batches.followerCount(move.batch_id, move.row);
    const ctx = { reasons, checkBelow, followers, now };
    await ports.checks.create(checkItemOfResult(result, row, await describe(), ctx));
    return result;
  };
};

/**
 * FinalizeAnswers' input for a batch whose rows joined a classification that `batchId`'s run just
 * ended: no round, its rows in play looked at again, its files revised (no chain back to `batchId`).
 */
export const joinedRevisionInput = (batchId: string, other: string) => ({
  prepare: {
    batch_id: other,
    round_id: null,
    next: 'finalize' as const,
    detail: `rows waiting on classifications settled by batch ${batchId}`,
  },
});
