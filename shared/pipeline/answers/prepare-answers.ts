import { z } from 'zod';
import { normaliseSheetPath, SpreadsheetError, writeCsv } from '../../spreadsheet/index.js';
import { TcsProblemError } from '../../tcs/errors.js';
import type { Classification } from '../../tcs/schemas.js';
import { inputKeyCandidates } from '../batch/batch-source.js';
import { CSV_CONTENT_TYPE } from '../batch/results-files.js';
import { type SheetCheck, type SheetProblem, sheetChecker } from '../batch/sheet-checker.js';
import { answersFolder, outboxKey } from '../core/bucket-layout.js';
import { deriveAnswersKey } from '../core/keys.js';
import type { ClassificationService, ObjectStore, PipelinePorts } from '../core/ports.js';
import {
  BatchRecord,
  type BatchSource,
  type ReviewItem,
  type RowMessage,
  type RowRecord,
  type SheetRef,
  shardOfRow,
} from '../core/records.js';
import {
  ANSWERS_REPORT_COLUMNS,
  type AnswersFile,
  AnswersFileError,
  type AnswersReportEntry,
  buildAnswersReportCsv,
  classificationsToLookUp,
  planAnswers,
  type ResumeRow,
  readAnswersFile,
} from './answers-file.js';
import { answersSourceForKey, answersSourceFromEvent, requesterFromEvent } from './answers-source.js';

export const PrepareAnswersInput = z.object({
  event: z.unknown(),
  execution_id: z.string().min(1),
  /** Who answered, when the caller knows (the CLI's user); else the S3 requester, else `unknown`. */
  answered_by: z.string().min(1).optional(),
});
export type PrepareAnswersInput = z.infer<typeof PrepareAnswersInput>;

export const PrepareAnswersResult = z.object({
  batch_id: z.string().nullable(),
  round_id: z.string().nullable(),
  /** `skip`: a duplicate delivery, not an answers file, or no such batch. `finalize`: nothing to wait for. */
  next: z.enum(['wait', 'finalize', 'skip']),
  /** One sentence for the workflow's log: why it skipped, or how many rows resumed. */
  detail: z.string().optional(),
});
export type PrepareAnswersResult = z.infer<typeof PrepareAnswersResult>;

export type PrepareAnswersPorts = Pick<
  PipelinePorts,
  'clock' | 'service' | 'objects' | 'queue' | 'batches' | 'reviews' | 'kick'
>;

/** Beside results.csv in the batch's outbox; each round overwrites it with its own rows. */
export const ANSWERS_REPORT_FILE = 'answers-report.csv';

/** GETs at once while looking up statuses: quick for a long review file, gentle on the service. */
const LOOKUP_CONCURRENCY = 8;

export const prepareAnswers = async (
  ports: PrepareAnswersPorts,
  rawInput: PrepareAnswersInput,
): Promise<PrepareAnswersResult> => {
  const input = PrepareAnswersInput.parse(rawInput);
  const found = answersSourceFromEvent(input.event);
  if (!found) {
    return { batch_id: null, round_id: null, next: 'skip', detail: 'not an answers/<batch-id>/ file' };
  }
  const { batchId, roundId } = found;
  const skip = (detail: string): PrepareAnswersResult => ({
    batch_id: batchId,
    round_id: roundId,
    next: 'skip',
    detail,
  });

  const batch = await ports.batches.getBatch(batchId);
  // No outbox is written for an id we do not know: it would create a folder for a typo.
  if (!batch) return skip(`no batch "${batchId}": the answers folder must be named after the batch id`);
  if (batch.round_of !== undefined) return skip(`"${batchId}" is an answers round, not a batch`);

  const source = (await resolveAnswersSource(ports.objects, found.source)) ?? found.source;
  const record = BatchRecord.parse({
    batch_id: roundId,
    name: batch.name,
    source,
    execution_id: input.execution_id,
    state: 'preparing',
    delimiter: batch.delimiter,
    round_of: batchId,
    started_at: ports.clock.now().toISOString(),
  });
  const created = await ports.batches.createBatch(record);
  const round = created.created ? record : created.existing;
  if (!created.created) {
    if (round.execution_id !== input.execution_id) {
      return skip(`duplicate delivery: round ${roundId} belongs to another execution`);
    }
    if (round.state !== 'preparing') return resumePreparedRound(ports, round, batchId);
  }
  const answeredBy = input.answered_by ?? requesterFromEvent(input.event) ?? 'unknown';
  return prepareRound(ports, batch, round, { answeredBy, retried: !created.created });
};

