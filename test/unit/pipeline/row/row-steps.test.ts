/**
 * The Row workflow's tasks against the in-memory ports and the real sandbox over HTTP.
 * `runRowWorkflow` plays the state machine the way the ASL does: task results at `$.step`,
 * a thrown error caught into `$.error`, every path ending in Complete. Waits advance the
 * sandbox clock and the pipeline clock instead of sleeping.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../../local/sandbox/index.js';
import type { ClassificationService } from '../../../../shared/pipeline/core/index.js';
import {
  BatchRecord,
  deriveAnswersKey,
  deriveRowKey,
  type RowExecutionInput,
  RowRecord,
  type RowResult,
  type RowStep,
  scrubErrorText,
  sha256Hex,
} from '../../../../shared/pipeline/core/index.js';
import { rowExecutionName, rowHolder } from '../../../../shared/pipeline/dispatch/index.js';
import {
  type CompleteReport,
  completeRow,
  pollRow,
  type RowStepConfig,
  reviewRow,
  rowExecutionEnded,
  storeRow,
  submitRow,
} from '../../../../shared/pipeline/row/index.js';
import { ProductRow } from '../../../../shared/spreadsheet/schemas.js';
import { createTcsClient } from '../../../../shared/tcs/client.js';
import { TcsNetworkError } from '../../../../shared/tcs/errors.js';
import { Classification } from '../../../../shared/tcs/schemas.js';
import {
  countingKick,
  fixedClock,
  memoryBatchStore,
  memoryBatchWaiters,
  memoryObjectStore,
  memoryProductCache,
  memoryReviewStore,
  memoryRowQueue,
  memorySlotLeases,
  openRound,
} from '../../../helpers/memory-ports.js';
import { fakeTimer, inProgressClassification, tinyPdf } from '../../../helpers/tcs-fixtures.js';

const BATCH = 'nightly-7Kq2M9xW4r';
const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAbatch-task-token-secret';
const CONFIG: RowStepConfig = { leaseTtlMs: 10 * 60_000, timeScale: 1 };
const COFFEE = 'Café torrado em grãos, embalagem de 1 kg';

let sandbox: Sandbox;

beforeAll(async () => {
  sandbox = await startSandbox({
    port: 0,
    timeScale: 1,
    seed: 'row-steps',
    log: 'silent',
    creationDelayMs: 0,
  });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

/** A client as the row-submit handler builds it: a 429 comes back at once (no waiting here). */
const serviceFor = (apiKey = sandbox.keys.classify): ClassificationService =>
  createTcsClient({
    baseUrl: sandbox.baseUrl,
    apiKey,
    timer: fakeTimer(Date.now()).timer,
    retry: { retryRateLimited: false, maxAttempts: 3 },
  });

const makeWorld = (service: ClassificationService = serviceFor()) => {
  const clock = fixedClock();
  const wakes: string[] = [];
  const memoryWaiters = memoryBatchWaiters();
  const ports = {
    clock,
    service,
    objects: memoryObjectStore(),
    batches: memoryBatchStore(),
    reviews: memoryReviewStore(),
    cache: memoryProductCache(),
    leases: memorySlotLeases(),
    queue: memoryRowQueue(clock),
    kick: countingKick(),
    waiters: {
      woken: memoryWaiters.woken,
      wake: async (token: string, output: { batch_id: string }) => {
        wakes.push(output.batch_id);
        await memoryWaiters.wake(token, output);
      },
    },
  };
  return { ...ports, ports, wakes };
};
type World = ReturnType<typeof makeWorld>;

type RowSpec = Partial<ProductRow> & { sheetBytes?: Uint8Array };

/** A running batch whose rows were all dispatched, its workflow waiting on TOKEN. */
const seedBatch = async (w: World, specs: RowSpec[]) => {
  const now = w.clock.now().toISOString();
  await w.batches.createBatch(
    BatchRecord.parse({
      batch_id: BATCH,
      name: 'nightly',
      source: {
        bucket: 'b',
        key: 'inbox/nightly/p.csv',
        version_or_etag: 'e1',
        folder: 'inbox/nightly/',
        file_name: 'p.csv',
      },
      execution_id: 'exec-1',
      state: 'running',
      rows_total: specs.length,
      rows_dispatched: specs.length,
      shard_count: 1,
      started_at: now,
    }),
  );
  await w.batches.putCompletionShards(BATCH, new Map([[0, specs.length]]));
  await w.batches.registerWaiter(BATCH, TOKEN);
  const rows = specs.map(({ sheetBytes, ...spec }, index) => {
    const row = index + 1;
    const sheetKey = `inbox/nightly/sheets/${row}.pdf`;
    if (sheetBytes) w.objects.set(sheetKey, sheetBytes);
    return RowRecord.parse({
      batch_id: BATCH,
      row,
      line: row + 1,
      cells: [spec.description ?? ''],
      status: 'queued',
      product: ProductRow.parse({
        row,
        description: COFFEE,
        operation: 'import',
        country: 'CO',
        sheet: sheetBytes ? `sheets/${row}.pdf` : null,
        external_reference: null,
        sku: `SKU-${row}`,
        current_ncm: null,
        flags: [],
        ...spec,
      }),
      sheet: sheetBytes
        ? {
            key: sheetKey,
            sha256: sha256Hex(sheetBytes),
            size: sheetBytes.byteLength,
            file_name: `${row}.pdf`,
          }
        : undefined,
      product_key: `sku:${spec.sku ?? `SKU-${row}`}`,
      fingerprint: `fp-${row}`,
      attempt: 1,
      dispatch: 1,
      updated_at: now,
    });
  });
  await w.batches.putRows(rows);
};

