/**
 * Prepare: the first task of the Batch workflow. It records the batch once, reads batch.json and
 * the input file, plans every row, writes the rows, then sends the first window of the ones to
 * classify to the rows queue (the dispatcher sends the rest as it drains), sizes how long the
 * workflow waits for them, and kicks the dispatcher. In exposure order (the default) the first
 * window goes before the other rows are stored (first-places.ts). A batch that
 * cannot start fails here, before anything is queued or billed. The file is streamed, a chunk of
 * rows at a time: memory does not grow with it.
 */
import { Readable } from 'node:stream';
import * as z from 'zod';
import { tableInForce } from '../../ncm-table/reference-table.js';
import { columnUses, fieldColumnUses } from '../../spreadsheet/input-report.js';
import { outputDelimiterFor, streamCsv } from '../../spreadsheet/write-csv.js';
import { message } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import { batchNameOfFolder, outboxKey } from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import { BatchRecord, type BatchStop, PrepareResult, shardOfRow } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { notSubmittedResult, stoppedResult } from '../core/row-results.js';
import { isBatchStopError, stopFromProblem } from '../core/service-stop.js';
import { openWindowInSendOrder } from '../dispatch/rows-window.js';
import { CSV_CONTENT_TYPE } from '../outbox/results-files.js';
import { batchSender } from '../people/batch-sender.js';
import { readBatchOptions } from './batch-options.js';
import {
  buildPlan,
  capOf,
  DEFAULT_DEPLOYMENT,
  MIN_WAIT_SECONDS,
  PLAN_CSV_COLUMNS,
  PLAN_FILES,
  type PrepareDeployment,
  planCsvRows,
  planTally,
  waitSecondsFor,
} from './batch-plan.js';
import { batchSourceFromEvent } from './batch-source.js';
import { bornRowsCounter } from './born-rows.js';
import { failBatch } from './fail-batch.js';
import { countBatch, exposureBudget, type InBudget } from './first-places.js';
import { firstWindowCollector, sendFirstWindow, sendWindowAgain } from './first-window.js';
import { type FileProblem, openInputFile, resolveInputSource } from './input-file.js';
import {
  type FileShape,
  type PlannedBatch,
  PREPARE_SETTINGS,
  type PrepareSettings,
  recordChunks,
  rowValueCents,
  surveyRows,
} from './prepare-passes.js';
import { reusedCheckWriter } from './reused-checks.js';
import { reusedSimWatchWriter } from './reused-sim-watches.js';
import { rowPlanner, rowRecordPlanner } from './row-plans.js';
import { rowNotes } from './row-warnings.js';

/**
 * What the Batch workflow hands Prepare: its whole state (the S3 event's fields first) and its
 * execution's id.
 */
export const PrepareInput = z.object({ event: z.unknown(), execution_id: z.string().min(1) });
export type PrepareInput = z.infer<typeof PrepareInput>;

/**
 * The ports Prepare uses. `reviews`: rows of a product still waiting for answers from an earlier
 * batch join that classification through it; without it (a caller that never joins) they are
 * classified again. `checks`: needed by a batch with `check_below` that reuses a verdict to check;
 * `simWatches`, by a batch that reuses a verdict whose SIM openings wait.
 */
export type PreparePorts = Pick<
  PipelinePorts,
  'clock' | 'service' | 'objects' | 'queue' | 'batches' | 'cache' | 'kick'
> &
  Partial<Pick<PipelinePorts, 'reviews' | 'checks' | 'simWatches' | 'writers'>>;

/**
 * Prepare, one leg of it: takes the workflow's state and gives what the workflow does next (wait
 * for the rows, finalize at once, skip a duplicate or a file that is no batch, stop at a plan, or
 * call Prepare again where this leg stopped). Run twice for the same event, it creates one batch:
 * a duplicate delivery is skipped, a retry goes on where the first left off. `settings`: how the
 * file is read; `deployment`: a lower cap and a ceiling on the wait, as the deployment configures
 * them (the handler reads them from its environment).
 */