// ---------------------------------------------------------------------------
// The answers object
// ---------------------------------------------------------------------------

/** The spelling of the event's key that exists in the bucket (see batch-source.ts); null when none. */
export const resolveAnswersSource = async (
  objects: Pick<ObjectStore, 'head'>,
  source: BatchSource,
): Promise<BatchSource | null> => {
  for (const key of inputKeyCandidates(source.key)) {
    const candidate = answersSourceForKey(key, source);
    if (candidate && (await objects.head(key))) return candidate;
  }
  return null;
};

type AnswersRead = { file: AnswersFile } | { problem: string };

const readAnswers = async (objects: ObjectStore, source: BatchSource): Promise<AnswersRead> => {
  const bytes = await objects.getBytes(source.key);
  if (bytes === null) {
    return {
      problem: `${source.file_name}: the file ${source.key} is no longer in the bucket; upload it again.`,
    };
  }
  try {
    return { file: await readAnswersFile(bytes, source.file_name) };
  } catch (error) {
    // Both name the file first, then what is wrong, for the person who sent it.
    if (error instanceof SpreadsheetError || error instanceof AnswersFileError)
      return { problem: error.message };
    throw error;
  }
};

// ---------------------------------------------------------------------------
// The service's view
// ---------------------------------------------------------------------------

/**
 * `GET /classifications/{id}` for each id, a few at a time; null for an id the service does not
 * know (404). Any other failure throws: the workflow's Retry runs the step again.
 */
export const readClassifications = async (
  service: Pick<ClassificationService, 'getClassification'>,
  ids: readonly string[],
): Promise<Map<string, Classification | null>> => {
  const found = new Map<string, Classification | null>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        found.set(id, await service.getClassification(id));
      } catch (error) {
        if (error instanceof TcsProblemError && error.status === 404) found.set(id, null);
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, ids.length) }, worker));
  return found;
};

// ---------------------------------------------------------------------------
// Sheets sent with answers
// ---------------------------------------------------------------------------

/**
 * The `sheet` cells of an answers file, checked in `answers/<batch-id>/` as Prepare checks a
 * batch's sheets; a cell that is no usable path (absolute, leading out) is a sheet not found.
 */
const answersSheetChecker = (objects: ObjectStore, folder: string) => {
  const check = sheetChecker(objects, folder);
  return async (cell: string): Promise<SheetCheck> => {
    const path = normaliseSheetPath(cell);
    return 'invalid' in path ? { reason: 'sheet_not_found', why: path.invalid } : check(path.path);
  };
};

// ---------------------------------------------------------------------------
// The round
// ---------------------------------------------------------------------------

type RowRound = NonNullable<RowRecord['round']>;

/** Whether this round may take the row: still waiting for answers, or already taken by this round. */
const rowAwaitsRound = (row: RowRecord | null, resume: ResumeRow, roundId: string): row is RowRecord =>
  row !== null &&
  row.classification_id === resume.classification_id &&
  (row.status === 'pending_data' || (row.status === 'queued' && row.round?.round_id === roundId));

const rowNotPendingDetail = (resume: ResumeRow, row: RowRecord | null): string => {
  const why =
    row === null
      ? 'the batch has no such row'
      : row.classification_id !== resume.classification_id
        ? `the row now holds another classification (${row.classification_id ?? 'none'})`
        : `the row is "${row.status}", no longer pending_data${row.round ? ' (another answers round has it)' : ''}`;
  return `Row ${resume.row}: ${why}; nothing was sent.`;
};