/**
 * What the dispatcher does before StartExecution: the lease (an answers round's own holder when
 * `roundId` is given), the row claimed.
 */
const dispatch = async (
  w: World,
  row: number,
  attempt = 1,
  dispatchNo = 1,
  roundId?: string,
): Promise<RowExecutionInput> => {
  const holder = rowHolder(BATCH, row, attempt, roundId);
  const lease = await w.leases.acquire({
    holder,
    cap: 10,
    ttlMs: CONFIG.leaseTtlMs,
    now: w.clock.now().getTime(),
  });
  expect(lease.acquired).toBe(true);
  await w.batches.updateRow(BATCH, row, { status: 'submitting', attempt, dispatch: dispatchNo });
  return {
    batch_id: BATCH,
    row,
    attempt,
    dispatch: dispatchNo,
    ...(roundId !== undefined ? { round_id: roundId } : {}),
    row_key: deriveRowKey(BATCH, row),
    holder,
  };
};

const caught = (error: unknown) => {
  const e = error as Error;
  return {
    Error: e.name,
    Cause: JSON.stringify({ errorType: e.name, errorMessage: e.message, trace: ['at x'] }),
  };
};

/** The Row workflow: Submit ─▶ (Wait ─▶ Poll)* ─▶ Store | Review ─▶ Complete, Catch ─▶ Complete. */
const runRowWorkflow = async (
  w: World,
  input: RowExecutionInput,
): Promise<{ state: Record<string, unknown>; report: CompleteReport; steps: string[] }> => {
  let state: Record<string, unknown> = { ...input };
  const steps: string[] = [];
  const task = async (name: string, run: (s: unknown) => Promise<RowStep>) => {
    steps.push(name);
    try {
      state = { ...state, step: await run(state) };
      return true;
    } catch (error) {
      state = { ...state, error: caught(error) };
      return false;
    }
  };
  let going = await task('Submit', (s) => submitRow(w.ports, CONFIG, s));
  while (going) {
    const step = state.step as RowStep;
    if (step.next === 'complete') break;
    if (steps.length > 200) throw new Error('the row never finished');
    if (step.next === 'wait') {
      sandbox.advanceClock(step.wait_seconds ?? 1);
      w.clock.advance((step.wait_seconds ?? 1) * 1000);
      going = await task('Poll', (s) => pollRow(w.ports, CONFIG, s));
    } else if (step.next === 'store') going = await task('Store', (s) => storeRow(w.ports, CONFIG, s));
    else going = await task('Review', (s) => reviewRow(w.ports, CONFIG, s));
  }
  steps.push('Complete');
  return { state, report: await completeRow(w.ports, state), steps };
};

const rowOf = async (w: World, row = 1): Promise<RowRecord> => {
  const record = await w.batches.getRow(BATCH, row);
  if (!record) throw new Error(`no row ${row}`);
  return record;
};

/** Records the Idempotency-Key of every creation the pipeline asks for. */
const recordingKeys = (service: ClassificationService) => {
  const keys: string[] = [];
  const wrapped: ClassificationService = {
    ...service,
    createClassification: (body, options) => {
      keys.push(options.idempotencyKey);
      return service.createClassification(body, options);
    },
  };
  return { keys, service: wrapped };
};

/** Occupies the organisation's whole cap, as the web app or another client would. */
const fillCap = async (count = 10) => {
  const other = serviceFor();
  for (let i = 0; i < count; i++) {
    await other.createClassification(
      { operation: 'import', country: 'BR', description: 'Rodamientos de bolas 6204' },
      { idempotencyKey: `someone-else-${String(i).padStart(6, '0')}` },
    );
  }
};

const classificationOf = async (id: string) => Classification.parse(await serviceFor().getClassification(id));

describe('resolved path', () => {
  it('stores the verdict PDF, the result and the cache entry, releases the lease and wakes the batch', async () => {
    const w = makeWorld();
    await seedBatch(w, [{ sku: 'CAF-1', current_ncm: '09012100' }]);

    const { report, steps } = await runRowWorkflow(w, await dispatch(w, 1));

    expect(steps[0]).toBe('Submit');
    expect(steps).toContain('Poll');
    expect(steps.slice(-2)).toEqual(['Store', 'Complete']);
    expect(report).toMatchObject({
      outcome: 'final',
      status: 'resolved',
      changed: true,
      batchComplete: true,
      woke: true,
    });
    const row = await rowOf(w);
    expect(row.status).toBe('resolved');
    expect(row.finished_at).toBeDefined();
    expect(row.result).toMatchObject({
      status: 'resolved',
      classification_id: row.classification_id,
      ncm: '0901.21.00',
      verdict_pdf: 'pdfs/00001-CAF-1.pdf',
      current_ncm_matches: 'yes',
      cost_usd: '2.00',
    });
    const pdf = w.objects.objects.get(`outbox/${BATCH}/pdfs/00001-CAF-1.pdf`);
    expect(pdf?.contentType).toBe('application/pdf');
    expect(new TextDecoder().decode(pdf?.bytes.slice(0, 5))).toBe('%PDF-');
    expect(w.cache.entries.get('sku:CAF-1')).toMatchObject({
      fingerprint: 'fp-1',
      classification_id: row.classification_id,
      pdf_key: `outbox/${BATCH}/pdfs/00001-CAF-1.pdf`,
      batch_id: BATCH,
      result: row.result,
    });
    expect(w.leases.holders.size).toBe(0);
    // Poll frees the slot and kicks as the run leaves in_progress; Complete, freeing nothing, does not.
    expect(w.kick.reasons).toEqual(['slot_freed']);
    expect(w.wakes).toEqual([BATCH]);
    expect(sandbox.stats().billed_usd).toBe(2);
  });
});