export const prepareBatch = async (
  ports: PreparePorts,
  rawInput: PrepareInput,
  settings: PrepareSettings = PREPARE_SETTINGS,
  deployment: PrepareDeployment = DEFAULT_DEPLOYMENT,
): Promise<PrepareResult> => {
  const input = PrepareInput.parse(rawInput);
  const found = batchSourceFromEvent(input.event);
  if (!found) return { batch_id: null, next: 'skip' };
  const { batchId } = found;

  const now = ports.clock.now().toISOString();
  const source = (await resolveInputSource(ports.objects, found.source)) ?? found.source;
  const name = batchNameOfFolder(source.folder);
  // Who sent it, when something proves it now (people/batch-sender.ts); never waited for.
  const sentBy = await batchSender(ports, input.event, source.key);
  const record = BatchRecord.parse({
    batch_id: batchId,
    name,
    source,
    execution_id: input.execution_id,
    state: 'preparing',
    started_at: now,
    ...(sentBy ? { sent_by: sentBy } : {}),
  });
  const leg = {
    settings,
    deployment,
    writtenThrough: 0,
    until: ports.clock.now().getTime() + settings.legMs,
  };
  const created = await ports.batches.createBatch(record);
  if (created.created) return prepareRows(ports, record, leg);

  const existing = created.existing;
  if (existing.execution_id !== input.execution_id) return { batch_id: batchId, next: 'skip' };
  // Opened early in exposure order: this leg goes on storing its rows (first-places.ts).
  if (existing.storing)
    return prepareRows(ports, existing, { ...leg, writtenThrough: writtenBefore(input.event) });
  if (existing.state !== 'preparing') return resumePreparedBatch(ports, existing);
  return prepareRows(ports, existing, { ...leg, writtenThrough: writtenBefore(input.event) });
};

/**
 * Where the last leg stopped: the workflow hands Prepare its whole state as the event, with the
 * last leg's answer at `prepare` (infra/workflows/prepare-wait-finalize.ts); 0 on a first leg.
 */
const writtenBefore = (event: unknown): number => {
  const last = PrepareResult.safeParse((event as { prepare?: unknown } | null)?.prepare);
  return last.success && last.data.next === 'again' ? (last.data.written_through ?? 0) : 0;
};

/** One invocation's part of the work: how the file is read, and where this leg starts and stops. */
type PrepareLeg = {
  settings: PrepareSettings;
  deployment: PrepareDeployment;
  /** Rows up to this one were written by an earlier leg. */
  writtenThrough: number;
  /** When this leg hands on (epoch ms, real time: a Lambda's 15 minutes do not shrink locally). */
  until: number;
};

/** A retried Prepare after the batch was written: its window sent again, the same wait, nothing else. */
const resumePreparedBatch = async (ports: PreparePorts, batch: BatchRecord): Promise<PrepareResult> => {
  if (batch.state !== 'running' || batch.rows_dispatched === 0) {
    return { batch_id: batch.batch_id, next: 'finalize' };
  }
  await sendWindowAgain(ports, batch);
  await ports.kick.kick('rows_queued');
  return { batch_id: batch.batch_id, next: 'wait', wait_seconds: batch.wait_seconds ?? MIN_WAIT_SECONDS };
};

/**
 * batch.json, the input file, the countries the service accepts, then the file read twice, a
 * chunk at a time so memory holds a chunk, never the file: a first pass validates every row, finds the
 * products that reuse a verdict and the warnings, and writes nothing; a second writes the rows
 * chunk by chunk. A file found unreadable on the first pass fails the batch with nothing written.
 */
