/**
 * Prepare: the first task of the Batch workflow. It records the batch once, reads batch.json and
 * the input file, plans every row (row-plans.ts), writes the rows, then queues the ones to
 * classify and kicks the dispatcher. A batch that cannot start fails here, before anything is
 * queued or billed.
 */
import { z } from 'zod';
import { columnUses, inputWarnings, type MappedRow, outputDelimiterFor } from '../../spreadsheet/index.js';
import { batchNameOfFolder, outboxKey } from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import {
  type BatchOptions,
  BatchRecord,
  type BatchStop,
  type RowMessage,
  type RowRecord,
  type RowResult,
  shardOfRow,
} from '../core/records.js';
import { notSubmittedResult, stoppedResult } from '../core/row-results.js';
import { isBatchStopError, stopFromProblem } from '../core/service-stop.js';
import { readBatchOptions } from './batch-options.js';
import { buildPlan, buildPlanCsv, PLAN_FILES, type PlanRowContext } from './batch-plan.js';
import { batchSourceFromEvent } from './batch-source.js';
import { readInputFile, resolveInputSource } from './input-file.js';
import { CSV_CONTENT_TYPE } from './results-files.js';
import { planRecords, planRows, readCachedVerdicts } from './row-plans.js';
import { rowNotes, rowWarnings } from './row-warnings.js';

export const PrepareInput = z.object({ event: z.unknown(), execution_id: z.string().min(1) });
export type PrepareInput = z.infer<typeof PrepareInput>;

export const PrepareResult = z.object({
  batch_id: z.string().nullable(),
  /**
   * `skip`: a duplicate delivery or not a batch file. `finalize`: nothing to wait for.
   * `planned`: a plan-only batch; its plan is in the outbox and nothing else happens.
   */
  next: z.enum(['wait', 'finalize', 'skip', 'planned']),
});
export type PrepareResult = z.infer<typeof PrepareResult>;

export type PreparePorts = Pick<
  PipelinePorts,
  'clock' | 'service' | 'objects' | 'queue' | 'batches' | 'cache' | 'kick'
>;

/** The input file's shape as the batch records it, for its output files. */
type FileShape = Pick<BatchRecord, 'header' | 'delimiter' | 'columns' | 'warnings'> & {
  format: BatchRecord['format'];
};

export const prepareBatch = async (ports: PreparePorts, rawInput: PrepareInput): Promise<PrepareResult> => {
  const input = PrepareInput.parse(rawInput);
  const found = batchSourceFromEvent(input.event);
  if (!found) return { batch_id: null, next: 'skip' };
  const { batchId } = found;

  const now = ports.clock.now().toISOString();
  const source = (await resolveInputSource(ports.objects, found.source)) ?? found.source;
  const name = batchNameOfFolder(source.folder);
  const record = BatchRecord.parse({
    batch_id: batchId,
    name,
    source,
    execution_id: input.execution_id,
    state: 'preparing',
    started_at: now,
  });
  const created = await ports.batches.createBatch(record);
  if (created.created) return prepareRows(ports, record);

  const existing = created.existing;
  if (existing.execution_id !== input.execution_id) return { batch_id: batchId, next: 'skip' };
  if (existing.state !== 'preparing') return resumePreparedBatch(ports, existing);
  return prepareRows(ports, existing);
};

/** A retried Prepare after the batch was written: send the still-queued rows again, nothing else. */
const resumePreparedBatch = async (ports: PreparePorts, batch: BatchRecord): Promise<PrepareResult> => {
  if (batch.state !== 'running' || batch.rows_dispatched === 0) {
    return { batch_id: batch.batch_id, next: 'finalize' };
  }
  const messages: { message: RowMessage }[] = [];
  for await (const row of ports.batches.listRows(batch.batch_id)) {
    if (row.status === 'queued') {
      messages.push({
        message: { batch_id: row.batch_id, row: row.row, attempt: row.attempt, dispatch: row.dispatch },
      });
    }
  }
  if (messages.length > 0) await ports.queue.send(messages);
  await ports.kick.kick('rows_queued');
  return { batch_id: batch.batch_id, next: 'wait' };
};