describe('Submit', () => {
  it('sends the same key on every retry of an attempt and a new key for a new attempt', async () => {
    const { keys, service } = recordingKeys(serviceFor());
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);

    // The service does the work and the answer is lost, on every try of the client.
    sandbox.setFaults({ reset_after: 1 });
    await expect(submitRow(w.ports, CONFIG, input)).rejects.toBeInstanceOf(TcsNetworkError);
    expect(sandbox.stats().created).toBe(1);

    // The workflow's Retry: the same key finds the same classification.
    sandbox.setFaults({ reset_after: 0 });
    const step = await submitRow(w.ports, CONFIG, input);
    expect(step).toMatchObject({ next: 'wait', wait_seconds: 3 });
    expect(sandbox.stats().created).toBe(1);
    const row = await rowOf(w);
    expect(row).toMatchObject({ status: 'in_progress', classification_id: step.classification_id });

    // Submit run again once the row holds this attempt's classification: it looks at it
    // (no third POST) and keeps the time of the first submission.
    w.clock.advance(5_000);
    expect((await submitRow(w.ports, CONFIG, input)).submitted_at).toBe(step.submitted_at);
    expect(keys).toHaveLength(2);

    // A new attempt is a new key and a new classification (spec, rule 4).
    const second = await submitRow(w.ports, CONFIG, { ...input, attempt: 2, holder: rowHolder(BATCH, 1, 2) });
    expect(second.classification_id).not.toBe(step.classification_id);
    expect(sandbox.stats().created).toBe(2);
    expect(new Set(keys.slice(0, 2)).size).toBe(1);
    expect(keys).toHaveLength(3);
    expect(keys[2]).not.toBe(keys[0]);
    const sent = await classificationOf(step.classification_id!);
    expect(sent.external_reference).toBe(`${BATCH}:1`);
  });

  it('uploads a sheet once per attempt, so a retried Submit sends the same body under the same key', async () => {
    let loseAnswer = true;
    const real = serviceFor();
    const service: ClassificationService = {
      ...real,
      createClassification: async (body, options) => {
        const accepted = await real.createClassification(body, options);
        if (loseAnswer) {
          loseAnswer = false;
          throw new TcsNetworkError('POST /classifications', 'ECONNRESET', 'socket hang up');
        }
        return accepted;
      },
    };
    const w = makeWorld(service);
    await seedBatch(w, [{ sheetBytes: tinyPdf(), external_reference: 'PO-4711' }]);
    const input = await dispatch(w, 1);

    await expect(submitRow(w.ports, CONFIG, input)).rejects.toBeInstanceOf(TcsNetworkError);
    const step = await submitRow(w.ports, CONFIG, input);

    expect(step.next).toBe('wait');
    const stats = sandbox.stats();
    expect(stats.requests_by_route['POST /v1/uploads']).toBe(1);
    expect(stats.created).toBe(1);
    const c = await classificationOf(step.classification_id!);
    expect(c.has_file).toBe(true);
    expect(c.external_reference).toBe('PO-4711');
  });

  it('records another 4xx on the row with its detail and request_id, without retrying', async () => {
    const w = makeWorld();
    await seedBatch(w, [{ country: 'ZZ' }]);

    const { report } = await runRowWorkflow(w, await dispatch(w, 1));

    expect(report).toMatchObject({ outcome: 'final', status: 'error', leaseReleased: true });
    const { result } = await rowOf(w);
    expect(result?.reason).toBe('validation-error');
    expect(result?.detail).toMatch(/country.*\(request_id \S+\)$/);
    expect(sandbox.stats().requests_by_route['POST /v1/classifications']).toBe(1);
  });

  it('a sheet uploaded again under the same key meets idempotency-key-reused, recorded as error', async () => {
    let loseAnswer = true;
    const real = serviceFor();
    const service: ClassificationService = {
      ...real,
      createClassification: async (body, options) => {
        const accepted = await real.createClassification(body, options);
        if (loseAnswer) {
          loseAnswer = false;
          throw new TcsNetworkError('POST /classifications', 'ECONNRESET', 'socket hang up');
        }
        return accepted;
      },
    };
    const w = makeWorld(service);
    await seedBatch(w, [{ sheetBytes: tinyPdf() }]);
    const input = await dispatch(w, 1);
    // Created, answer lost: the row does not know its classification yet.
    await expect(submitRow(w.ports, CONFIG, input)).rejects.toBeInstanceOf(TcsNetworkError);
    // Without the kept upload record a retry would upload again: a new file_url, another body.
    for (const key of await w.objects.list('work/')) w.objects.objects.delete(key);

    const step = await submitRow(w.ports, CONFIG, input);

    expect(step.outcome).toMatchObject({
      kind: 'final',
      result: { status: 'error', reason: 'idempotency-key-reused' },
    });
  });

  it('puts the row back on a 429 with Retry-After as its delay; the next dispatch is a new execution', async () => {
    const { keys, service } = recordingKeys(serviceFor());
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    await fillCap();
    const first = await dispatch(w, 1);

    const { state, report } = await runRowWorkflow(w, first);

    const outcome = (state.step as RowStep).outcome;
    expect(outcome).toMatchObject({ kind: 'requeue', attempt: 1, dispatch: 2, reason: 'rate_limited' });
    const delay = outcome?.kind === 'requeue' ? outcome.delay_seconds : 0;
    // The sandbox's Retry-After is the time until the organisation's first run ends (45–75 s).
    expect(delay).toBeGreaterThanOrEqual(30);
    expect(delay).toBeLessThanOrEqual(75);
    expect(report).toMatchObject({
      outcome: 'requeue',
      status: 'queued',
      leaseReleased: true,
      batchComplete: false,
    });
    expect(await rowOf(w)).toMatchObject({ status: 'queued', attempt: 1, dispatch: 2 });
    expect(w.queue.sent).toEqual([
      { message: { batch_id: BATCH, row: 1, attempt: 1, dispatch: 2 }, delaySeconds: delay },
    ]);
    expect(w.leases.holders.size).toBe(0);
    expect(w.wakes).toEqual([]);
    expect(w.kick.count).toBe(1);
    expect(rowExecutionName({ batch_id: BATCH, row: 1, attempt: 1, dispatch: 2 })).not.toBe(
      rowExecutionName(first),
    );

    // Once the others' runs end, the next dispatch succeeds with the same key.
    sandbox.advanceClock(delay + 1);
    const next = await runRowWorkflow(w, await dispatch(w, 1, 1, 2));
    expect(next.report.status).toBe('resolved');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('a 401 or 403 stops the batch: this row and the next end not_submitted with the Problem’s name', async () => {
    for (const [key, reason] of [
      [sandbox.keys.revoked, 'unauthenticated'],
      [sandbox.keys.plan_without_api, 'plan-without-api'],
    ] as const) {
      sandbox.reset();
      const w = makeWorld(serviceFor(key));
      await seedBatch(w, [{}, {}]);

      const { report } = await runRowWorkflow(w, await dispatch(w, 1));

      expect(report).toMatchObject({ status: 'not_submitted', leaseReleased: true });
      expect((await rowOf(w)).result).toMatchObject({ status: 'not_submitted', reason });
      const batch = await w.batches.getBatch(BATCH);
      expect(batch?.stop?.type).toMatch(new RegExp(`/${reason}$`));

      // Row 2, with a working key even, is not sent: the batch stopped.
      const posted = sandbox.stats().requests_by_route['POST /v1/classifications'];
      expect(posted).toBe(1);
      w.ports.service = serviceFor();
      const second = await runRowWorkflow(w, await dispatch(w, 2));
      expect(second.report.status).toBe('not_submitted');
      expect((await rowOf(w, 2)).result).toMatchObject({ reason, detail: batch?.stop?.detail });
      expect(sandbox.stats().requests_by_route['POST /v1/classifications']).toBe(posted);
      expect(w.wakes).toEqual([BATCH]);
    }
  });

  it('a row already final keeps its result: a late duplicate changes nothing', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const result: RowResult = { status: 'failed', reason: 'unexpected_format', cost_usd: '0.00' };
    await w.batches.updateRow(BATCH, 1, { status: 'failed', result });

    const { report, steps } = await runRowWorkflow(w, input);

    expect(steps).toEqual(['Submit', 'Complete']);
    expect(report).toMatchObject({ outcome: 'final', status: 'failed', changed: false, leaseReleased: true });
    expect((await rowOf(w)).result).toEqual(result);
    expect(sandbox.stats().requests_by_route['POST /v1/classifications'] ?? 0).toBe(0);
  });
});

