/**
 * PrepareAnswers: the first task of the Answers workflow (docs/answers-round.md): it reads the
 * dropped file and sends the answered rows back to work, or applies its decisions.
 *
 * Primary course:
 *   1. the round's record, created once per answers object (a duplicate delivery is skipped)
 *   2. the file read (answers-file.ts) and planned row by row (plan-answers.ts), with the
 *      service's status of each answered classification
 *   3. each resumed row taken: its sheet checked, the row `queued` with its round, its item answered;
 *      each decision on a verdict to check applied (apply-decisions.ts: no service call, nothing billed);
 *      each rejected or failed row sent again planned anew and `queued` (resend-rows.ts)
 *   4. answers-report.csv, the round `running`, then one rows-queue message per resumed row and a
 *      kick of the dispatcher
 */
import { SpreadsheetError } from '../../spreadsheet/errors.js';
import { writeCsv } from '../../spreadsheet/write-csv.js';
import { message } from '../../wording/index.js';
import { outboxKey, roundReportFile } from '../core/bucket-layout.js';
import type { Person } from '../core/people.js';
import type { ObjectStore, PipelinePorts } from '../core/ports.js';
import {
  BatchRecord,
  type BatchSource,
  type ReviewItem,
  type RowMessage,
  type RowRecord,
  shardOfRow,
} from '../core/records.js';
import { CSV_CONTENT_TYPE } from '../outbox/results-files.js';
import { answersWriter } from '../people/answers-writer.js';
import { inputKeyCandidates } from '../prepare/batch-source.js';
import { readProblemMessage } from '../prepare/input-file.js';
import { type AnswersFile, AnswersFileError, readAnswersFile } from './answers-file.js';
import { answersSourceForKey, answersSourceFromEvent, statedByOfHead } from './answers-source.js';
import { PrepareAnswersInput, type PrepareAnswersResult } from './answers-steps.js';
import { applyDecisions, type DecisionsApplied } from './apply-decisions.js';
import { DecisionsFileError } from './decisions-file.js';
import {
  ANSWERS_REPORT_COLUMNS,
  type AnswersPlan,
  buildAnswersReportCsv,
  classificationsToLookUp,
  planAnswers,
  type ReportLine,
} from './plan-answers.js';
import { readClassifications } from './read-classifications.js';
import { resendRows } from './resend-rows.js';
import { answeredEventsOf, takeResumedRows } from './take-resumed-rows.js';

/**
 * The ports PrepareAnswers uses: the service, the bucket, the rows queue, the tables, the audit log
 * and the kick.
 */
export type PrepareAnswersPorts = Pick<
  PipelinePorts,
  | 'clock'
  | 'service'
  | 'objects'
  | 'queue'
  | 'batches'
  | 'reviews'
  | 'checks'
  | 'cache'
  | 'audit'
  | 'kick'
  | 'writers'
>;

/** Beside results.csv in the batch's outbox; each round overwrites it with its own rows (and keeps its own copy, `roundReportFile`). */
export const ANSWERS_REPORT_FILE = 'answers-report.csv';

/**
 * Starts the answers round an Object Created event names (steps 1 to 4 above) and says what the
 * workflow does next. Creates the round's record once per answers object, so a duplicate delivery
 * is skipped and a retry of the same execution goes on where the first try stopped.
 */
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
  // Who answered, from a source the file's writer cannot set (answers-writer.ts); the name the file
  // states about itself is kept beside, as stated_by.
  const writer = await answersWriter(ports, input.event, source.key);
  if ('again' in writer) {
    return {
      batch_id: batchId,
      round_id: roundId,
      next: 'again',
      detail: "waiting for S3's record of who wrote the answers file",
    };
  }
  const statedBy = statedByOfHead(await ports.objects.head(source.key));
  return prepareRound(ports, batch, round, { person: writer.person, statedBy, retried: !created.created });
};

// ---------------------------------------------------------------------------
// The answers object
// ---------------------------------------------------------------------------

/**
 * The spelling of the event's key that exists in the bucket (S3 may form-encode the key in its
 * event, so the key as given and its decoded form are both tried); null when none exists.
 */
const resolveAnswersSource = async (
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
    // Each names the file first, then what is wrong, for the person who sent it.
    if (
      error instanceof SpreadsheetError ||
      error instanceof AnswersFileError ||
      error instanceof DecisionsFileError
    )
      return { problem: error.message };
    throw error;
  }
};

// ---------------------------------------------------------------------------
// The round
// ---------------------------------------------------------------------------

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

