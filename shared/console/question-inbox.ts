/**
 * The questions inbox: every row waiting for answers, across batches, grouped so that rows
 * asked exactly the same questions (same texts, same options, same order) are answered once.
 * A row is waiting when its review item is `pending` and its row is still `pending_data`, as
 * review.csv lists it (outbox/results-files.ts, pendingReviewItems).
 */
import { createHash } from 'node:crypto';
import { daysLeft, type ReviewItem, type RowRecord } from '../pipeline/core/records.js';
import type { PendingRowView, QuestionGroup, QuestionInbox } from './api.js';
import type { ConsolePorts } from './ports.js';

/**
 * Every row of a batch with pending items: which rows follow a pending row is known only from the
 * rows (no index names them), so the inbox still reads its batches whole.
 */
const readRows = async (ports: Pick<ConsolePorts, 'batches'>, batchId: string): Promise<RowRecord[]> => {
  const rows: RowRecord[] = [];
  for await (const row of ports.batches.listRows(batchId)) rows.push(row);
  return rows;
};

/** Same texts and options in the same order: one key. */
const questionsKey = (questions: ReviewItem['questions']): string =>
  createHash('sha256')
    .update(JSON.stringify(questions.map((question) => [question.text, question.options])))
    .digest('hex')
    .slice(0, 16);

const pendingRow = (
  item: ReviewItem,
  batchName: string,
  sameProductRows: number[],
  now: Date,
): PendingRowView => ({
  batch_id: item.batch_id,
  batch_name: batchName,
  row: item.row,
  classification_id: item.classification_id,
  sku: item.sku,
  description: item.description,
  provisional_ncm: item.provisional_ncm,
  provisional_confidence: item.provisional_confidence,
  abandons_at: item.abandons_at,
  days_left: daysLeft(item.abandons_at, now),
  question_ids: item.questions.map((question) => question.id),
  same_product_rows: sameProductRows,
});

/** For each batch with pending items: its name, its rows still pending_data, and who follows whom. */
const batchesOf = async (ports: Pick<ConsolePorts, 'batches'>, batchIds: readonly string[]) => {
  const entries = await Promise.all(
    batchIds.map(async (batchId) => {
      const [batch, rows] = await Promise.all([ports.batches.getBatch(batchId), readRows(ports, batchId)]);
      return [
        batchId,
        { name: batch?.name ?? batchId, rows, byRow: new Map(rows.map((row) => [row.row, row])) },
      ] as const;
    }),
  );
  return new Map(entries);
};

const followersOf = (rows: readonly RowRecord[]): Map<number, number[]> => {
  const followers = new Map<number, number[]>();
  for (const row of rows) {
    if (row.follows === undefined) continue;
    followers.set(row.follows, [...(followers.get(row.follows) ?? []), row.row]);
  }
  return followers;
};

export const questionInbox = async (
  ports: Pick<ConsolePorts, 'batches' | 'reviews' | 'clock'>,
): Promise<QuestionInbox> => {
  const items = (await ports.reviews.listPending()).filter((item) => item.state === 'pending');
  const batches = await batchesOf(ports, [...new Set(items.map((item) => item.batch_id))]);
  const now = ports.clock.now();
  const groups = new Map<string, QuestionGroup>();
  let count = 0;
  for (const item of items) {
    const batch = batches.get(item.batch_id);
    const row = batch?.byRow.get(item.row);
    if (!batch || row?.status !== 'pending_data') continue;
    const key = questionsKey(item.questions);
    const group = groups.get(key) ?? {
      key,
      questions: item.questions.map(({ text, options }) => ({ text, options })),
      rows: [],
    };
    group.rows.push(pendingRow(item, batch.name, followersOf(batch.rows).get(item.row) ?? [], now));
    groups.set(key, group);
    count += 1;
  }
  const sorted = [...groups.values()].map((group) => ({
    ...group,
    rows: group.rows.sort((a, b) => a.abandons_at.localeCompare(b.abandons_at) || a.row - b.row),
  }));
  // The group whose first row is abandoned soonest comes first.
  sorted.sort((a, b) => (a.rows[0]?.abandons_at ?? '').localeCompare(b.rows[0]?.abandons_at ?? ''));
  return { groups: sorted, rows: count };
};
