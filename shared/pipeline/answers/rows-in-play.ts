/**
 * The rows FinalizeAnswers' steps 2 to 4 work on (the rows in play): the round's, those waiting
 * for answers, those the review items name, found in one pass over the batch a page at a time;
 * step 3 looks again at the rows still waiting, and step 4 closes the items of rows now final.
 */
import { isFinalStatus } from '../../tcs/schemas.js';
import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import type { BatchStore, PipelinePorts } from '../core/ports.js';
import type { BatchRecord, ReviewItem, RowRecord } from '../core/records.js';
import { ROWS_PER_PAGE } from '../finalize/standing-rows.js';
import { lookAgainAtPendingRows } from './look-again-at-pending-rows.js';

/**
 * The rows this run may move, found in one pass a page at a time: the round's, those waiting for
 * answers (the service may have ended them since), and those the batch's review items name; and
 * the widest row's width. They grow with the questions asked, not with the batch.
 */
export const rowsInPlay = async (
  batches: Pick<BatchStore, 'rowsPage'>,
  batch: Pick<BatchRecord, 'batch_id' | 'header'>,
  roundId: string | null,
  items: readonly ReviewItem[],
): Promise<{ rows: RowRecord[]; width: number }> => {
  const named = new Set(items.map((item) => item.row));
  const rows: RowRecord[] = [];
  // The widest row, while every row passes by: the results files' input columns.
  let width = batch.header.length;
  let after: number | null = null;
  do {
    const page = await batches.rowsPage(batch.batch_id, { after, limit: ROWS_PER_PAGE });
    for (const row of page.rows) {
      width = Math.max(width, row.cells.length);
      const ofRound = roundId !== null && row.round?.round_id === roundId;
      if (ofRound || row.status === 'pending_data' || named.has(row.row)) rows.push(row);
    }
    after = page.next;
  } while (after !== null);
  return { rows, width };
};

/**
 * Step 3: looks again at the rows still waiting for answers (`lookAgainAtPendingRows`), a row
 * billed in another batch showing no cost here; returns the messages it adds to the round's problems.
 */
export const lookAgainWithProblems = async (
  ports: Pick<PipelinePorts, 'service' | 'batches' | 'audit' | 'checks'>,
  batchId: string,
  rows: RowRecord[],
  now: Date,
  items: readonly ReviewItem[],
): Promise<Message[]> => {
  // A row that joined another batch's classification, or whose classification was answered
  // through another batch's row, is not where it was billed: it shows no cost.
  const billedElsewhere = new Set(
    items
      .filter((item) => item.owner !== undefined || (item.answers !== undefined && item.state !== 'pending'))
      .map((item) => item.row),
  );
  const lookedAgain = await lookAgainAtPendingRows(ports, batchId, rows, now, {
    billedHere: (row) => !billedElsewhere.has(row.row),
  });
  const problems: Message[] = [];
  if (lookedAgain.abandoned > 0) problems.push(message('rows_abandoned', { count: lookedAgain.abandoned }));
  if (lookedAgain.settledElsewhere > 0) {
    problems.push(message('rows_settled_elsewhere', { count: lookedAgain.settledElsewhere }));
  }
  return problems;
};

/**
 * Step 4: review items follow their rows: `closed` once the row is final; `pending` again when an
 * answered row waits for answers once more (its answers were not sent: a stop, a refusal, a
 * missing sheet), its last answers kept on the item. Returns every item of the batch as it is now.
 */
export const settleReviewItems = async (
  ports: Pick<PipelinePorts, 'reviews'>,
  batchId: string,
  rows: readonly RowRecord[],
): Promise<ReviewItem[]> => {
  const rowByNumber = new Map(rows.map((row) => [row.row, row]));
  const items = await ports.reviews.listByBatch(batchId);
  return mapLimited(items, ITEMS_IN_FLIGHT, async (item) => {
    const row = rowByNumber.get(item.row);
    const sameClassification = row?.classification_id === item.classification_id;
    if (item.state !== 'closed' && row !== undefined && isFinalStatus(row.status)) {
      await ports.reviews.update(item.classification_id, { state: 'closed' });
      return { ...item, state: 'closed' as const };
    }
    if (item.state === 'answered' && row?.status === 'pending_data' && sameClassification) {
      await ports.reviews.update(item.classification_id, { state: 'pending' });
      return { ...item, state: 'pending' as const };
    }
    return item;
  });
};

/** Review items updated at once. */
const ITEMS_IN_FLIGHT = 16;