const prepareRows = async (
  ports: PreparePorts,
  batch: BatchRecord,
  leg: PrepareLeg,
): Promise<PrepareResult> => {
  const { settings, deployment } = leg;
  const { objects } = ports;
  const now = ports.clock.now();
  const at = now.toISOString();
  const source = batch.source;

  const optionsRead = await readBatchOptions(objects, source.folder);
  const opened = await openInputFile(objects, source, settings, { readThrough: leg.writtenThrough === 0 });
  const file = 'file' in opened ? opened.file : null;
  const shape: FileShape = file
    ? {
        header: file.header,
        delimiter: outputDelimiterFor(file),
        format: file.format,
        // The columns read as fields: a wide file's every column would outgrow the batch item.
        columns: fieldColumnUses(columnUses(file.header, file.columns)),
        warnings: [],
      }
    : { header: [], delimiter: ',' as const, format: undefined, columns: [], warnings: [] };
  const fail = (stop: BatchStop, problems: Message[], rowResult: RowResult | null) =>
    failBatch(ports, batch, { stop, problems, file: rowResult ? file : null, rowResult, shape, settings });

  if ('problem' in optionsRead) {
    const problems = [optionsRead.said, ...('problem' in opened ? [opened.said] : [])];
    const stop = { type: 'invalid_options', title: 'Invalid batch.json', detail: optionsRead.problem, at };
    const rowResult = notSubmittedResult(
      'invalid_options',
      message('options_invalid_row', { text: optionsRead.problem }),
    );
    return fail(stop, problems, rowResult);
  }
  const options = optionsRead.options;
  if (!file) {
    const { problem, code, said } = opened as FileProblem;
    return fail({ type: code, title: 'The input file cannot be read', detail: problem, at }, [said], null);
  }

  const countries = await readAcceptedCountries(ports, now);
  if ('stop' in countries) return fail(countries.stop, [countries.said], stoppedResult(countries.stop));

  const planChunk = rowPlanner(ports, {
    options,
    acceptedCountries: countries.accepted,
    folder: source.folder,
    columns: file.columns,
  });
  // Real time, as the legs: how long one read of the file takes says when the first verdict comes.
  const surveyStarted = performance.now();
  const surveyed = await surveyRows(ports, file, {
    planChunk,
    options,
    now,
    settings,
    batchId: batch.batch_id,
    ncm: await tableInForce(ports.objects),
    // Only a first leg says it: a later one reads rows already counted.
    ...(leg.writtenThrough === 0 && batch.state === 'preparing'
      ? { onRead: (rows: number) => ports.batches.updateBatch(batch.batch_id, { rows_read: rows }) }
      : {}),
  });
  if ('problem' in surveyed) {
    const { problem, code, said } = surveyed;
    return fail({ type: code, title: 'The input file cannot be read', detail: problem, at }, [said], null);
  }
  const planned: PlannedBatch = {
    file,
    planChunk,
    keyByFingerprint: surveyed.keyByFingerprint,
    verdictsRead: new Map(),
    reusedProducts: surveyed.reusedProducts,
    recheckFingerprints: surveyed.recheckFingerprints,
    openByFingerprint: surveyed.openByFingerprint,
    otherOrigins: surveyed.otherOrigins,
    ...(surveyed.exposure ? { exposure: surveyed.exposure } : {}),
    everyProductReused: surveyed.everyProductReused,
    options,
    shape: { ...shape, warnings: surveyed.warnings },
    readProblems: surveyed.problems,
    settings,
  };
  return options.plan_only
    ? writePlanOnly(ports, batch, planned, deployment, (performance.now() - surveyStarted) / 1000)
    : writeAndQueueRows(ports, batch, planned, leg);
};

/** The codes of the countries the service accepts, or the stop when it refuses the key. */
const readAcceptedCountries = async (
  ports: Pick<PreparePorts, 'service'>,
  now: Date,
): Promise<{ accepted: ReadonlySet<string> } | { stop: BatchStop; said: Message }> => {
  try {
    return { accepted: new Set((await ports.service.listCountries()).map((country) => country.code)) };
  } catch (error) {
    // 401/403 stop the batch (README): nothing can be submitted with this key or plan.
    if (!isBatchStopError(error)) throw error;
    return {
      stop: stopFromProblem(error, now),
      said: message('service_refused_batch', { text: error.message }),
    };
  }
};

