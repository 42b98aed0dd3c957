/**
 * A deployment in memory that answers a dropped catalogue as the pipeline does, a step each time
 * the smoke waits: the batch record appears (Prepare), then the rows end, the outbox is written and
 * the batch completes (Finalize). The outbox files are made by the pipeline's own builders, so the
 * checks read what a real Finalize writes; `afterEnd` breaks something for a test to find.
 */

import { outboxKey } from '../../../shared/pipeline/core/bucket-layout.js';
import { deriveBatchId } from '../../../shared/pipeline/core/keys.js';
import { BatchRecord, type RowRecord } from '../../../shared/pipeline/core/records.js';
import type { RowResult } from '../../../shared/pipeline/core/result-columns.js';
import { buildSummary } from '../../../shared/pipeline/finalize/summary-tally.js';
import {
  buildOrphanSummary,
  buildResultsCsv,
  buildReviewCsv,
} from '../../../shared/pipeline/outbox/results-files.js';
import { outboxWorkbooks } from '../../../shared/pipeline/outbox/results-workbook.js';
import type { SmokeCatalogue } from '../../../shared/smoke/catalogue.js';
import type { DescribedStack, SmokePorts } from '../../../shared/smoke/ports.js';
import { XLSX_CONTENT_TYPE } from '../../../shared/spreadsheet/xlsx-layout.js';
import { textMessage } from '../../../shared/wording/message.js';
import {
  fixedClock,
  memoryBatchStore,
  memoryObjectStore,
  memoryReviewStore,
} from '../../helpers/memory-ports.js';
import { classificationId, reviewItem, TOKEN } from '../../helpers/records.js';

export const STACK = 'NcmBatchClassifier-Stateful';
export const BUCKET = 'ncm-data-bucket';
export const BATCH_TABLE = 'NcmBatchClassifier-Stateful-BatchTable-1ABC';
export const REVIEW_TABLE = 'NcmBatchClassifier-Stateful-ReviewTable-2DEF';
const PDF_BYTES = '%PDF-1.4\n% a verdict\n';

const exported = (name: string, value: string) => ({
  OutputKey: `ExportNcmBatchClassifierStateful${name}`,
  OutputValue: value,
  ExportName: `${STACK}:${name}`,
});

/** The stateful stack as DescribeStacks gives it: its exports among others. */
export const describedStack = (overrides: Partial<DescribedStack> = {}): DescribedStack => ({
  StackName: STACK,
  StackStatus: 'UPDATE_COMPLETE',
  Outputs: [
    exported('BucketName', BUCKET),
    exported('BucketArn', `arn:aws:s3:::${BUCKET}`),
    exported('BatchTableName', BATCH_TABLE),
    exported('ReviewTableName', REVIEW_TABLE),
  ],
  ...overrides,
});

/** What each of the three smoke rows ends as: two verdicts and one row with questions. */
const OUTCOMES: Record<number, RowResult> = {
  1: {
    status: 'resolved',
    classification_id: classificationId(1),
    ncm: '8413.70.10',
    verdict_pdf: 'pdfs/00001-SMOKE-BOM-0207.pdf',
    cost_usd: '2.00',
  },
  2: {
    status: 'resolved',
    classification_id: classificationId(2),
    ncm: '8482.10.10',
    verdict_pdf: 'pdfs/00002-SMOKE-ROL-6204.pdf',
    cost_usd: '2.00',
  },
  3: { status: 'pending_data', classification_id: classificationId(3), cost_usd: '0.00' },
};

export type Behaviour = {
  /** false: no batch ever starts (no rule starts the workflow). */
  starts?: boolean;
  /** How many waits after the start the batch ends; Infinity: it never does. */
  waitsToEnd?: number;
  /** The bucket gives version ids, so the smoke derives the batch id as Prepare does. */
  versioned?: boolean;
  /** Prepare fails before it writes the record: Finalize leaves an orphan summary only. */
  orphan?: boolean;
  /** Called at every wait, with how many there were (to abort a smoke midway). */
  onWait?: (waits: number) => void;
  /** Breaks something in what the pipeline left, once the batch has ended. */
  afterEnd?: (world: FakeWorld) => Promise<void> | void;
};

/** What the fake holds, for a test to look at or break. */
type FakeWorld = {
  objects: ReturnType<typeof memoryObjectStore>;
  batches: ReturnType<typeof memoryBatchStore>;
  reviews: ReturnType<typeof memoryReviewStore>;
  time: ReturnType<typeof fixedClock>;
  /** Keys in the order they were put. */
  puts: string[];
  said: string[];
  opened: unknown[];
  batchId: string | null;
};

