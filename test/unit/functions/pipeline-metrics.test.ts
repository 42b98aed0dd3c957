/**
 * The business metrics as CloudWatch reads them: the handlers run on in-memory ports (the
 * composition root's portsFor replaced), and the embedded-metric (EMF) lines they print are read
 * back from stdout: namespace, metric names, units, values, dimensions, and the batch id
 * property. What a Complete records, what the service answered Submit, what the dispatcher
 * counted, what a finished batch's summary says.
 */
import { Metrics } from '@aws-lambda-powertools/metrics';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as dispatchRowsHandler } from '../../../functions/dispatch-rows/handler.js';
import { handler as finalizeBatchHandler } from '../../../functions/finalize-batch/handler.js';
import { watchSubmissionAnswers } from '../../../functions/metric-sources.js';
import { createEmfPipelineMetrics } from '../../../functions/pipeline-metrics.js';
import { handler as rowCompleteHandler } from '../../../functions/row-complete/handler.js';
import { handler as rowExecutionEndedHandler } from '../../../functions/row-execution-ended/handler.js';
import { handler as rowSubmitHandler } from '../../../functions/row-submit/handler.js';
import { logger, portsFor } from '../../../functions/runtime.js';
import { BUSINESS_METRICS, SERVICE_NAME } from '../../../shared/contract.js';
import type { ClassificationService } from '../../../shared/pipeline/core/ports.js';
import type { RowExecutionInput } from '../../../shared/pipeline/core/records.js';
import { TcsProblemError, TcsValidationError } from '../../../shared/tcs/errors.js';
import {
  countingKick,
  fixedClock,
  memoryAuditLog,
  memoryBatchEvents,
  memoryBatchStore,
  memoryBatchWaiters,
  memoryCheckStore,
  memoryNotifier,
  memoryObjectStore,
  memoryProductCache,
  memoryReviewStore,
  memoryRowQueue,
  memoryRowWorkflows,
  memorySlotLeases,
  recordingPartials,
} from '../../helpers/memory-ports.js';
import { BATCH, batchRecord, classificationId, rowRecord } from '../../helpers/records.js';

// The handlers' composition root, with the ports each test gives it instead of AWS.
vi.mock('../../../functions/runtime.js', async (importOriginal) => ({
  ...(await importOriginal<typeof import('../../../functions/runtime.js')>()),
  portsFor: vi.fn(),
}));

/** The ports of every handler here, in memory, on one clock. */
const memoryPorts = () => {
  const clock = fixedClock();
  return {
    clock,
    batches: memoryBatchStore(),
    cache: memoryProductCache(),
    leases: memorySlotLeases(),
    queue: memoryRowQueue(clock),
    kick: countingKick(),
    waiters: memoryBatchWaiters(),
    partials: recordingPartials(),
    objects: memoryObjectStore(),
    reviews: memoryReviewStore(),
    checks: memoryCheckStore(),
    audit: memoryAuditLog(() => clock.now()),
    events: memoryBatchEvents(),
    notifier: memoryNotifier(),
    workflows: memoryRowWorkflows(),
    service: {} as ClassificationService,
  };
};
type Ports = ReturnType<typeof memoryPorts>;

let ports: Ports;
let printed: string[];

beforeAll(() => logger.setLogLevel('SILENT'));
beforeEach(() => {
  ports = memoryPorts();
  vi.mocked(portsFor).mockResolvedValue(ports as never);
  printed = [];
  // Powertools Metrics prints each EMF line on stdout (its own Console on process.stdout).
  vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    printed.push(String(chunk));
    return true;
  });
});
afterEach(() => vi.restoreAllMocks());

type EmfLine = Record<string, unknown> & {
  _aws: {
    Timestamp: number;
    CloudWatchMetrics: {
      Namespace: string;
      Dimensions: string[][];
      Metrics: { Name: string; Unit: string }[];
    }[];
  };
};

/** The EMF lines printed since the test began, in order. */
const emfLines = (): EmfLine[] =>
  printed
    .join('')
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line): line is EmfLine => '_aws' in line);

/** A line's one metric directive, as CloudWatch reads it. */
const directiveOf = (line: EmfLine) => {
  expect(line._aws.CloudWatchMetrics).toHaveLength(1);
  return line._aws.CloudWatchMetrics[0]!;
};