/**
 * batch.json, the input file, the countries the service accepts, then every row planned and
 * written. Any of the first three failing fails the batch.
 */
const prepareRows = async (ports: PreparePorts, batch: BatchRecord): Promise<PrepareResult> => {
  const { objects } = ports;
  const now = ports.clock.now();
  const at = now.toISOString();
  const source = batch.source;

  const optionsRead = await readBatchOptions(objects, source.folder);
  const fileRead = await readInputFile(objects, source);
  const read = 'read' in fileRead ? fileRead.read : null;
  const shape: FileShape = read
    ? {
        header: read.header,
        delimiter: outputDelimiterFor(read),
        format: read.format,
        columns: columnUses(read.header, read.columns),
        warnings: inputWarnings(read),
      }
    : { header: [], delimiter: ',' as const, format: undefined, columns: [], warnings: [] };

  const readProblems = read ? read.problems.map((problem) => problem.message) : [];
  const fail = (stop: BatchStop, problems: string[], rowResult: RowResult | null) =>
    failBatch(ports, batch, {
      stop,
      problems: [...problems, ...readProblems],
      rows: read && rowResult ? read.rows : [],
      rowResult,
      shape,
    });

  if ('problem' in optionsRead) {
    const problems = [optionsRead.problem, ...('problem' in fileRead ? [fileRead.problem] : [])];
    const stop = { type: 'invalid_options', title: 'Invalid batch.json', detail: optionsRead.problem, at };
    const rowResult = notSubmittedResult('invalid_options', `No row was submitted: ${optionsRead.problem}`);
    return fail(stop, problems, rowResult);
  }
  const options = optionsRead.options;
  if (!read) {
    const problem = 'problem' in fileRead ? fileRead.problem : '';
    const code = 'code' in fileRead ? fileRead.code : 'file_unreadable';
    return fail({ type: code, title: 'The input file cannot be read', detail: problem, at }, [problem], null);
  }

  const countries = await readAcceptedCountries(ports, now);
  if ('stop' in countries) return fail(countries.stop, [countries.problem], stoppedResult(countries.stop));

  const plans = await planRows(ports, read, options, countries.accepted, source.folder);
  const cached = await readCachedVerdicts(ports, plans, options);
  const { records, budgetProblem } = planRecords(batch.batch_id, plans, { options, cached, now });
  const problems = [...readProblems, ...(budgetProblem === null ? [] : [budgetProblem])];
  const descriptionHeader = read.columns.fields.description?.header;
  const warnings = [...(shape.warnings ?? []), ...rowWarnings(plans, descriptionHeader)];
  const planned = { records, options, shape: { ...shape, warnings }, problems };
  if (options.plan_only) {
    const fields = new Map(plans.map((plan) => [plan.mapped.row, plan.mapped.fields]));
    const notes = rowNotes(plans);
    return writePlanOnly(ports, batch, planned, {
      fieldsOf: (row) => fields.get(row),
      noteOf: (row) => notes.get(row),
    });
  }
  return queueRows(ports, batch, planned);
};

/** The codes of the countries the service accepts, or the stop when it refuses the key. */
const readAcceptedCountries = async (
  ports: Pick<PreparePorts, 'service'>,
  now: Date,
): Promise<{ accepted: ReadonlySet<string> } | { stop: BatchStop; problem: string }> => {
  try {
    return { accepted: new Set((await ports.service.listCountries()).map((country) => country.code)) };
  } catch (error) {
    // 401/403 stop the batch (README): nothing can be submitted with this key or plan.
    if (!isBatchStopError(error)) throw error;
    return { stop: stopFromProblem(error, now), problem: `The service refused the batch: ${error.message}` };
  }
};

/**
 * The rows written, the batch `running` with its counts, then the queued rows sent and the
 * dispatcher kicked. Nothing queued: straight to Finalize.
 */