/** The batch's problems: the file's, then the budget's. */
const batchProblems = (planned: PlannedBatch, budgetProblem: Message | null): Message[] => [
  ...planned.readProblems,
  ...(budgetProblem === null ? [] : [budgetProblem]),
];

/**
 * The cap the batch runs at (GET /balance, lowered by the deployment's override): the window's
 * size and the wait follow from it.
 */
const readCap = async (ports: Pick<PreparePorts, 'service'>, deployment: PrepareDeployment) =>
  capOf((await ports.service.getBalance()).concurrency_limit, deployment.capOverride);

/**
 * In exposure order, `openThenStoreRows` (the first window before the rest is stored). In the
 * file's order: the rows written chunk by chunk, then the batch `running` with its counts, its
 * window and its wait, then the first window sent and the dispatcher kicked. Between the two only the window's
 * first rows are kept (a number each). Nothing queued: straight to Finalize.
 *
 * In legs: when this leg's time is spent with rows left, Prepare answers `again` with the last row
 * written, and the next leg plans every row again (planning is deterministic and holds no row)
 * but writes only those after it: the counts, the window and the shards come out the same.
 */
const writeAndQueueRows = async (
  ports: PreparePorts,
  batch: BatchRecord,
  planned: PlannedBatch,
  leg: PrepareLeg,
): Promise<PrepareResult> => {
  const cap = await readCap(ports, leg.deployment);
  // Nothing to send when every product reuses a verdict: no window to open early.
  if (planned.exposure && !planned.everyProductReused)
    return openThenStoreRows(ports, batch, { ...planned, exposure: planned.exposure }, leg, cap);
  const now = ports.clock.now();
  const planner = rowRecordPlanner(batch.batch_id, {
    options: planned.options,
    now,
    otherOrigins: planned.otherOrigins,
  });
  const window = firstWindowCollector(cap);
  const shards = new Map<number, number>();
  const born = bornRowsCounter(rowValueCents(planned));
  let total = 0;
  const join = { batchId: batch.batch_id, now, write: true };
  const writeChecks = reusedCheckWriter(ports, planned, now);
  const writeSimWatches = reusedSimWatchWriter(ports, planned, now);
  let writtenThrough = leg.writtenThrough;
  for await (const { records, verdicts } of recordChunks(ports, planned, planner, join)) {
    const last = records.at(-1)?.row ?? 0;
    if (last > leg.writtenThrough) {
      // At least one chunk a leg, so every leg moves on.
      if (writtenThrough > leg.writtenThrough && ports.clock.now().getTime() >= leg.until)
        return { batch_id: batch.batch_id, next: 'again', written_through: writtenThrough };
      await writeChecks(records, verdicts);
      await writeSimWatches(records, verdicts);
      await ports.batches.putRows(records);
      writtenThrough = last;
    }
    total += records.length;
    window.add(records);
    born.add(records);
    for (const record of records) {
      if (record.status !== 'queued') continue;
      shards.set(shardOfRow(record.row), (shards.get(shardOfRow(record.row)) ?? 0) + 1);
    }
  }
  await ports.batches.putCompletionShards(batch.batch_id, shards, born.followers());
  const opened = window.open(total);
  const waitSeconds = waitSecondsFor(window.queued(), cap, leg.deployment.maxWaitSeconds);
  // Before any message: a row finishing early counts against shard_count, which must be final.
  await ports.batches.updateBatch(batch.batch_id, {
    state: 'running',
    options: planned.options,
    ...planned.shape,
    rows_total: total,
    rows_dispatched: window.queued(),
    born: born.born(),
    shard_count: shards.size,
    queue_window: opened.window,
    wait_seconds: waitSeconds,
    problems: batchProblems(planned, planner.budgetProblem()),
  });
  if (window.queued() === 0) return { batch_id: batch.batch_id, next: 'finalize' };
  await sendFirstWindow(ports, batch.batch_id, opened);
  await ports.kick.kick('rows_queued');
  return { batch_id: batch.batch_id, next: 'wait', wait_seconds: waitSeconds };
};