/** The plan for this round's file: the batch's review items and the service's status of each answered one. */
const planRound = async (
  ports: PrepareAnswersPorts,
  batchId: string,
  roundId: string,
  file: AnswersFile,
  retried: boolean,
): Promise<AnswersPlan> => {
  const items = new Map(
    (await ports.reviews.listByBatch(batchId)).map((item) => [item.classification_id, item]),
  );
  if (retried) await reopenItemsOfRound(ports.batches, batchId, roundId, items);
  const found = await readClassifications(ports.service, classificationsToLookUp(file, items));
  return planAnswers({ file, items, statusOf: (id) => found.get(id)?.status ?? null });
};

/** The round's report written, the round `running` with its counts, then its rows' messages sent. */
const startRound = async (
  ports: PrepareAnswersPorts,
  batch: BatchRecord,
  round: BatchRecord,
  file: AnswersFile,
  taken: { resumed: RowRecord[]; report: ReportLine[]; resent: number },
  decided: Pick<DecisionsApplied, 'report' | 'problems'>,
): Promise<PrepareAnswersResult> => {
  const batchId = batch.batch_id;
  const roundId = round.batch_id;
  const { resumed } = taken;
  const report = [...taken.report, ...decided.report];
  const shards = new Map<number, number>();
  for (const row of resumed) shards.set(shardOfRow(row.row), (shards.get(shardOfRow(row.row)) ?? 0) + 1);
  await ports.batches.putCompletionShards(roundId, shards);

  const fileRows = file.rows.length;
  const resends = file.resends?.length ?? 0;
  const summary =
    resends > 0
      ? `${taken.resent} of ${resends} row(s) of ${file.file_name} sent again.`
      : `${resumed.length} of ${fileRows} row(s) of ${file.file_name} resumed with their answers.`;
  const decisionsOnly = fileRows === 0 && decided.report.length > 0;
  const problems = [
    ...file.problems.map(readProblemMessage),
    ...(resends > 0
      ? [message('rows_resent', { resent: taken.resent, of: resends, file: file.file_name })]
      : decisionsOnly
        ? []
        : [message('answers_resumed', { resumed: resumed.length, of: fileRows, file: file.file_name })]),
    ...decided.problems,
  ];
  // The file's own separator first: the report opens like the file the user just saved.
  const delimiter = file.delimiter ?? batch.delimiter;
  // The latest round's report, and this round's under its own name: a later round keeps it.
  // Each detail in the language the batch chose for its files (batch.json's `language`), else English.
  const reportCsv = buildAnswersReportCsv(report, delimiter, batch.options?.language);
  await ports.objects.put(outboxKey(batchId, ANSWERS_REPORT_FILE), reportCsv, CSV_CONTENT_TYPE);
  await ports.objects.put(outboxKey(batchId, roundReportFile(round)), reportCsv, CSV_CONTENT_TYPE);
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

/** Steps 2 to 4 of the primary course, for a round this execution owns and has not yet started. */
const prepareRound = async (
  ports: PrepareAnswersPorts,
  batch: BatchRecord,
  round: BatchRecord,
  options: { person: Person; statedBy: string | null; retried: boolean },
): Promise<PrepareAnswersResult> => {
  const batchId = batch.batch_id;
  const roundId = round.batch_id;
  const now = ports.clock.now().toISOString();

  const read = await readAnswers(ports.objects, round.source);
  if ('problem' in read) return failRound(ports, batch, round, read.problem);
  const plan = await planRound(ports, batchId, roundId, read.file, options.retried);
  const { person, statedBy } = options;
  const taken = await takeResumedRows(ports, { batchId, roundId, person, statedBy, now }, plan);
  // Who answered each row taken, when the round took it (as stored on the row: a retry says the same).
  await ports.audit.record(taken.resumed.flatMap((row) => answeredEventsOf(row, roundId)));
  // Decisions on verdicts to check: applied here, nothing sent to the service (apply-decisions.ts).
  const decided = await applyDecisions(
    ports,
    { batchId, roundId, person, statedBy, at: round.started_at, fileName: read.file.file_name },
    read.file.decisions ?? [],
  );
  // Rejected or failed rows sent again, their cells corrected or with a new sheet (resend-rows.ts).
  const resends = read.file.resends ?? [];
  const resent = await resendRows(
    ports,
    { batch, roundId, person, statedBy, now: round.started_at },
    resends,
  );
  const sent = {
    resumed: [...taken.resumed, ...resent.resent],
    report: [...taken.report, ...resent.report],
    resent: resent.resent.length,
  };
  return startRound(ports, batch, round, read.file, sent, decided);
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
    problems: [message('answers_unreadable', { text: problem })],
  });
  return { batch_id: batch.batch_id, round_id: round.batch_id, next: 'finalize', detail: problem };
};