/** A running batch of `rows` rows, all dispatched and in progress, counted on one shard. */
const seedRunningBatch = async (rows: number) => {
  await ports.batches.createBatch(
    batchRecord({ state: 'running', rows_total: rows, rows_dispatched: rows, shard_count: 1 }),
  );
  await ports.batches.putCompletionShards(BATCH, new Map([[0, rows]]));
  await ports.batches.putRows(
    Array.from({ length: rows }, (_, index) =>
      rowRecord(index + 1, {
        status: 'in_progress',
        classification_id: classificationId(index + 1),
        product_key: `sku:SKU-${index + 1}`,
        fingerprint: `fp-${index + 1}`,
      }),
    ),
  );
};

const execution = (row: number): RowExecutionInput => ({
  batch_id: BATCH,
  row,
  attempt: 1,
  dispatch: 1,
  row_key: `${BATCH}:${row}`,
  holder: `${BATCH}:${row}#a1`,
});

const resolvedStep = (row: number) => ({
  next: 'complete',
  outcome: {
    kind: 'final',
    result: {
      status: 'resolved',
      classification_id: classificationId(row),
      ncm: '7318.15.00',
      cost_usd: '2.00',
    },
  },
});

describe('a Complete (row-complete)', () => {
  it('writes the finished row by final status, and what it billed, with the batch id on each line', async () => {
    await seedRunningBatch(2);

    const before = Date.now();
    await rowCompleteHandler({ ...execution(1), step: resolvedStep(1) });
    const after = Date.now();

    const [finished, billed, ...more] = emfLines();
    expect(more).toEqual([]);
    expect(directiveOf(finished!)).toEqual({
      Namespace: BUSINESS_METRICS.namespace,
      Dimensions: [['service', 'status']],
      Metrics: [{ Name: BUSINESS_METRICS.rowsFinished, Unit: 'Count' }],
    });
    expect(finished).toMatchObject({
      service: SERVICE_NAME,
      status: 'resolved',
      [BUSINESS_METRICS.rowsFinished]: 1,
      batch_id: BATCH,
      row: '1',
    });
    expect(BUSINESS_METRICS.namespace).toBe('NcmBatchClassifier');
    expect(directiveOf(billed!)).toEqual({
      Namespace: 'NcmBatchClassifier',
      Dimensions: [['service']],
      Metrics: [{ Name: 'BilledUsd', Unit: 'None' }],
    });
    expect(billed).toMatchObject({ service: SERVICE_NAME, BilledUsd: 2, batch_id: BATCH, row: '1' });
    expect(billed).not.toHaveProperty('status');
    // Stamped with the time it was written, during the invocation.
    expect(billed!._aws.Timestamp).toBeGreaterThanOrEqual(before);
    expect(billed!._aws.Timestamp).toBeLessThanOrEqual(after);
  });

  it('writes nothing again for a retried Complete: the row was already final', async () => {
    await seedRunningBatch(2);
    await rowCompleteHandler({ ...execution(1), step: resolvedStep(1) });
    printed.length = 0;

    const report = await rowCompleteHandler({ ...execution(1), step: resolvedStep(1) });

    expect(report).toMatchObject({ outcome: 'final', status: 'resolved', changed: false });
    expect(emfLines()).toEqual([]);
  });

  it('an error or a requeue bills nothing; a requeue finishes no row', async () => {
    await seedRunningBatch(2);

    await rowCompleteHandler({ ...execution(1), error: { Error: 'States.Timeout' } });
    await rowCompleteHandler({
      ...execution(2),
      step: {
        next: 'complete',
        outcome: { kind: 'requeue', attempt: 1, dispatch: 2, delay_seconds: 5, reason: 'rate_limited' },
      },
    });

    const lines = emfLines();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ status: 'error', RowsFinished: 1, batch_id: BATCH, row: '1' });
    expect(JSON.stringify(lines)).not.toContain('BilledUsd');
  });

  it('row-execution-ended writes the row it ended in error the same way', async () => {
    await seedRunningBatch(1);
    const input = JSON.stringify(execution(1));

    await rowExecutionEndedHandler({ detail: { status: 'TIMED_OUT', input } });

    const lines = emfLines();
    expect(lines).toHaveLength(1);
    expect(directiveOf(lines[0]!).Dimensions).toEqual([['service', 'status']]);
    expect(lines[0]).toMatchObject({
      service: SERVICE_NAME,
      status: 'error',
      RowsFinished: 1,
      batch_id: BATCH,
    });
  });
});