/**
 * Exposure order (first-places.ts): the batch counted, its first window's rows stored and sent
 * with the batch `running` and `storing`, then every other row stored, in legs. A leg after the
 * first counts again (nothing written) and goes on storing where the last stopped; a first leg
 * retried after it opened the window sends the window again.
 */
const openThenStoreRows = async (
  ports: PreparePorts,
  batch: BatchRecord,
  planned: PlannedBatch & { exposure: NonNullable<PlannedBatch['exposure']> },
  leg: PrepareLeg,
  cap: number,
): Promise<PrepareResult> => {
  const counted = await countBatch(ports, batch.batch_id, planned, cap);
  const waitSeconds = waitSecondsFor(counted.queued, cap, leg.deployment.maxWaitSeconds);
  if (!batch.storing) {
    await ports.batches.putRows(counted.first);
    await ports.batches.putCompletionShards(batch.batch_id, counted.shards, counted.born.followers());
    const opened = openWindowInSendOrder({
      size: counted.windowSize,
      firstPlaces: counted.first.map((record) => ({ row: record.row, place: record.send_order ?? 0 })),
      lastPlace: counted.queued,
    });
    // Before any message: a row finishing early counts against shard_count, which must be final.
    await ports.batches.updateBatch(batch.batch_id, {
      state: 'running',
      storing: true,
      options: planned.options,
      ...planned.shape,
      rows_total: counted.total,
      rows_dispatched: counted.queued,
      born: counted.born.born(),
      shard_count: counted.shards.size,
      queue_window: opened.window,
      exposure: planned.exposure.summary,
      wait_seconds: waitSeconds,
      problems: batchProblems(planned, counted.budgetProblem),
    });
    if (counted.queued > 0) {
      await sendFirstWindow(ports, batch.batch_id, opened);
      await ports.kick.kick('rows_queued');
    }
  } else if (leg.writtenThrough === 0 && counted.queued > 0) {
    // A first leg retried after the window opened: it may have died before sending it.
    await sendWindowAgain(ports, batch);
  }
  const stored = await storeRows(ports, batch, planned, leg, {
    placeOf: (plan) => counted.placeOf(planned.exposure.ranked.placeOf(plan)),
    firstThrough: counted.first.at(-1)?.send_order ?? 0,
    inBudget: counted.inBudget,
  });
  if (stored !== null) return { batch_id: batch.batch_id, next: 'again', written_through: stored };
  await ports.batches.updateBatch(batch.batch_id, { storing: false });
  return counted.queued === 0
    ? { batch_id: batch.batch_id, next: 'finalize' }
    : { batch_id: batch.batch_id, next: 'wait', wait_seconds: waitSeconds };
};

/**
 * The store pass of exposure order: every row planned again with its dense place, and written
 * after where the last leg stopped, but the first window's (already stored, maybe already
 * working). Gives the last row written when this leg's time is spent first, else null.
 */