describe('Poll', () => {
  it('a run far longer than usual goes to the slow path: back in 15 min, looked at, never created again', async () => {
    const { keys, service: recording } = recordingKeys(serviceFor());
    // A classification that never leaves in_progress.
    const service: ClassificationService = {
      ...recording,
      getClassification: async (id, options) => ({
        ...(await recording.getClassification(id, options)),
        status: 'in_progress',
      }),
    };
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const submitted = await submitRow(w.ports, CONFIG, input);
    w.clock.advance(6 * 60 * 60 * 1000 + 1);

    const polled = await pollRow(w.ports, CONFIG, { ...input, step: submitted });

    expect(polled.outcome).toMatchObject({ kind: 'requeue', attempt: 1, dispatch: 2, delay_seconds: 900 });
    await completeRow(w.ports, { ...input, step: polled });
    expect(await rowOf(w)).toMatchObject({ status: 'queued', attempt: 1, dispatch: 2 });
    expect([...w.leases.holders.keys()]).toEqual([]);

    // The next dispatch of the same attempt looks at the same classification: no new POST.
    const again = await submitRow(w.ports, CONFIG, await dispatch(w, 1, 1, 2));
    expect(keys).toHaveLength(1);
    expect(again).toMatchObject({ classification_id: submitted.classification_id, next: 'complete' });
    expect(again.outcome).toMatchObject({ kind: 'requeue', dispatch: 3, delay_seconds: 900 });
  });

  it('hands pending_data to Review: the review item is written and the slot freed', async () => {
    const w = makeWorld();
    // Our clock an hour ahead of the sandbox's (real time): the deadline counts from the
    // service's creation, never from a later moment of ours (a fixed date would pass one day).
    w.clock.set(new Date(Date.now() + 3_600_000).toISOString());
    await seedBatch(w, [{ description: 'Café torrado em grãos [sandbox:ask-provisional]', sku: 'CAF-9' }]);

    const { report, steps } = await runRowWorkflow(w, await dispatch(w, 1));

    expect(steps.slice(-2)).toEqual(['Review', 'Complete']);
    expect(report).toMatchObject({ outcome: 'final', status: 'pending_data' });
    expect(w.leases.holders.size).toBe(0); // freed by Poll when pending_data was seen
    const row = await rowOf(w);
    const c = await classificationOf(row.classification_id!);
    const item = await w.reviews.get(c.id);
    expect(item).toMatchObject({
      batch_id: BATCH,
      row: 1,
      sku: 'CAF-9',
      external_reference: `${BATCH}:1`,
      questions: c.questions,
      state: 'pending',
      abandons_at: new Date(Date.parse(c.created_at) + 30 * 86_400_000).toISOString(),
    });
    expect(item?.questions.length).toBeGreaterThan(0);
    expect(item?.provisional_ncm).toMatch(/^\d{8}$/);
    expect(row.result).toMatchObject({ status: 'pending_data', classification_id: c.id, cost_usd: '0.00' });
    expect(row.result?.questions).toContain(c.questions[0]!.text);
    expect(w.leases.holders.size).toBe(0);

    // A retried Review does not reset an item someone started answering.
    await w.reviews.update(c.id, { state: 'answered' });
    await reviewRow(w.ports, CONFIG, {
      ...(await dispatch(w, 1)),
      step: { next: 'review', classification_id: c.id, submitted_at: row.submitted_at },
    });
    expect((await w.reviews.get(c.id))?.state).toBe('answered');
  });

  it('requeues a transient failure as a new attempt with a new key; that attempt resolves', async () => {
    const { keys, service } = recordingKeys(serviceFor());
    const w = makeWorld(service);
    await seedBatch(w, [{ description: 'Café torrado em grãos [sandbox:fail-once=timed_out]' }]);

    const first = await runRowWorkflow(w, await dispatch(w, 1));

    expect((first.state.step as RowStep).outcome).toEqual({
      kind: 'requeue',
      attempt: 2,
      dispatch: 1,
      delay_seconds: 0,
      reason: 'failed (timed_out); new attempt 2',
    });
    expect(first.report).toMatchObject({ outcome: 'requeue' });
    expect(w.leases.holders.size).toBe(0);
    expect(await rowOf(w)).toMatchObject({ status: 'queued', attempt: 2, dispatch: 1 });
    expect(w.queue.sent.map((s) => s.message)).toEqual([
      { batch_id: BATCH, row: 1, attempt: 2, dispatch: 1 },
    ]);
    // Poll kicked when it freed the slot, before the new attempt was queued; Complete kicks for
    // that message, or it would wait for the schedule.
    expect(w.kick.reasons).toEqual(['slot_freed', 'rows_queued']);

    const second = await runRowWorkflow(w, await dispatch(w, 1, 2, 1));
    expect(second.report.status).toBe('resolved');
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(keys[0]);
    expect(sandbox.stats().billed_usd).toBe(2);
    expect(w.leases.holders.size).toBe(0);
  });

  it('records a permanent failure, and a transient one on the last attempt, as failed', async () => {
    const w = makeWorld();
    await seedBatch(w, [
      { description: 'Café torrado em grãos [sandbox:fail=unexpected_format]' },
      { description: 'Café torrado em grãos [sandbox:fail=timed_out]' },
    ]);

    const permanent = await runRowWorkflow(w, await dispatch(w, 1));
    const exhausted = await runRowWorkflow(w, await dispatch(w, 2, 3, 1));

    expect(permanent.report).toMatchObject({ status: 'failed' });
    expect(w.leases.holders.has(rowHolder(BATCH, 1, 1))).toBe(false);
    expect((await rowOf(w, 1)).result).toMatchObject({
      status: 'failed',
      reason: 'unexpected_format',
      cost_usd: '0.00',
    });
    expect(exhausted.report).toMatchObject({ status: 'failed', batchComplete: true });
    expect(w.leases.holders.size).toBe(0);
    expect((await rowOf(w, 2)).result).toMatchObject({ status: 'failed', reason: 'timed_out' });
    expect(sandbox.stats().billed_usd).toBe(0);
  });

  it('keeps waiting on a status it does not know, and renews the lease', async () => {
    const real = serviceFor();
    const service: ClassificationService = {
      ...real,
      // The sandbox only speaks v1's statuses; a later one must read as "not finished".
      getClassification: async () =>
        Classification.parse(inProgressClassification({ status: 'under_review', stage: null })),
    };
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const submittedAt = w.clock.now().toISOString();
    const before = w.leases.holders.get(input.holder)!;
    w.clock.advance(60_000);

    const step = await pollRow(w.ports, CONFIG, {
      ...input,
      step: {
        next: 'wait',
        wait_seconds: 3,
        classification_id: 'cls_7KQ2M9XW4RTB',
        submitted_at: submittedAt,
      },
    });

    const renewedAt = w.clock.now().toISOString();
    expect(step).toEqual({
      next: 'wait',
      wait_seconds: 3,
      classification_id: 'cls_7KQ2M9XW4RTB',
      submitted_at: submittedAt,
      lease_renewed_at: renewedAt,
    });
    expect(w.leases.holders.get(input.holder)).toBe(before + 60_000);

    // The next polls leave the lease alone until a third of its TTL has gone, then renew it.
    w.clock.advance(CONFIG.leaseTtlMs / 3 - 1);
    const soon = await pollRow(w.ports, CONFIG, { ...input, step });
    expect(soon.lease_renewed_at).toBe(renewedAt);
    expect(w.leases.holders.get(input.holder)).toBe(before + 60_000);
    w.clock.advance(1);
    const later = await pollRow(w.ports, CONFIG, { ...input, step: soon });
    expect(later.lease_renewed_at).toBe(w.clock.now().toISOString());
    expect(w.leases.holders.get(input.holder)).toBe(w.clock.now().getTime() + CONFIG.leaseTtlMs);
  });
});