const problem = (status: number, name: string) =>
  new TcsProblemError({
    problem: name as never,
    type: `https://api.example.com/problems/${name}`,
    status,
    title: name,
    detail: `${name} detail`,
    instance: '/v1/classifications',
    requestId: 'req-1',
    errors: [],
    retryAfterMs: status === 429 ? 7_000 : null,
  });

/** Submit of row 1 of a running batch, the service's creation answering `error`. */
const submitAgainst = async (error: Error) => {
  await ports.batches.createBatch(batchRecord({ state: 'running', rows_total: 1, rows_dispatched: 1 }));
  await ports.batches.putRows([
    rowRecord(1, {
      status: 'submitting',
      product: {
        row: 1,
        description: 'Parafuso de aço inoxidável M6',
        operation: 'import',
        country: 'CN',
        sheet: null,
        external_reference: null,
        sku: 'SKU-1',
        current_ncm: null,
        flags: [],
      },
    }),
  ]);
  ports.service = {
    createClassification: async () => {
      throw error;
    },
  } as unknown as ClassificationService;
  return rowSubmitHandler(execution(1));
};

describe("Submit's answers from the service (row-submit)", () => {
  it('counts a 429: the row goes back to the queue', async () => {
    const step = await submitAgainst(problem(429, 'rate-limited'));

    expect(step.outcome).toMatchObject({ kind: 'requeue', reason: 'rate_limited' });
    const [line, ...more] = emfLines();
    expect(more).toEqual([]);
    expect(directiveOf(line!)).toEqual({
      Namespace: 'NcmBatchClassifier',
      Dimensions: [['service']],
      Metrics: [{ Name: BUSINESS_METRICS.submissionsRateLimited, Unit: 'Count' }],
    });
    expect(line).toMatchObject({
      SubmissionsRateLimited: 1,
      batch_id: BATCH,
      operation: 'createClassification',
    });
  });

  it('counts a refusal with its Problem name; a 401 or 403 that stops the batch is one too', async () => {
    await submitAgainst(problem(422, 'validation-error'));
    const [refused] = emfLines();
    expect(directiveOf(refused!).Metrics).toEqual([{ Name: 'SubmissionsRefused', Unit: 'Count' }]);
    expect(refused).toMatchObject({
      SubmissionsRefused: 1,
      problem: 'validation-error',
      http_status: '422',
      batch_id: BATCH,
    });

    ports = memoryPorts();
    vi.mocked(portsFor).mockResolvedValue(ports as never);
    printed.length = 0;
    const step = await submitAgainst(problem(403, 'plan-without-api'));
    expect(step.outcome).toMatchObject({ kind: 'final', result: { status: 'not_submitted' } });
    expect(emfLines()[0]).toMatchObject({ SubmissionsRefused: 1, problem: 'plan-without-api' });
  });

  it('counts nothing the service did not refuse: a 5xx, an in-flight key, a request never sent', async () => {
    const answers: unknown[] = [];
    for (const error of [
      problem(503, 'classifier-unavailable'),
      problem(409, 'idempotency-key-in-flight'),
      new TcsValidationError('createClassification', [
        { field: 'description', code: 'too_short', message: 'x' },
      ]),
    ]) {
      const watched = watchSubmissionAnswers(
        {
          createClassification: async () => {
            throw error;
          },
        } as unknown as ClassificationService,
        BATCH,
      );
      await expect(watched.service.createClassification({} as never, { idempotencyKey: 'k' })).rejects.toBe(
        error,
      );
      answers.push(...watched.answers);
    }
    expect(answers).toEqual([]);
  });
});