const sheetDetail = (resume: ResumeRow, folder: string, check: SheetProblem) =>
  `Row ${resume.row}: the sheet "${resume.sheet}" ${check.why} (${check.reason}). The service takes a sheet only ` +
  `together with the answers, so nothing was sent and the row stays pending; put the PDF in ${folder} ` +
  '(or empty the sheet cell) and send the file again.';

/**
 * A retried PrepareAnswers: rows this round already took had their items marked answered, but
 * their answers were never posted (no message left while `preparing`). Seen as pending again,
 * so planning gives the same result as the first try.
 */
const reopenItemsOfRound = async (
  batches: PrepareAnswersPorts['batches'],
  batchId: string,
  roundId: string,
  items: Map<string, ReviewItem>,
): Promise<void> => {
  for (const item of items.values()) {
    if (item.state !== 'answered') continue;
    const row = await batches.getRow(batchId, item.row);
    if (row?.round?.round_id === roundId) items.set(item.classification_id, { ...item, state: 'pending' });
  }
};

const prepareRound = async (
  ports: PrepareAnswersPorts,
  batch: BatchRecord,
  round: BatchRecord,
  options: { answeredBy: string; retried: boolean },
): Promise<PrepareAnswersResult> => {
  const batchId = batch.batch_id;
  const roundId = round.batch_id;
  const now = ports.clock.now().toISOString();

  const read = await readAnswers(ports.objects, round.source);
  if ('problem' in read) return failRound(ports, batch, round, read.problem);
  const { file } = read;

  const items = new Map(
    (await ports.reviews.listByBatch(batchId)).map((item) => [item.classification_id, item]),
  );
  if (options.retried) await reopenItemsOfRound(ports.batches, batchId, roundId, items);
  const found = await readClassifications(ports.service, classificationsToLookUp(file, items));
  const plan = planAnswers({ file, items, statusOf: (id) => found.get(id)?.status ?? null });

  const report: AnswersReportEntry[] = [...plan.report];
  const replaceResumedEntry = (
    classificationId: string,
    entry: Pick<AnswersReportEntry, 'outcome' | 'detail'>,
  ) => {
    const index = report.findIndex(
      (e) => e.classification_id === classificationId && e.outcome === 'resumed',
    );
    if (index >= 0) report[index] = { ...report[index]!, ...entry };
  };

  const folder = answersFolder(batchId);
  const checkSheet = answersSheetChecker(ports.objects, folder);
  const resumed: RowRecord[] = [];
  for (const resume of plan.resume) {
    let sheet: SheetRef | undefined;
    if (resume.sheet !== null) {
      const checked = await checkSheet(resume.sheet);
      if (!('sheet' in checked)) {
        // answers-file.ts has no sheet outcome: `incomplete` is the closest (the row cannot go as sent).
        replaceResumedEntry(resume.classification_id, {
          outcome: 'incomplete',
          detail: sheetDetail(resume, folder, checked),
        });
        continue;
      }
      sheet = checked.sheet;
    }
    const row = await ports.batches.getRow(batchId, resume.row);
    if (!rowAwaitsRound(row, resume, roundId)) {
      replaceResumedEntry(resume.classification_id, {
        outcome: 'not_pending',
        detail: rowNotPendingDetail(resume, row),
      });
      continue;
    }
    const answeredAt = row.round?.round_id === roundId ? row.round.answered_at : now;
    const rowRound: RowRound = {
      round_id: roundId,
      answers: resume.answers,
      answers_key: sheet
        ? deriveAnswersKey(resume.classification_id, resume.answers, sheet.sha256)
        : resume.answers_key,
      ...(sheet ? { sheet } : {}),
      answered_by: options.answeredBy,
      answered_at: answeredAt,
    };
    // The row first, then its item: a retry in between finds the row taken by this round and the
    // item still pending, and plans it again. The other order would leave the item `answered`
    // and the row `pending_data`, which a retry reads as already answered: a row never resumed.
    // Not `onlyIfNotFinal`: pending_data is an output status, and this is the one place a final
    // row goes back to work; `rowAwaitsRound` above is the guard.
    const patch = { status: 'queued' as const, round: rowRound, dispatch: 1, updated_at: now };
    await ports.batches.updateRow(batchId, row.row, patch);
    await ports.reviews.update(resume.classification_id, {
      state: 'answered',
      answers: resume.answers,
      answered_by: options.answeredBy,
      answered_at: answeredAt,
    });
    resumed.push({ ...row, ...patch });
  }

  const shards = new Map<number, number>();
  for (const row of resumed) shards.set(shardOfRow(row.row), (shards.get(shardOfRow(row.row)) ?? 0) + 1);
  await ports.batches.putCompletionShards(roundId, shards);

  const fileRows = file.rows.length;
  const summary = `${resumed.length} of ${fileRows} row(s) of ${file.file_name} resumed with their answers.`;
  const problems = [...file.problems.map((problem) => problem.message), summary];
  // The file's own separator first: the report opens like the file the user just saved.
  const delimiter = file.delimiter ?? batch.delimiter;
  await ports.objects.put(
    outboxKey(batchId, ANSWERS_REPORT_FILE),
    buildAnswersReportCsv(report, delimiter),
    CSV_CONTENT_TYPE,
  );
  // Before any message: a row finishing early counts against shard_count, which must be final.
  await ports.batches.updateBatch(roundId, {
    state: 'running',
    rows_total: resumed.length,
    rows_dispatched: resumed.length,
    shard_count: shards.size,
    problems,
  });
  const result = { batch_id: batchId, round_id: roundId, detail: summary };
  if (resumed.length === 0) return { ...result, next: 'finalize' };
  await ports.queue.send(resumed.map((row) => ({ message: roundMessage(row, roundId) })));
  await ports.kick.kick('rows_queued');
  return { ...result, next: 'wait' };
};