describe('Complete', () => {
  it('turns a caught error into an error row whose detail keeps no signed URL, token or key', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const cause = JSON.stringify({
      errorType: 'TcsNetworkError',
      errorMessage:
        'GET https://bucket.s3.amazonaws.com/v.pdf?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA failed: ' +
        `Authorization: Bearer ${sandbox.keys.classify} task_token=${TOKEN}\n    at fetch (node:internal)`,
      trace: ['at fetch (node:internal)'],
    });

    const report = await completeRow(w.ports, {
      ...input,
      step: { next: 'wait', wait_seconds: 3, classification_id: 'cls_7KQ2M9XW4RTB', submitted_at: 'x' },
      error: { Error: 'TcsNetworkError', Cause: cause },
    });

    expect(report).toMatchObject({ outcome: 'final', status: 'error', leaseReleased: true, kicked: true });
    const { result } = await rowOf(w);
    expect(result?.status).toBe('error');
    expect(result?.classification_id).toBe('cls_7KQ2M9XW4RTB');
    expect(result?.detail).toMatch(
      /^TcsNetworkError: GET https:\/\/bucket\.s3\.amazonaws\.com\/v\.pdf\?… failed/,
    );
    for (const secret of [
      'X-Amz-Signature',
      'deadbeef',
      sandbox.keys.classify,
      TOKEN,
      'node:internal',
      'trace',
    ]) {
      expect(result?.detail).not.toContain(secret);
    }
    expect(scrubErrorText('plain message\nsecond line')).toBe('plain message');
    const path = 'NoSuchKey: outbox/nightly-7Kq2M9xW4r/pdfs/00001-CAF-1.pdf';
    expect(scrubErrorText(path)).toBe(path);
  });

  it('ends a workflow without outcome or error as an error row', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const report = await completeRow(w.ports, await dispatch(w, 1));
    expect(report.status).toBe('error');
    expect((await rowOf(w)).result?.detail).toBe('row workflow ended without an outcome');
    expect(w.leases.holders.size).toBe(0);
  });

  it('wakes the batch when its last row finishes, once, and a retried Complete changes nothing', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}, {}, {}]);
    const final = (row: number, input: RowExecutionInput) => ({
      ...input,
      step: {
        next: 'complete',
        outcome: { kind: 'final', result: { status: 'failed', reason: `r${row}`, cost_usd: '0.00' } },
      },
    });
    const inputs = [await dispatch(w, 1), await dispatch(w, 2), await dispatch(w, 3)];

    const first = await completeRow(w.ports, final(1, inputs[0]!));
    const second = await completeRow(w.ports, final(2, inputs[1]!));
    expect([first.batchComplete, second.batchComplete]).toEqual([false, false]);
    expect(w.wakes).toEqual([]);

    const last = await completeRow(w.ports, final(3, inputs[2]!));
    expect(last).toMatchObject({ changed: true, batchComplete: true, woke: true });
    expect(w.wakes).toEqual([BATCH]);

    // A retry of the last Complete with another result: the stored one stands, the count
    // stays; it may wake again (it could be the only call left to do it), which the
    // waiters port ignores for a token already woken.
    const retried = await completeRow(w.ports, {
      ...inputs[2]!,
      step: { next: 'complete', outcome: { kind: 'final', result: { status: 'error', detail: 'x' } } },
    });
    expect(retried).toMatchObject({ changed: false, status: 'failed' });
    expect((await rowOf(w, 3)).result?.reason).toBe('r3');
    expect(w.batches.shards.get(`${BATCH}#0`)?.done.size).toBe(3);
    expect(w.waiters.woken).toHaveLength(1);
    expect(w.leases.holders.size).toBe(0);
    // One kick per lease freed: the retry frees none.
    expect(w.kick.count).toBe(3);
  });

  it('a retried requeue does not release the lease the next dispatch of the attempt now holds', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const state = {
      ...input,
      step: {
        next: 'complete',
        outcome: { kind: 'requeue', attempt: 1, dispatch: 2, delay_seconds: 7, reason: 'rate_limited' },
      },
    };
    expect((await completeRow(w.ports, state)).leaseReleased).toBe(true);
    const next = await dispatch(w, 1, 1, 2); // same attempt, so the same holder

    const retried = await completeRow(w.ports, state);

    expect(retried).toMatchObject({ outcome: 'superseded', leaseReleased: false, changed: false });
    expect(w.leases.holders.has(next.holder)).toBe(true);
    expect(await rowOf(w)).toMatchObject({ status: 'submitting', dispatch: 2 });
  });
});