describe('the slots (dispatch-rows)', () => {
  it('writes the cap, ours and the others in use, as each run counted them', async () => {
    ports.service = {
      getBalance: async () => ({
        balance_credits: 0,
        in_progress_count: 3,
        concurrency_limit: 10,
        plan_tier: 'profesional',
        api_available: true,
      }),
    } as unknown as ClassificationService;
    await ports.leases.acquire({ holder: `${BATCH}:1#a1`, cap: 10, ttlMs: 600_000, now: Date.now() });

    await dispatchRowsHandler({ source: 'schedule' });

    const [line, ...more] = emfLines();
    expect(more).toEqual([]);
    expect(directiveOf(line!)).toEqual({
      Namespace: 'NcmBatchClassifier',
      Dimensions: [['service']],
      Metrics: [
        { Name: BUSINESS_METRICS.slotsInUse, Unit: 'Count' },
        { Name: BUSINESS_METRICS.slotsUsedByOthers, Unit: 'Count' },
        { Name: BUSINESS_METRICS.slotCap, Unit: 'Count' },
      ],
    });
    expect(line).toMatchObject({ service: SERVICE_NAME, SlotsInUse: 1, SlotsUsedByOthers: 2, SlotCap: 10 });
  });
});

describe('a finished batch (finalize-batch)', () => {
  it('writes its totals once, from the summary its Batch Completed event carries', async () => {
    await ports.batches.createBatch(batchRecord({ state: 'running', rows_total: 3, rows_dispatched: 2 }));
    await ports.batches.putRows([
      rowRecord(1, { status: 'resolved', result: { status: 'resolved', cost_usd: '2.00' } }),
      rowRecord(2, { status: 'resolved', result: { status: 'resolved', cost_usd: '2.00' } }),
      rowRecord(3, { status: 'reused', result: { status: 'reused', cost_usd: '0.00' } }),
    ]);
    const event = { prepare: { batch_id: BATCH, next: 'wait' } };

    await finalizeBatchHandler(event);

    expect(ports.events.published).toHaveLength(1);
    const [totals, ...byStatus] = emfLines();
    expect(directiveOf(totals!)).toEqual({
      Namespace: 'NcmBatchClassifier',
      Dimensions: [['service']],
      Metrics: [
        { Name: BUSINESS_METRICS.batchesFinished, Unit: 'Count' },
        { Name: BUSINESS_METRICS.batchBilledUsd, Unit: 'None' },
        { Name: BUSINESS_METRICS.batchSavedUsd, Unit: 'None' },
      ],
    });
    expect(totals).toMatchObject({
      BatchesFinished: 1,
      BatchBilledUsd: 4,
      BatchSavedUsd: 2,
      batch_id: BATCH,
      batch_state: 'completed',
      rows_total: '3',
    });
    expect(byStatus.map((line) => directiveOf(line).Dimensions)).toEqual([
      [['service', 'status']],
      [['service', 'status']],
    ]);
    expect(byStatus.map(({ status, BatchRows, batch_id }) => ({ status, BatchRows, batch_id }))).toEqual([
      { status: 'resolved', BatchRows: 2, batch_id: BATCH },
      { status: 'reused', BatchRows: 1, batch_id: BATCH },
    ]);

    printed.length = 0;
    await finalizeBatchHandler(event);
    expect(ports.events.published).toHaveLength(1);
    expect(emfLines()).toEqual([]);
  });
});

describe('a line that cannot be written', () => {
  it('is dropped and told, fails nothing, and leaves nothing behind for the next line', () => {
    const errors: unknown[] = [];
    const metrics = createEmfPipelineMetrics(
      new Metrics({ namespace: BUSINESS_METRICS.namespace, serviceName: SERVICE_NAME }),
      (error) => errors.push(error),
    );

    metrics.slotsCounted({ inUse: Number.NaN, usedByOthers: 2, cap: 10 });
    metrics.rowFinished({ batchId: BATCH, row: 4, status: 'failed', billedUsd: 0 });

    expect(errors).toHaveLength(1);
    const lines = emfLines();
    expect(lines).toHaveLength(1);
    expect(directiveOf(lines[0]!).Metrics).toEqual([{ Name: 'RowsFinished', Unit: 'Count' }]);
    expect(lines[0]).not.toHaveProperty('SlotsUsedByOthers');
  });
});
