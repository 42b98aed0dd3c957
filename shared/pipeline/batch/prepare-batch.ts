import { z } from 'zod';
import {
  type ColumnMapping,
  type MappedRow,
  normaliseRow,
  outputDelimiterFor,
  type ProductRow,
  type RowRejection,
  readSpreadsheet,
  SpreadsheetError,
  type SpreadsheetRead,
} from '../../spreadsheet/index.js';
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import { batchNameOfFolder } from '../core/bucket-layout.js';
import type { ObjectStore, PipelinePorts } from '../core/ports.js';
import {
  BatchOptions,
  BatchRecord,
  type BatchSource,
  type BatchStop,
  type CachedVerdict,
  type RowMessage,
  type RowRecord,
  type RowResult,
  type SheetRef,
  shardOfRow,
} from '../core/records.js';
import { notSubmittedResult, stoppedResult } from '../core/row-results.js';
import { isBatchStopError, stopFromProblem } from '../core/service-stop.js';
import { batchSourceFromEvent, inputKeyCandidates, sourceForKey } from './batch-source.js';
import { type ProductIdentity, productIdentity, reusableVerdict, reusedResult } from './reuse.js';
import { type SheetProblem, sheetChecker } from './sheet-checker.js';

export const PrepareInput = z.object({ event: z.unknown(), execution_id: z.string().min(1) });
export type PrepareInput = z.infer<typeof PrepareInput>;

export const PrepareResult = z.object({
  batch_id: z.string().nullable(),
  /** `skip`: a duplicate delivery or not a batch file. `finalize`: nothing to wait for. */
  next: z.enum(['wait', 'finalize', 'skip']),
});
export type PrepareResult = z.infer<typeof PrepareResult>;

export type PreparePorts = Pick<
  PipelinePorts,
  'clock' | 'service' | 'objects' | 'queue' | 'batches' | 'cache' | 'kick'
>;

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

// ---------------------------------------------------------------------------
// The input object
// ---------------------------------------------------------------------------

/**
 * The spelling of the event's key that exists in the bucket: as given, then form-decoded
 * (see batch-source.ts). Null when neither exists (deleted since the event).
 */
export const resolveInputSource = async (
  objects: Pick<ObjectStore, 'head'>,
  source: BatchSource,
): Promise<BatchSource | null> => {
  for (const key of inputKeyCandidates(source.key)) {
    const candidate = sourceForKey(key, source);
    if (candidate && (await objects.head(key))) return candidate;
  }
  return null;
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

// ---------------------------------------------------------------------------
// batch.json
// ---------------------------------------------------------------------------

export type OptionsRead = { options: BatchOptions } | { problem: string };

const ACCEPTED_OPTION_FIELDS = Object.keys(BatchOptions.shape).join(', ');

/** Every issue in one sentence, naming each field, so one fix of the file is enough. */
const describeOptionIssues = (key: string, error: z.ZodError): string => {
  const parts = error.issues.map((issue) => {
    if (issue.code === 'unrecognized_keys') {
      const fields = issue.keys.map((field) => `"${field}"`).join(', ');
      return `unknown field ${fields} (accepted fields: ${ACCEPTED_OPTION_FIELDS})`;
    }
    if (issue.path.length === 0) return `must be a JSON object of options: ${issue.message}`;
    return `field "${issue.path.join('.')}": ${issue.message}`;
  });
  return `${key} is invalid: ${parts.join('; ')}.`;
};

/** `inbox/<name>/batch.json`: absent ⇒ the defaults; unparsable or invalid ⇒ a problem sentence. */
export const readBatchOptions = async (
  objects: Pick<ObjectStore, 'getBytes'>,
  folder: string,
): Promise<OptionsRead> => {
  const key = `${folder}batch.json`;
  const bytes = await objects.getBytes(key);
  if (bytes === null) return { options: BatchOptions.parse({}) };
  const text = new TextDecoder('utf-8').decode(bytes).replace(/^\uFEFF/, '');
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    const reason = text.trim() === '' ? 'the file is empty' : (error as Error).message;
    return { problem: `${key} is not valid JSON (${reason}); write an object such as {"country": "BR"}.` };
  }
  const parsed = BatchOptions.safeParse(json);
  return parsed.success ? { options: parsed.data } : { problem: describeOptionIssues(key, parsed.error) };
};