const queueRows = async (
  ports: PreparePorts,
  batch: BatchRecord,
  planned: { records: RowRecord[]; options: BatchOptions; shape: FileShape; problems: string[] },
): Promise<PrepareResult> => {
  const { records } = planned;
  const queued = records.filter((record) => record.status === 'queued');
  const shards = new Map<number, number>();
  for (const record of queued)
    shards.set(shardOfRow(record.row), (shards.get(shardOfRow(record.row)) ?? 0) + 1);

  await ports.batches.putRows(records);
  await ports.batches.putCompletionShards(batch.batch_id, shards);
  // Before any message: a row finishing early counts against shard_count, which must be final.
  await ports.batches.updateBatch(batch.batch_id, {
    state: 'running',
    options: planned.options,
    ...planned.shape,
    rows_total: records.length,
    rows_dispatched: queued.length,
    shard_count: shards.size,
    problems: planned.problems,
  });
  if (queued.length === 0) return { batch_id: batch.batch_id, next: 'finalize' };
  await ports.queue.send(
    queued.map((record) => ({
      message: { batch_id: batch.batch_id, row: record.row, attempt: 1, dispatch: 1 },
    })),
  );
  await ports.kick.kick('rows_queued');
  return { batch_id: batch.batch_id, next: 'wait' };
};

/**
 * A plan-only batch: plan.json and plan.csv in the outbox, the batch `completed` with its counts,
 * and no row written, queued or sent. `GET /balance` gives the cap the estimate runs at.
 */
const writePlanOnly = async (
  ports: PreparePorts,
  batch: BatchRecord,
  planned: { records: RowRecord[]; options: BatchOptions; shape: FileShape; problems: string[] },
  rowContext: PlanRowContext,
): Promise<PrepareResult> => {
  const now = ports.clock.now();
  const balance = await ports.service.getBalance();
  const { format, ...shape } = planned.shape;
  const plan = buildPlan({
    batch: { ...batch, ...shape },
    records: planned.records,
    options: planned.options,
    problems: planned.problems,
    balance,
    now,
  });
  await ports.objects.put(
    outboxKey(batch.batch_id, PLAN_FILES.csv),
    buildPlanCsv(planned.records, rowContext, shape.delimiter),
    CSV_CONTENT_TYPE,
  );
  // Last, so a plan.json in the outbox means plan.csv is there too.
  await ports.objects.put(
    outboxKey(batch.batch_id, PLAN_FILES.json),
    JSON.stringify(plan, null, 2),
    'application/json',
  );
  await ports.batches.updateBatch(batch.batch_id, {
    state: 'completed',
    options: planned.options,
    ...shape,
    ...(format ? { format } : {}),
    rows_total: planned.records.length,
    rows_dispatched: 0,
    shard_count: 0,
    problems: planned.problems,
    finished_at: now.toISOString(),
  });
  return { batch_id: batch.batch_id, next: 'planned' };
};

/**
 * The batch stops before anything is queued or billed: the stop recorded once, every row the
 * file had stored as `rowResult` (so results.csv still lists them), the batch `failed`.
 */
const failBatch = async (
  ports: PreparePorts,
  batch: BatchRecord,
  failure: {
    stop: BatchStop;
    problems: string[];
    rows: readonly MappedRow[];
    rowResult: RowResult | null;
    shape: FileShape;
  },
): Promise<PrepareResult> => {
  const at = failure.stop.at;
  await ports.batches.recordStop(batch.batch_id, failure.stop);
  const { rowResult } = failure;
  if (rowResult && failure.rows.length > 0) {
    await ports.batches.putRows(
      failure.rows.map(
        (mapped): RowRecord => ({
          batch_id: batch.batch_id,
          row: mapped.row,
          line: mapped.line,
          cells: mapped.cells,
          status: rowResult.status,
          attempt: 1,
          dispatch: 1,
          result: rowResult,
          finished_at: at,
          updated_at: at,
        }),
      ),
    );
  }
  const { format, ...shape } = failure.shape;
  await ports.batches.updateBatch(batch.batch_id, {
    state: 'failed',
    ...shape,
    ...(format ? { format } : {}),
    rows_total: rowResult ? failure.rows.length : 0,
    rows_dispatched: 0,
    shard_count: 0,
    problems: failure.problems,
  });
  return { batch_id: batch.batch_id, next: 'finalize' };
};
