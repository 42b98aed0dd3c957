/**
 * FinalizeAnswers' step 2: the round's rows still working end now: back to
 * `pending_data` when the round never left `preparing` (their answers were never sent), else
 * `error` saying why (a row sent again always: it has no earlier state to go back to). The rows given are the ones in play (the round's among them); each moved
 * row is replaced in place by what the move left.
 */

import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { resultEvents } from '../audit/audit-events.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, CaughtError, RowRecord } from '../core/records.js';
import { afterMove, type RowMove } from '../core/row-life.js';
import { errorResult } from '../core/row-results.js';
import { isOutputStatus } from '../core/row-statuses.js';

type RoundRowsPorts = Pick<PipelinePorts, 'batches' | 'reviews' | 'audit'>;

/** How the round's wait ended, as FinalizeAnswers' input says (`error`, `wait_error`). */
type RoundEnd = { error?: CaughtError | null | undefined; wait_error?: CaughtError | null | undefined };

/**
 * The English detail (the `answered_row_timed_out` message) of an answered row ended because the
 * round's wait timed out.
 */
export const ROUND_TIMED_OUT_DETAIL =
  'the answered row did not finish before the answers round timed out; its answers may still be processed ' +
  'by the service (see app_url)';

const isRowOfRound = (row: RowRecord, roundId: string): boolean => row.round?.round_id === roundId;

/** Why the round's unfinished rows end as `error`: its wait timed out or stopped, it failed, or neither. */
const unfinishedRowDetail = (input: RoundEnd): Message =>
  input.wait_error
    ? input.wait_error.Error.startsWith('States.') && input.wait_error.Error.includes('Timeout')
      ? message('answered_row_timed_out', {})
      : message('answered_row_wait_stopped', { error: input.wait_error.Error })
    : input.error
      ? message('answered_row_failed', {})
      : message('answered_row_unfinished', {});

/**
 * Step 2: ends the round's rows still working (back to `pending_data` when the round never sent
 * them, else `error`), replacing each moved row in `rows`; returns the messages it adds to the
 * round's problems. Does nothing for a run without a round.
 */
export const endRoundRows = async (
  ports: RoundRowsPorts,
  input: RoundEnd,
  target: { batchId: string; roundId: string | null; round: BatchRecord | null },
  rows: RowRecord[],
  now: Date,
): Promise<Message[]> => {
  const { batchId, roundId, round } = target;
  if (!round || roundId === null) return [];
  if (round.state === 'preparing') {
    const returned = await returnUnsentRows(ports, batchId, roundId, rows, now);
    // A row sent again has no earlier state to go back to: it ends as any unfinished row of a round.
    const ended = await endUnfinishedRoundRows(
      ports,
      batchId,
      roundId,
      rows,
      message('answered_row_unfinished', {}),
      now,
    );
    return [
      ...(returned > 0 ? [message('answered_rows_unsent', { count: returned })] : []),
      ...(ended > 0 ? [message('answered_rows_unfinished', { count: ended })] : []),
    ];
  }
  const ended = await endUnfinishedRoundRows(ports, batchId, roundId, rows, unfinishedRowDetail(input), now);
  return ended > 0 ? [message('answered_rows_unfinished', { count: ended })] : [];
};

/**
 * A round that never left `preparing` sent no message: its rows' answers never reached the
 * service. They go back to `pending_data` (their result still the pending one) and their items
 * to `pending`, so the same file sent again resumes them instead of finding them answered.
 */
const returnUnsentRows = async (
  ports: RoundRowsPorts,
  batchId: string,
  roundId: string,
  rows: RowRecord[],
  now: Date,
): Promise<number> => {
  const unsent = indexesWhere(
    rows,
    (row) => isRowOfRound(row, roundId) && row.status === 'queued' && row.round?.kind !== 'resend',
  );
  const returned = await mapLimited(unsent, IN_FLIGHT, async (index) => {
    const row = rows[index]!;
    const move: RowMove = { move: 'returned', round_id: roundId, at: now.toISOString() };
    if (!(await ports.batches.moveRow(batchId, row.row, move))) return 0;
    if (row.classification_id) await ports.reviews.update(row.classification_id, { state: 'pending' });
    rows[index] = afterMove(row, move);
    return 1;
  });
  return sum(returned);
};

/**
 * The round's rows still working get an `error` now, in `rows` too, keeping their classification
 * and link so the user can follow it. A row finishing at this very moment keeps its own result,
 * since the move applies only to a row still working.
 */
const endUnfinishedRoundRows = async (
  ports: Pick<RoundRowsPorts, 'batches' | 'audit'>,
  batchId: string,
  roundId: string,
  rows: RowRecord[],
  detail: Message,
  now: Date,
): Promise<number> => {
  const working = indexesWhere(rows, (row) => isRowOfRound(row, roundId) && !isOutputStatus(row.status));
  const ended = await mapLimited(working, IN_FLIGHT, async (index) => {
    const row = rows[index]!;
    const result = errorResult(detail, {
      ...(row.classification_id ? { classification_id: row.classification_id } : {}),
      ...(row.result?.app_url ? { app_url: row.result.app_url } : {}),
    });
    const move: RowMove = { move: 'finished', result, at: now.toISOString() };
    if (await ports.batches.moveRow(batchId, row.row, move)) {
      rows[index] = afterMove(row, move);
      const of = { batch_id: batchId, row: row.row, sku: row.product?.sku ?? null };
      await ports.audit.record(resultEvents(of, result, move.at));
      return 1;
    }
    rows[index] = (await ports.batches.getRow(batchId, row.row)) ?? row;
    return 0;
  });
  return sum(ended);
};

/** Moves written at once: a round's rows are never moved one after another. */
const IN_FLIGHT = 16;

const indexesWhere = (rows: readonly RowRecord[], test: (row: RowRecord) => boolean): number[] =>
  rows.flatMap((row, index) => (test(row) ? [index] : []));

const sum = (counts: readonly number[]): number => counts.reduce((total, count) => total + count, 0);
