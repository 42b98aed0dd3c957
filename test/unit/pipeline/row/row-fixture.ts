/**
 * What the Row workflow's task tests share: the sandbox, a world of in-memory ports, a running
 * batch seeded with rows, the dispatcher's part before StartExecution, and `runRowWorkflow`,
 * which plays the state machine the way the ASL does: task results at `$.step`, a thrown error
 * caught into `$.error`, every path ending in Complete. Waits advance the sandbox clock and the
 * pipeline clock instead of sleeping.
 */
import { expect } from 'vitest';
import { deriveRowKey, sha256Hex } from '../../../../shared/pipeline/core/keys.js';
import type { ClassificationService } from '../../../../shared/pipeline/core/ports.js';
import {
  BatchRecord,
  type RowExecutionInput,
  RowRecord,
  type RowStep,
} from '../../../../shared/pipeline/core/records.js';
import { rowHolder } from '../../../../shared/pipeline/dispatch/execution-names.js';
import { type CompleteReport, completeRow } from '../../../../shared/pipeline/row/complete.js';
import { pollRow } from '../../../../shared/pipeline/row/poll.js';
import { reviewRow } from '../../../../shared/pipeline/row/review.js';
import type { RowStepConfig } from '../../../../shared/pipeline/row/row-state.js';
import { storeRow } from '../../../../shared/pipeline/row/store.js';
import { submitRow } from '../../../../shared/pipeline/row/submit.js';
import { ProductRow } from '../../../../shared/spreadsheet/schemas.js';
import { Classification } from '../../../../shared/tcs/schemas.js';
import { sandbox, serviceFor, startSandboxPerFile, type World } from '../../../helpers/sandbox-world.js';

export type { World } from '../../../helpers/sandbox-world.js';

export const BATCH = 'nightly-7Kq2M9xW4r';
export const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAbatch-task-token-secret';
export const CONFIG: RowStepConfig = { leaseTtlMs: 10 * 60_000 };
const COFFEE = 'Café torrado em grãos, embalagem de 1 kg';

/** Registers the file's sandbox hooks; every Row task test file calls it once at its top. */
export const startRowSandbox = () => startSandboxPerFile('row-steps');

type RowSpec = Partial<ProductRow> & { sheetBytes?: Uint8Array };

/** A running batch whose rows were all dispatched, its workflow waiting on TOKEN. */
export const seedBatch = async (w: World, specs: RowSpec[]) => {
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
export const dispatch = async (
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
  w.batches.placeRow(BATCH, row, { status: 'submitting', attempt, dispatch: dispatchNo });
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
export const runRowWorkflow = async (
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
  let going = await task('Submit', (s) => submitRow(w.ports, s));
  while (going) {
    const step = state.step as RowStep;
    if (step.next === 'complete') break;
    if (steps.length > 200) throw new Error('the row never finished');
    if (step.next === 'wait') {
      sandbox.advanceClock(step.wait_seconds ?? 1);
      w.clock.advance((step.wait_seconds ?? 1) * 1000);
      going = await task('Poll', (s) => pollRow(w.ports, CONFIG, s));
    } else if (step.next === 'store') going = await task('Store', (s) => storeRow(w.ports, s));
    else going = await task('Review', (s) => reviewRow(w.ports, s));
  }
  steps.push('Complete');
  return { state, report: await completeRow(w.ports, state), steps };
};

export const rowOf = async (w: World, row = 1): Promise<RowRecord> => {
  const record = await w.batches.getRow(BATCH, row);
  if (!record) throw new Error(`no row ${row}`);
  return record;
};

/** Records the Idempotency-Key of every creation the pipeline asks for. */
export const recordingKeys = (service: ClassificationService) => {
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
export const fillCap = async (count = 10) => {
  const other = serviceFor();
  for (let i = 0; i < count; i++) {
    await other.createClassification(
      { operation: 'import', country: 'BR', description: 'Rodamientos de bolas 6204' },
      { idempotencyKey: `someone-else-${String(i).padStart(6, '0')}` },
    );
  }
};

export const classificationOf = async (id: string) =>
  Classification.parse(await serviceFor().getClassification(id));
