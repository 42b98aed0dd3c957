/**
 * The batch the answers-round tests share (prepare-answers, finalize-answers): real
 * classifications created at a sandbox over HTTP and waited out to pending_data, stored as the
 * row steps store them, the outbox written by the batch's own Finalize; and review.csv filled in
 * from what the batch wrote, dropped back into answers/<batch-id>/.
 */
import Papa from 'papaparse';
import { expect } from 'vitest';
import type { Sandbox } from '../../local/sandbox/sandbox.js';
import { deriveRowKey } from '../../shared/pipeline/core/keys.js';
import type { ClassificationService } from '../../shared/pipeline/core/ports.js';
import { BatchRecord, type ReviewItem, type RowRecord } from '../../shared/pipeline/core/records.js';
import { pendingResult, resolvedResult } from '../../shared/pipeline/core/row-results.js';
import { finalizeBatch } from '../../shared/pipeline/finalize/finalize-batch.js';
import { createTcsClient } from '../../shared/tcs/client.js';
import type { Classification } from '../../shared/tcs/schemas.js';
import {
  countingKick,
  fixedClock,
  memoryAuditLog,
  memoryBatchEvents,
  memoryBatchStore,
  memoryCheckStore,
  memoryNotifier,
  memoryObjectStore,
  memoryProductCache,
  memoryReviewStore,
  memoryRowQueue,
  memoryWriterRecords,
} from './memory-ports.js';
import { fakeTimer } from './tcs-fixtures.js';

export const BUCKET = 'catalogue-bucket';
export const BATCH = 'lote-7Kq2M9xW4r';
export const ACCOUNT = '111122223333';
/** Row 1 resolves; rows 2–5 ask two questions each. */
const DESCRIPTIONS = [
  'Café torrado em grãos',
  'Peças diversas [sandbox:ask=2]',
  'Repuestos varios [sandbox:ask=2]',
  'Kit de ferramentas [sandbox:ask=2]',
  'Material elétrico [sandbox:ask=2]',
];

export const objectCreated = (key: string, etag: string, requester = ACCOUNT) => ({
  version: '0',
  'detail-type': 'Object Created',
  source: 'aws.s3',
  detail: {
    version: '0',
    bucket: { name: BUCKET },
    object: { key, size: 100, etag, sequencer: '01' },
    requester,
    reason: 'PutObject',
  },
});

/** The event as this machine's CLI delivers it, naming its user (`cli:<user>`, people/answers-writer.ts). */
export const byCli = <E extends { detail: object }>(event: E, user: string): E => ({
  ...event,
  detail: { ...event.detail, requester: `cli:${user}` },
});

/** The ports of both answers steps over memory, the service the sandbox over HTTP. */
export const makeAnswersWorld = (sandbox: Sandbox) => {
  const service: ClassificationService = createTcsClient({
    baseUrl: sandbox.baseUrl,
    apiKey: sandbox.keys.classify,
    timer: fakeTimer(Date.now()).timer,
    retry: { retryRateLimited: false, maxAttempts: 3 },
  });
  const looked: string[] = [];
  const clock = fixedClock();
  const ports = {
    clock,
    service: {
      ...service,
      getClassification: (
        id: string,
        options?: Parameters<ClassificationService['getClassification']>[1],
      ) => {
        looked.push(id);
        return service.getClassification(id, options);
      },
    } satisfies ClassificationService,
    objects: memoryObjectStore(),
    queue: memoryRowQueue(clock),
    batches: memoryBatchStore(),
    reviews: memoryReviewStore(),
    checks: memoryCheckStore(),
    writers: memoryWriterRecords(),
    notifier: memoryNotifier(),
    cache: memoryProductCache(),
    audit: memoryAuditLog(() => clock.now()),
    events: memoryBatchEvents(),
    kick: countingKick(),
  };
  return { ...ports, ports, looked, real: service, sandbox };
};
export type AnswersWorld = ReturnType<typeof makeAnswersWorld>;

/**
 * A finished batch: each description classified at the sandbox, run to its end, stored as the
 * row steps store it (pending rows with their review item), then the batch's own Finalize.
 */