describe('rowExecutionEnded', () => {
  const ended = (
    input: RowExecutionInput,
    status = 'FAILED',
    error: string | null = 'States.TaskFailed',
  ) => ({
    version: '0',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    detail: {
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:row:${rowExecutionName(input)}`,
      status,
      input: JSON.stringify(input),
      error,
      cause: 'something failed',
    },
  });

  it('ends a row whose execution died as error, releases its lease, and is idempotent', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);

    const report = await rowExecutionEnded(w.ports, ended(input));
    const again = await rowExecutionEnded(w.ports, ended(input));

    expect(report).toMatchObject({
      outcome: 'final',
      status: 'error',
      changed: true,
      leaseReleased: true,
      woke: true,
    });
    expect((await rowOf(w)).result?.detail).toBe('Row workflow FAILED: States.TaskFailed');
    expect(again).toMatchObject({ outcome: 'final', status: 'error', changed: false, leaseReleased: false });
    expect(w.waiters.woken).toHaveLength(1);
    // The repeat frees no lease, so it does not kick.
    expect(w.kick.count).toBe(1);
  });

  it('leaves a completed row as it was and says a timeout plainly', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}, {}]);
    const done = await dispatch(w, 1);
    await runRowWorkflow(w, done);
    const timedOut = await dispatch(w, 2);

    const late = await rowExecutionEnded(w.ports, ended(done));
    await rowExecutionEnded(w.ports, ended(timedOut, 'TIMED_OUT', null));

    expect(late).toMatchObject({ status: 'resolved', changed: false });
    expect((await rowOf(w, 1)).result?.status).toBe('resolved');
    expect((await rowOf(w, 2)).result?.detail).toBe('Row workflow TIMED_OUT');
    expect(w.leases.holders.size).toBe(0);
  });

  it('changes nothing when a later dispatch owns the row, and ignores other statuses', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const old = await dispatch(w, 1);
    await w.leases.release(old.holder);
    await dispatch(w, 1, 1, 2);

    expect(await rowExecutionEnded(w.ports, ended(old, 'ABORTED'))).toMatchObject({
      outcome: 'superseded',
      changed: false,
    });
    expect(await rowExecutionEnded(w.ports, ended(old, 'SUCCEEDED'))).toBeNull();
    expect(await rowOf(w)).toMatchObject({ status: 'submitting', dispatch: 2 });
    expect(w.leases.holders.has(old.holder)).toBe(true);
  });
});

describe('answers round', () => {
  const ROUND = `${BATCH}~k3Jd9QwZ`;
  const ROUND_TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAround-task-token-secret';

  /** Counts the answers POSTs and their keys. */
  const recordingAnswers = (service: ClassificationService) => {
    const keys: string[] = [];
    const wrapped: ClassificationService = {
      ...service,
      answerQuestions: (id, body, options) => {
        keys.push(options.idempotencyKey);
        return service.answerQuestions(id, body, options);
      },
    };
    return { keys, service: wrapped };
  };

  /** A row left pending_data by the batch's run: its classification asks questions. */
  const pendingRow = async (w: World, description = 'Café torrado em grãos [sandbox:ask=2]') => {
    await seedBatch(w, [{ description, sku: 'CAF-Q' }]);
    const first = await runRowWorkflow(w, await dispatch(w, 1));
    expect(first.report.status).toBe('pending_data');
    const row = await rowOf(w);
    const item = await w.reviews.get(row.classification_id!);
    if (!item) throw new Error('no review item');
    return { row, item };
  };

  /** What PrepareAnswers does for one answered row: the round record, the row back to queued. */
  const takeIntoRound = async (
    w: World,
    row: RowRecord,
    answers: { question_id: string; answer: string }[],
  ) => {
    await openRound(w.batches, {
      batchId: BATCH,
      roundId: ROUND,
      rows: 1,
      taskToken: ROUND_TOKEN,
      fileName: 'review.csv',
      now: w.clock.now(),
    });
    await w.batches.updateRow(BATCH, row.row, {
      status: 'queued',
      dispatch: 1,
      round: {
        round_id: ROUND,
        answers,
        answers_key: deriveAnswersKey(row.classification_id!, answers),
        answered_by: 'ana@example.com',
        answered_at: w.clock.now().toISOString(),
      },
    });
  };

  /** The dispatcher's part for a round's row: the round's own holder, the message's round_id. */
  const dispatchRound = (w: World, row: number, dispatchNo = 1) => dispatch(w, row, 1, dispatchNo, ROUND);

  const answersTo = (item: { questions: { id: string }[] }) =>
    item.questions.map((q, i) => ({ question_id: q.id, answer: `Grãos torrados, resposta ${i + 1}` }));

  it('posts the answers once under the answers key, resolves the row and counts it on the round', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    const answers = answersTo(item);
    await takeIntoRound(w, row, answers);
    const input = await dispatchRound(w, 1);

    const { report, steps } = await runRowWorkflow(w, input);

    expect(steps[0]).toBe('Submit');
    expect(steps.slice(-2)).toEqual(['Store', 'Complete']);
    expect(keys).toEqual([deriveAnswersKey(row.classification_id!, answers)]);
    expect(report).toMatchObject({ outcome: 'final', status: 'resolved', batchComplete: true, woke: true });
    // The batch was woken by its own run; the round by this one.
    expect(w.wakes).toEqual([BATCH, ROUND]);
    const after = await rowOf(w);
    expect(after).toMatchObject({ status: 'resolved', classification_id: row.classification_id });
    expect(after.round?.posted_at).toBeDefined();
    expect(after.result).toMatchObject({
      status: 'resolved',
      cost_usd: '2.00',
      verdict_pdf: expect.stringMatching(/^pdfs\//),
    });
    expect(w.leases.holders.size).toBe(0);
    expect(sandbox.stats().billed_usd).toBe(2);
    const c = await classificationOf(row.classification_id!);
    expect(c.answers.map((a) => a.answer)).toEqual(answers.map((a) => a.answer));

    // A late duplicate of the round's execution: the row's result stands, nothing is posted.
    const late = await submitRow(w.ports, CONFIG, input);
    expect(late.outcome).toMatchObject({ kind: 'final', result: { status: 'resolved' } });
    expect(keys).toHaveLength(1);
    expect(sandbox.stats().billed_usd).toBe(2);
  });

  it('a second dispatch after the answers went in looks at the classification instead of posting again', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    const first = await submitRow(w.ports, CONFIG, await dispatchRound(w, 1));
    expect(first).toMatchObject({ next: 'wait', classification_id: row.classification_id });

    w.clock.advance(2_000);
    const again = await submitRow(w.ports, CONFIG, await dispatchRound(w, 1, 2));
    expect(again).toMatchObject({ next: 'wait', submitted_at: first.submitted_at });
    expect(keys).toHaveLength(1);
  });

  it('follows a classification answered elsewhere (409 conflict) to its verdict, billed once', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    // Someone answers in the web app first.
    await serviceFor().answerQuestions(
      row.classification_id!,
      { answers: item.questions.map((q) => ({ question_id: q.id, answer: 'Café torrado em grãos' })) },
      { idempotencyKey: 'web-app-answer-0000001' },
    );

    const { report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect(keys).toHaveLength(1); // refused with 409 conflict, then followed
    expect(report).toMatchObject({ status: 'resolved', woke: true });
    expect(sandbox.stats().billed_usd).toBe(2);
    expect(w.leases.holders.size).toBe(0);
  });

  it('a 429 puts the row back in its round, with its round id, under the round’s lease holder', async () => {
    const w = makeWorld();
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    await fillCap();

    const { state, report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect((state.step as RowStep).outcome).toMatchObject({
      kind: 'requeue',
      reason: 'rate_limited',
      dispatch: 2,
    });
    expect(report).toMatchObject({ outcome: 'requeue', leaseReleased: true });
    expect(w.queue.sent.at(-1)?.message).toEqual({
      batch_id: BATCH,
      row: 1,
      attempt: 1,
      dispatch: 2,
      round_id: ROUND,
    });
    expect(await rowOf(w)).toMatchObject({ status: 'queued', dispatch: 2, round: { round_id: ROUND } });
    expect(w.leases.holders.size).toBe(0);
  });

  it('answers the round cannot send (a stop on the round) leave the row pending_data, saying why', async () => {
    const { keys, service } = recordingAnswers(serviceFor());
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    await w.batches.recordStop(ROUND, {
      type: 'https://api.example.com/problems/plan-without-api',
      title: 'Plan without API',
      detail: 'The plan has no API access.',
      at: w.clock.now().toISOString(),
    });

    const { report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect(keys).toHaveLength(0);
    expect(report).toMatchObject({ outcome: 'final', status: 'pending_data', woke: true });
    const after = await rowOf(w);
    expect(after.result).toMatchObject({
      status: 'pending_data',
      classification_id: row.classification_id,
      questions: row.result?.questions,
    });
    expect(after.result?.detail).toMatch(
      /^answers not sent \(plan-without-api: The plan has no API access\.\)/,
    );
    // The batch's own record keeps no stop: its earlier verdicts stand.
    expect((await w.batches.getBatch(BATCH))?.stop).toBeUndefined();
  });

  it('a transient failure of the run after the answers is final: a new attempt would ask again', async () => {
    const real = serviceFor();
    let failing = false;
    const service: ClassificationService = {
      ...real,
      getClassification: async (id, options) => {
        const c = await real.getClassification(id, options);
        return failing ? { ...c, status: 'failed', failure_reason: 'timed_out' } : c;
      },
    };
    const w = makeWorld(service);
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    failing = true;

    const { report } = await runRowWorkflow(w, await dispatchRound(w, 1));

    expect(report).toMatchObject({ outcome: 'final', status: 'failed', woke: true });
    expect((await rowOf(w)).result).toMatchObject({
      status: 'failed',
      reason: 'timed_out',
      cost_usd: '0.00',
    });
    expect(w.queue.sent).toHaveLength(0);
  });

  it('a round execution that died ends the row as error and counts it on the round', async () => {
    const w = makeWorld();
    const { row, item } = await pendingRow(w);
    await takeIntoRound(w, row, answersTo(item));
    const input = await dispatchRound(w, 1);

    const report = await rowExecutionEnded(w.ports, {
      detail: { status: 'TIMED_OUT', input: JSON.stringify(input) },
    });

    expect(report).toMatchObject({ outcome: 'final', status: 'error', woke: true, leaseReleased: true });
    expect(w.wakes.at(-1)).toBe(ROUND);
  });
});