export const fakeDeployment = (catalogue: SmokeCatalogue, behaviour: Behaviour = {}) => {
  const store = memoryObjectStore();
  const world: FakeWorld = {
    objects: store,
    batches: memoryBatchStore(),
    reviews: memoryReviewStore(),
    time: fixedClock('2026-11-25T13:05:01.000Z'),
    puts: [],
    said: [],
    opened: [],
    batchId: null,
  };
  let dropped: { key: string; batchName: string } | null = null;
  let waits = 0;
  let waitsSinceStart = 0;
  let ended = false;

  const start = async ({ key, batchName }: { key: string; batchName: string }) => {
    const versionOrEtag = behaviour.versioned ? `v-${key}` : '"etag"';
    const batchId = deriveBatchId(batchName, { bucket: BUCKET, key, versionOrEtag });
    world.batchId = batchId;
    const source = {
      bucket: BUCKET,
      key,
      version_or_etag: versionOrEtag,
      folder: `inbox/${batchName}/`,
      file_name: 'products.csv',
    };
    if (behaviour.orphan) {
      const problems = [
        textMessage('The batch could not be prepared: AccessDenied: not authorized to perform s3:GetObject'),
      ];
      const now = world.time.now();
      const summary = buildOrphanSummary({ batch_id: batchId, name: batchName, source, problems, now });
      await store.put(outboxKey(batchId, 'summary.json'), JSON.stringify(summary), 'application/json');
      return;
    }
    const at = world.time.now().toISOString();
    const record = BatchRecord.parse({
      batch_id: batchId,
      name: batchName,
      source,
      execution_id: 'exec-smoke',
      state: 'running',
      header: catalogue.header,
      rows_total: catalogue.rows.length,
      rows_dispatched: catalogue.rows.length,
      task_token: TOKEN,
      started_at: at,
    });
    await world.batches.createBatch(record);
    const rows = catalogue.rows.map(
      (input): RowRecord => ({
        batch_id: batchId,
        row: input.row,
        line: input.row + 1,
        cells: input.cells,
        status: 'queued',
        attempt: 1,
        dispatch: 1,
        updated_at: at,
      }),
    );
    await world.batches.putRows(rows);
  };

  const end = async (batchId: string) => {
    const at = world.time.now().toISOString();
    const batch = (await world.batches.getBatch(batchId)) as BatchRecord;
    const rows: RowRecord[] = [];
    for await (const row of world.batches.listRows(batchId)) {
      const result = OUTCOMES[row.row] as RowResult;
      rows.push({
        ...row,
        status: result.status,
        result,
        ...(result.classification_id ? { classification_id: result.classification_id } : {}),
        finished_at: at,
      });
    }
    await world.batches.putRows(rows);
    const item = reviewItem(3, { batch_id: batchId, row: 3, sku: 'SMOKE-PEC-DIV' });
    await world.reviews.put(item);
    for (const result of Object.values(OUTCOMES).filter((found) => found.verdict_pdf))
      await store.put(outboxKey(batchId, result.verdict_pdf as string), PDF_BYTES, 'application/pdf');
    const done = { ...batch, state: 'completed' as const, finished_at: at };
    const summary = buildSummary(done, rows, world.time.now());
    const workbooks = outboxWorkbooks({ batch, rows, summary, review: [item] });
    await store.put(outboxKey(batchId, 'results.csv'), buildResultsCsv(batch, rows), 'text/csv');
    await store.put(outboxKey(batchId, 'results.xlsx'), workbooks.results(), XLSX_CONTENT_TYPE);
    await store.put(outboxKey(batchId, 'review.csv'), buildReviewCsv([item]), 'text/csv');
    await store.put(outboxKey(batchId, 'review.xlsx'), workbooks.review(), XLSX_CONTENT_TYPE);
    await store.put(outboxKey(batchId, 'summary.json'), JSON.stringify(summary, null, 2), 'application/json');
    await world.batches.updateBatch(batchId, { state: 'completed', finished_at: at });
    ended = true;
    await behaviour.afterEnd?.(world);
  };

  /** One step of the pipeline per wait of the smoke. */
  const step = async () => {
    waits += 1;
    behaviour.onWait?.(waits);
    if (dropped && world.batchId === null && behaviour.starts !== false) return start(dropped);
    if (world.batchId === null || ended || behaviour.orphan) return;
    waitsSinceStart += 1;
    if (waitsSinceStart >= (behaviour.waitsToEnd ?? 3)) await end(world.batchId);
  };

  const objects = {
    ...store,
    put: async (key: string, body: Uint8Array | string | NodeJS.ReadableStream, contentType: string) => {
      world.puts.push(key);
      const written = await store.put(key, body, contentType);
      const spreadsheet = /^inbox\/([^/]+)\/[^/]+\.csv$/.exec(key);
      if (spreadsheet) dropped = { key, batchName: spreadsheet[1] as string };
      return written;
    },
    head: async (key: string) => {
      const found = await store.head(key);
      return found && behaviour.versioned ? { ...found, versionId: `v-${key}` } : found;
    },
  };

  const ports: SmokePorts = {
    stacks: { describe: async (name) => (name === STACK ? describedStack() : null) },
    open: (deployment) => {
      world.opened.push(deployment);
      return { objects, batches: world.batches, reviews: world.reviews };
    },
    clock: {
      now: () => world.time.now(),
      sleep: async (ms) => {
        world.time.advance(ms);
        await step();
      },
    },
    say: (line) => world.said.push(line),
  };
  return { ports, world, data: { objects, batches: world.batches, reviews: world.reviews } };
};