export const seedFinishedBatch = async (w: AnswersWorld): Promise<Classification[]> => {
  const now = w.clock.now().toISOString();
  const created: string[] = [];
  for (const [index, description] of DESCRIPTIONS.entries()) {
    const accepted = await w.real.createClassification(
      { operation: 'import', country: 'BR', description, external_reference: deriveRowKey(BATCH, index + 1) },
      { idempotencyKey: `seed-${BATCH}-${index + 1}` },
    );
    created.push(accepted.classification.id);
  }
  w.sandbox.advanceClock(180);
  const found = await Promise.all(created.map((id) => w.real.getClassification(id)));
  expect(found.map((c) => c.status)).toEqual([
    'resolved',
    'pending_data',
    'pending_data',
    'pending_data',
    'pending_data',
  ]);

  await w.batches.createBatch(
    BatchRecord.parse({
      batch_id: BATCH,
      name: 'lote',
      source: {
        bucket: BUCKET,
        key: 'inbox/lote/p.csv',
        version_or_etag: 'e1',
        folder: 'inbox/lote/',
        file_name: 'p.csv',
      },
      execution_id: 'batch-exec',
      state: 'running',
      header: ['sku', 'description'],
      rows_total: 5,
      rows_dispatched: 5,
      started_at: now,
    }),
  );
  const rows: RowRecord[] = found.map((c, index) => ({
    batch_id: BATCH,
    row: index + 1,
    line: index + 2,
    cells: [`SKU-${index + 1}`, DESCRIPTIONS[index]!],
    status: c.status === 'resolved' ? 'resolved' : 'pending_data',
    attempt: 1,
    dispatch: 1,
    classification_id: c.id,
    submitted_attempt: 1,
    result:
      c.status === 'resolved' ? resolvedResult(c, { currentNcm: null, verdictPdf: null }) : pendingResult(c),
    finished_at: now,
    updated_at: now,
  }));
  await w.batches.putRows(rows);
  for (const c of found.filter((c) => c.status === 'pending_data')) {
    const row = rows.find((r) => r.classification_id === c.id)!;
    const item: ReviewItem = {
      classification_id: c.id,
      batch_id: BATCH,
      row: row.row,
      sku: `SKU-${row.row}`,
      external_reference: c.external_reference,
      description: c.description,
      questions: c.questions,
      provisional_ncm: null,
      provisional_confidence: null,
      abandons_at: new Date(Date.parse(c.created_at) + 30 * 86_400_000).toISOString(),
      state: 'pending',
      created_at: now,
    };
    await w.reviews.put(item);
  }
  await finalizeBatch(w.ports, { prepare: { batch_id: BATCH, next: 'finalize' } });
  expect(w.batches.batches.get(BATCH)?.state).toBe('completed');
  // The batch's own event: the rounds' events are counted from here.
  w.events.published.length = 0;
  return found;
};

export type Fill = 'all' | 'first' | 'none';

/** The batch's review.csv with answers typed in: every question, only the first, or none. */
export const fillReviewCsv = (
  w: AnswersWorld,
  fills: Record<number, Fill>,
  sheets: Record<number, string> = {},
): string => {
  const text = w.objects.text(`outbox/${BATCH}/review.csv`)!.replace(/^\uFEFF/, '');
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  const records = parsed.data.map((record) => {
    const fill = fills[Number(record.row)] ?? 'none';
    const filled = { ...record };
    for (const n of [1, 2]) {
      if (fill === 'all' || (fill === 'first' && n === 1)) {
        const options = (record[`question_${n}_options`] ?? '').split('|').filter(Boolean);
        filled[`answer_${n}`] = options[0] ?? 'Uso em máquinas industriais';
      }
    }
    const sheet = sheets[Number(record.row)];
    if (sheet) filled.sheet = sheet;
    return filled;
  });
  return Papa.unparse({
    fields: parsed.meta.fields!,
    data: records.map((r) => parsed.meta.fields!.map((f) => r[f] ?? '')),
  });
};

export const drop = (w: AnswersWorld, csv: string, etag: string, name = 'review.csv') => {
  const key = `answers/${BATCH}/${name}`;
  w.objects.set(key, csv);
  return objectCreated(key, etag);
};

export const rowOf = (w: AnswersWorld, row: number) => w.batches.rows.get(`${BATCH}#${row}`)!;