const roundMessage = (row: Pick<RowRecord, 'batch_id' | 'row' | 'attempt'>, roundId: string): RowMessage => ({
  batch_id: row.batch_id,
  row: row.row,
  attempt: row.attempt,
  dispatch: 1,
  round_id: roundId,
});

/** A retried PrepareAnswers after the round was written: send its still-queued rows again, nothing else. */
const resumePreparedRound = async (
  ports: PrepareAnswersPorts,
  round: BatchRecord,
  batchId: string,
): Promise<PrepareAnswersResult> => {
  const result = { batch_id: batchId, round_id: round.batch_id };
  if (round.state !== 'running' || round.rows_dispatched === 0) {
    return { ...result, next: 'finalize', detail: `round already ${round.state}` };
  }
  const messages: { message: RowMessage }[] = [];
  for await (const row of ports.batches.listRows(batchId)) {
    // A row of the round that was dispatched again (a 429) carries its own dispatch number.
    if (row.status === 'queued' && row.round?.round_id === round.batch_id) {
      messages.push({ message: { ...roundMessage(row, round.batch_id), dispatch: row.dispatch } });
    }
  }
  if (messages.length > 0) await ports.queue.send(messages);
  await ports.kick.kick('rows_queued');
  return { ...result, next: 'wait', detail: `${messages.length} queued row(s) of the round sent again` };
};

/**
 * The file cannot be read as a review.csv: the report says why in one line (outcome
 * `file_unreadable`, a report-only value: no row has it), the round fails, nothing else happens.
 */
const failRound = async (
  ports: PrepareAnswersPorts,
  batch: BatchRecord,
  round: BatchRecord,
  problem: string,
): Promise<PrepareAnswersResult> => {
  await ports.objects.put(
    outboxKey(batch.batch_id, ANSWERS_REPORT_FILE),
    writeCsv(ANSWERS_REPORT_COLUMNS, [['', '', 'file_unreadable', `${problem} Nothing was sent.`]], {
      delimiter: batch.delimiter,
    }),
    CSV_CONTENT_TYPE,
  );
  await ports.batches.updateBatch(round.batch_id, {
    state: 'failed',
    rows_total: 0,
    rows_dispatched: 0,
    shard_count: 0,
    problems: [`The answers file could not be read: ${problem}`],
  });
  return { batch_id: batch.batch_id, round_id: round.batch_id, next: 'finalize', detail: problem };
};