const storeRows = async (
  ports: PreparePorts,
  batch: BatchRecord,
  planned: PlannedBatch,
  leg: PrepareLeg,
  places: {
    placeOf: (
      plan: Parameters<NonNullable<Parameters<typeof rowRecordPlanner>[1]['placeOf']>>[0],
    ) => number | undefined;
    firstThrough: number;
    /** Which products the budget pays for, as the count found (`countBatch`). */
    inBudget: InBudget | undefined;
  },
): Promise<number | null> => {
  const now = ports.clock.now();
  const planner = rowRecordPlanner(batch.batch_id, {
    options: planned.options,
    now,
    otherOrigins: planned.otherOrigins,
    placeOf: places.placeOf,
    coversValueOf: planned.exposure?.ranked.coversValueOf,
    ...(places.inBudget ? { inBudget: places.inBudget } : {}),
  });
  const join = { batchId: batch.batch_id, now, write: true };
  const writeChecks = reusedCheckWriter(ports, planned, now);
  const writeSimWatches = reusedSimWatchWriter(ports, planned, now);
  let writtenThrough = leg.writtenThrough;
  for await (const { records, verdicts } of recordChunks(ports, planned, planner, join)) {
    const last = records.at(-1)?.row ?? 0;
    if (last <= leg.writtenThrough) continue;
    // At least one chunk a leg, so every leg moves on.
    if (writtenThrough > leg.writtenThrough && ports.clock.now().getTime() >= leg.until)
      return writtenThrough;
    const toStore = records.filter(
      (record) =>
        record.row > leg.writtenThrough &&
        !(record.status === 'queued' && (record.send_order ?? Infinity) <= places.firstThrough),
    );
    await writeChecks(toStore, verdicts);
    await writeSimWatches(toStore, verdicts);
    if (toStore.length > 0) await ports.batches.putRows(toStore);
    writtenThrough = last;
  }
  return null;
};

/**
 * A plan-only batch: plan.json and plan.csv in the outbox, the batch `completed` with its counts,
 * and no row written, queued or sent. plan.csv is uploaded as the second pass makes its lines.
 * `GET /balance` gives the cap the estimate runs at.
 */
const writePlanOnly = async (
  ports: PreparePorts,
  batch: BatchRecord,
  planned: PlannedBatch,
  deployment: PrepareDeployment,
  /** How long the survey read the file, in seconds: a run reads it twice before its first POST. */
  readSeconds: number,
): Promise<PrepareResult> => {
  const now = ports.clock.now();
  const balance = await ports.service.getBalance();
  // In exposure order the plan leaves out the products a run would: the least exposed.
  const inBudget = planned.exposure
    ? await exposureBudget(ports, batch.batch_id, { ...planned, exposure: planned.exposure }, now)
    : undefined;
  const planner = rowRecordPlanner(batch.batch_id, {
    options: planned.options,
    now,
    otherOrigins: planned.otherOrigins,
    ...(inBudget ? { inBudget } : {}),
  });
  const tally = planTally();
  async function* planLines(): AsyncGenerator<string[]> {
    const join = { batchId: batch.batch_id, now, write: false };
    for await (const { plans, records } of recordChunks(ports, planned, planner, join)) {
      tally.add(records);
      const fields = new Map(plans.map((plan) => [plan.mapped.row, plan.mapped.fields]));
      const notes = rowNotes(plans);
      yield* planCsvRows(records, { fieldsOf: (row) => fields.get(row), noteOf: (row) => notes.get(row) });
    }
  }
  const { format, ...shape } = planned.shape;
  await ports.objects.put(
    outboxKey(batch.batch_id, PLAN_FILES.csv),
    Readable.from(streamCsv(PLAN_CSV_COLUMNS, planLines(), { delimiter: shape.delimiter })),
    CSV_CONTENT_TYPE,
  );
  const problems = batchProblems(planned, planner.budgetProblem());
  const plan = buildPlan({
    batch: { ...batch, ...shape },
    tally,
    options: planned.options,
    problems,
    balance,
    deployment,
    now,
    ...(planned.exposure
      ? {
          exposure: {
            summary: planned.exposure.summary,
            coverageAfter: planned.exposure.ranked.coverageAfter,
            readSeconds,
          },
        }
      : {}),
  });
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
    rows_total: plan.rows.total,
    rows_dispatched: 0,
    shard_count: 0,
    problems,
    finished_at: now.toISOString(),
  });
  return { batch_id: batch.batch_id, next: 'planned' };
};