// ---------------------------------------------------------------------------
// Sheets
// ---------------------------------------------------------------------------

const sheetRejection = (product: ProductRow, columns: ColumnMapping, failure: SheetProblem): RowRejection => {
  const detail = `Column "${columns.fields.sheet?.header ?? 'sheet'}": "${product.sheet}" ${failure.why}.`;
  return {
    row: product.row,
    reason: failure.reason,
    column: 'sheet',
    detail,
    issues: [{ reason: failure.reason, column: 'sheet', detail }],
  };
};

// ---------------------------------------------------------------------------
// Rows
// ---------------------------------------------------------------------------

/** What each row comes to at Prepare, before it is written. */
type RowPlan =
  | { kind: 'rejected'; mapped: MappedRow; rejection: RowRejection }
  | {
      kind: 'valid';
      mapped: MappedRow;
      product: ProductRow;
      sheet: SheetRef | null;
      identity: ProductIdentity;
    };

const rejectedResult = (rejection: RowRejection): RowResult => ({
  status: 'rejected',
  reason: rejection.reason,
  // Every issue of the row, so one round of fixes is enough; each names the column as written.
  detail: rejection.issues.map((issue) => issue.detail).join(' '),
  cost_usd: '0.00',
});

const prepareRows = async (ports: PreparePorts, batch: BatchRecord): Promise<PrepareResult> => {
  const { objects } = ports;
  const now = ports.clock.now();
  const at = now.toISOString();
  const source = batch.source;

  const optionsRead = await readBatchOptions(objects, source.folder);
  const fileRead = await readInputFile(objects, source);
  const read = 'read' in fileRead ? fileRead.read : null;
  const shape = read
    ? { header: read.header, delimiter: outputDelimiterFor(read), format: read.format }
    : { header: [], delimiter: ',' as const, format: undefined };

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

  let acceptedCountries: ReadonlySet<string>;
  try {
    acceptedCountries = new Set((await ports.service.listCountries()).map((country) => country.code));
  } catch (error) {
    // 401/403 stop the batch (README): nothing can be submitted with this key or plan.
    if (!isBatchStopError(error)) throw error;
    const stop = stopFromProblem(error, now);
    return fail(stop, [`The service refused the batch: ${error.message}`], stoppedResult(stop));
  }

  const plans = await planRows(ports, read, options, acceptedCountries, source.folder);
  const cached = await readCache(ports, plans, options);

  const budget =
    options.max_usd === undefined
      ? Number.POSITIVE_INFINITY
      : Math.floor(options.max_usd / PRICE_PER_RESOLVED_USD + 1e-9);
  const budgetDetail =
    `The batch budget (max_usd ${options.max_usd} in batch.json) covers ${budget} ` +
    `classification(s) at USD ${PRICE_PER_RESOLVED_USD.toFixed(2)}; this row came after them and was not submitted.`;

  const records: RowRecord[] = [];
  let dispatched = 0;
  let overBudget = 0;
  for (const plan of plans) {
    const base = {
      batch_id: batch.batch_id,
      row: plan.mapped.row,
      line: plan.mapped.line,
      cells: plan.mapped.cells,
      attempt: 1,
      dispatch: 1,
      updated_at: at,
    };
    if (plan.kind === 'rejected') {
      const result = rejectedResult(plan.rejection);
      records.push({ ...base, status: 'rejected', rejection: plan.rejection, result, finished_at: at });
      continue;
    }
    const valid = {
      ...base,
      product: plan.product,
      ...(plan.sheet ? { sheet: plan.sheet } : {}),
      product_key: plan.identity.product_key,
      fingerprint: plan.identity.fingerprint,
    };
    const reuse = reusableVerdict({
      options,
      identity: plan.identity,
      cached: cached.get(plan.identity.product_key),
      now,
    });
    if (reuse.verdict) {
      const result = reusedResult(reuse.verdict, plan.product);
      records.push({
        ...valid,
        status: 'reused',
        classification_id: reuse.verdict.classification_id,
        result,
        finished_at: at,
      });
    } else if (dispatched < budget) {
      dispatched += 1;
      records.push({ ...valid, status: 'queued' });
    } else {
      overBudget += 1;
      const result = notSubmittedResult('budget_exceeded', budgetDetail);
      records.push({ ...valid, status: 'not_submitted', result, finished_at: at });
    }
  }

  const queued = records.filter((record) => record.status === 'queued');
  const shards = new Map<number, number>();
  for (const record of queued)
    shards.set(shardOfRow(record.row), (shards.get(shardOfRow(record.row)) ?? 0) + 1);

  const problems = [...readProblems];
  if (overBudget > 0) {
    problems.push(
      `The budget of USD ${options.max_usd} (batch.json max_usd) covers ${budget} classification(s); ` +
        `${overBudget} row(s) after them were not submitted (budget_exceeded).`,
    );
  }

  await ports.batches.putRows(records);
  await ports.batches.putCompletionShards(batch.batch_id, shards);
  // Before any message: a row finishing early counts against shard_count, which must be final.
  await ports.batches.updateBatch(batch.batch_id, {
    state: 'running',
    options,
    ...shape,
    rows_total: records.length,
    rows_dispatched: queued.length,
    shard_count: shards.size,
    problems,
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

type FileRead = { read: SpreadsheetRead } | { problem: string; code: string };

const readInputFile = async (objects: ObjectStore, source: BatchSource): Promise<FileRead> => {
  const bytes = await objects.getBytes(source.key);
  if (bytes === null) {
    return {
      code: 'file_not_found',
      problem: `${source.file_name}: the file ${source.key} is no longer in the bucket; upload it again.`,
    };
  }
  try {
    return { read: await readSpreadsheet(bytes, source.file_name) };
  } catch (error) {
    // Its message names the file, then the line and column, for the person who uploaded it.
    if (error instanceof SpreadsheetError) return { code: error.code, problem: error.message };
    throw error;
  }
};

/** Validation of every row, then of the sheets the valid rows name. */
const planRows = async (
  ports: Pick<PreparePorts, 'objects'>,
  read: SpreadsheetRead,
  options: BatchOptions,
  acceptedCountries: ReadonlySet<string>,
  folder: string,
): Promise<RowPlan[]> => {
  const checkSheet = sheetChecker(ports.objects, folder, `the batch folder ${folder}`);
  const defaults = {
    ...(options.operation ? { operation: options.operation } : {}),
    ...(options.country ? { country: options.country } : {}),
  };
  const plans: RowPlan[] = [];
  for (const mapped of read.rows) {
    const outcome = normaliseRow(mapped, defaults, acceptedCountries, read.columns);
    if (outcome.status === 'rejected') {
      plans.push({ kind: 'rejected', mapped, rejection: outcome.rejection });
      continue;
    }
    const product = outcome.product;
    let sheet: SheetRef | null = null;
    if (product.sheet !== null) {
      const checked = await checkSheet(product.sheet);
      if (!('sheet' in checked)) {
        plans.push({ kind: 'rejected', mapped, rejection: sheetRejection(product, read.columns, checked) });
        continue;
      }
      sheet = checked.sheet;
    }
    plans.push({
      kind: 'valid',
      mapped,
      product,
      sheet,
      identity: productIdentity(product, sheet?.sha256 ?? null),
    });
  }
  return plans;
};

/** One cache read for the whole batch; none when the batch reclassifies everything. */
const readCache = async (
  ports: Pick<PreparePorts, 'cache'>,
  plans: readonly RowPlan[],
  options: BatchOptions,
): Promise<Map<string, CachedVerdict>> => {
  if (options.reclassify === 'all') return new Map();
  const keys = [
    ...new Set(plans.flatMap((plan) => (plan.kind === 'valid' ? [plan.identity.product_key] : []))),
  ];
  return keys.length === 0 ? new Map() : ports.cache.getMany(keys);
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
    shape: Pick<BatchRecord, 'header' | 'delimiter'> & { format: BatchRecord['format'] };
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
