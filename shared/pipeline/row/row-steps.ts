/**
 * The Row workflow's tasks (README, Flow): one row attempt from its POST to its result.
 *
 *   Submit ─▶ Choice ─ wait ─▶ Wait ─▶ Poll ─▶ Choice ─ store ─▶ Store ─┐
 *                    │                               ─ review ─▶ Review ─┤
 *                    └────────── complete ────────────────────────────── ▶ Complete
 *   Catch on Submit, Poll, Store, Review ─▶ Complete ($.error)
 *   row-execution-ended (FAILED / TIMED_OUT / ABORTED) ─▶ the same Complete logic
 *
 * Each task parses the workflow state (RowState), returns the next RowStep (kept at
 * `$.step`) and is safe to run again with the same input: a Step Functions Retry or a
 * Lambda retry must not create, bill, count or send anything twice.
 *
 * Who owns the row: the execution of (attempt, dispatch) that the row record names. A
 * Complete that finds the row already moved on to a later dispatch changes nothing but
 * what is still its own (see `completeRow`).
 */
import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { z } from 'zod';
import { problemNameOf, scrubText, TcsError, TcsProblemError, TcsValidationError } from '../../tcs/errors.js';
import { Classification, LIMITS } from '../../tcs/schemas.js';
import { deriveCreationKey, deriveRowKey, sha256Hex } from '../core/keys.js';
import type { PipelinePorts } from '../core/ports.js';
import {
  type BatchStop,
  isOutputStatus,
  type KickReason,
  type ReviewItem,
  type RowOutcome,
  type RowRecord,
  type RowResult,
  RowState,
  type RowStatus,
  type RowStep,
  type SheetRef,
  verdictPdfName,
} from '../core/records.js';
import {
  abandonedResult,
  answersNotSentResult,
  errorResult,
  failedResult,
  pendingResult,
  resolvedResult,
  stoppedResult,
} from '../core/row-results.js';
import { decideAfterPoll } from './row-decisions.js';

export type RowStepConfig = {
  /** Expiry of a slot lease; every poll pushes it forward by this much. */
  leaseTtlMs: number;
  /** The local runtime's time scale (1 on AWS): elapsed-time thresholds scale by it. */
  timeScale: number;
  /** Default `outbox/`. */
  bucketOutboxPrefix?: string;
  /**
   * Default `work/`: where Submit keeps the `file_url` of a sheet it uploaded, per row
   * attempt, so a retried Submit sends the same body under the same Idempotency-Key.
   */
  bucketWorkPrefix?: string;
};

export const DEFAULT_OUTBOX_PREFIX = 'outbox/';
export const DEFAULT_WORK_PREFIX = 'work/';

/** Bounds of a requeue delay (an SQS DelaySeconds is 0..900). */
const REQUEUE_DELAY_MIN_SECONDS = 1;
const REQUEUE_DELAY_MAX_SECONDS = 900;
/** A 429 without `Retry-After`: the spec names no value; a few polls' worth. */
const REQUEUE_DELAY_DEFAULT_SECONDS = 5;

/** Object key of a row's verdict PDF, and its path relative to the batch's outbox (the CSV's `verdict_pdf`). */
export const verdictPdfPaths = (
  batchId: string,
  name: string,
  outboxPrefix = DEFAULT_OUTBOX_PREFIX,
): { key: string; relative: string } => ({
  key: `${outboxPrefix}${batchId}/pdfs/${name}`,
  relative: `pdfs/${name}`,
});

// ---------------------------------------------------------------------------
// Small shared pieces
// ---------------------------------------------------------------------------

type Run = { classification_id: string; submitted_at: string };

const carryOf = (run: Partial<Run> | undefined): Partial<Run> => ({
  ...(run?.classification_id ? { classification_id: run.classification_id } : {}),
  ...(run?.submitted_at ? { submitted_at: run.submitted_at } : {}),
});

const finalStep = (result: RowResult, run?: Partial<Run>): RowStep => ({
  next: 'complete',
  ...carryOf(run),
  outcome: { kind: 'final', result },
});

/** The classification being polled; Poll, Store and Review run only after Submit set it. */
const runOf = (state: RowState): Run => {
  const { classification_id, submitted_at } = state.step ?? {};
  if (!classification_id || !submitted_at) {
    throw new Error(`row ${state.row_key}: no classification_id/submitted_at in $.step`);
  }
  return { classification_id, submitted_at };
};

const loadRow = async (
  batches: PipelinePorts['batches'],
  batchId: string,
  row: number,
): Promise<RowRecord> => {
  const record = await batches.getRow(batchId, row);
  if (!record) throw new Error(`row ${batchId}:${row} not found in the batch table`);
  return record;
};

/** Where a row is counted done: its answers round when it runs in one, else its batch. */
export const completionIdOf = (message: { batch_id: string; round_id?: string | undefined }): string =>
  message.round_id ?? message.batch_id;

/** The row record names a later attempt or dispatch than this execution's: it is no longer ours. */
export const isSuperseded = (
  row: Pick<RowRecord, 'attempt' | 'dispatch'>,
  mine: { attempt: number; dispatch: number },
): boolean => row.attempt > mine.attempt || (row.attempt === mine.attempt && row.dispatch > mine.dispatch);

/** The result a final row already holds (a row made final without one keeps at least its status). */
const storedResult = (row: RowRecord): RowResult =>
  row.result ?? { status: row.status as RowResult['status'] };

/** A 401/403 from the service as a batch stop (`BatchStop.type` is the Problem `type` URI). */
export const stopFromProblem = (error: TcsProblemError, at: Date): BatchStop => ({
  type: error.type ?? error.problem ?? (error.status === 401 ? 'unauthenticated' : 'forbidden'),
  title: error.title || `HTTP ${error.status}`,
  detail: error.detail,
  at: at.toISOString(),
});

export const isBatchStopError = (error: unknown): error is TcsProblemError =>
  error instanceof TcsProblemError && (error.status === 401 || error.status === 403);

/** Keys and tokens: a long run without `/` or `.`, or a very long base64 run (a task token). */
const LONG_TOKEN = /[A-Za-z0-9+/=_-]{80,}|[A-Za-z0-9+=_-]{32,}/g;
const SECRET_FIELD =
  /("?(?:api[_-]?key|apikey|authorization|x-api-key|task[_-]?token|token|secret|password)"?\s*[:=]\s*)("[^"]*"|[^\s,;}]+)/gi;

/**
 * A caught error's text, safe to store in a result row and publish in a CSV: its first
 * line, signed URLs without their query, bearer values, secret-looking fields and long
 * tokens (task tokens, keys) cut out. A Lambda Cause is JSON; its `errorMessage` is used.
 */
export const scrubErrorText = (text: string, maxLength = 400): string => {
  let message = text;
  try {
    const parsed: unknown = JSON.parse(text);
    if (
      parsed &&
      typeof parsed === 'object' &&
      typeof (parsed as { errorMessage?: unknown }).errorMessage === 'string'
    ) {
      message = (parsed as { errorMessage: string }).errorMessage;
    }
  } catch {
    // Not JSON: a plain message.
  }
  const firstLine = message.split(/\r?\n/, 1)[0]?.trim() ?? '';
  const scrubbed = scrubText(firstLine, '')
    .replace(/(bearer\s+)\S+/gi, '$1[redacted]')
    .replace(SECRET_FIELD, '$1[redacted]')
    .replace(LONG_TOKEN, '[redacted]');
  return scrubbed.length > maxLength ? `${scrubbed.slice(0, maxLength - 1)}…` : scrubbed;
};

// ---------------------------------------------------------------------------
// Routing a classification the way a poll does
// ---------------------------------------------------------------------------

/** SQS's longest message delay: how often a row left to reconciliation is looked at. */
export const RECONCILE_DELAY_SECONDS = 900;

/**
 * What a row does after reading its classification: shared by Poll and by the steps that
 * find the classification elsewhere than they expected (a replayed creation, a Store or a
 * Review run again after the state moved on). The row's attempt, dispatch and answers round
 * come from its state; `submittedAt` is when this run began.
 */
const routeClassification = (
  c: Classification,
  state: Pick<RowState, 'attempt' | 'dispatch' | 'round_id'>,
  at: { submittedAt: string; now: Date; timeScale: number },
): RowStep => {
  const run: Run = { classification_id: c.id, submitted_at: at.submittedAt };
  const elapsedMs = at.now.getTime() - Date.parse(at.submittedAt);
  const decision = decideAfterPoll({
    classification: c,
    attempt: state.attempt,
    elapsedSeconds: Number.isFinite(elapsedMs) ? Math.max(0, elapsedMs / 1000) : 0,
    timeScale: at.timeScale,
  });
  switch (decision.next) {
    case 'wait':
      return { next: 'wait', wait_seconds: decision.waitSeconds, ...run };
    // The classification rides along so Store and Review need not read it again (one API
    // call fewer per row; a verdict is a few kilobytes, far below the state size limit).
    case 'resolved':
      return { next: 'store', ...run, classification: c };
    case 'pending_data':
      return { next: 'review', ...run, classification: c };
    case 'retry':
      // The run after answers: a new attempt would be a new classification that asks its
      // questions again, the reviewer's answers lost. The row ends `failed` (unbilled) and says so.
      if (state.round_id !== undefined) return finalStep(failedResult(c), run);
      // Spec, rule 4: a failed classification is retried as a new one with a new key;
      // the new attempt waits in the queue for a slot like any row.
      return {
        next: 'complete',
        ...run,
        outcome: {
          kind: 'requeue',
          attempt: decision.attempt,
          dispatch: 1,
          delay_seconds: 0,
          reason: `failed (${decision.reason}); new attempt ${decision.attempt}`,
        },
      };
    case 'failed':
      return finalStep(failedResult(c), run);
    case 'abandoned':
      return finalStep(abandonedResult(c), run);
    case 'reconcile':
      // The slow path (architecture, property 5): the run is far longer than any normal one,
      // so this execution ends before it nears the history limit and the row comes back in
      // 15 minutes, when a new dispatch looks at the same classification again (Submit does
      // not create another: the row records which attempt its classification belongs to).
      return {
        next: 'complete',
        ...run,
        outcome: {
          kind: 'requeue',
          attempt: state.attempt,
          dispatch: state.dispatch + 1,
          delay_seconds: RECONCILE_DELAY_SECONDS,
          reason: `${decision.detail}; looked at again in ${RECONCILE_DELAY_SECONDS / 60} min`,
        },
      };
  }
};

// ---------------------------------------------------------------------------
// Submit
// ---------------------------------------------------------------------------

const UploadRecord = z.object({ file_url: z.string(), sha256: z.string() });

const parseJsonOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** A failure of the row's own input, not of the service: recorded, never retried. */
class RowInputError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The sheet's `file_url` for this row attempt. Each upload grant yields a new URL, and the
 * same Idempotency-Key with another body is `422 idempotency-key-reused`: so the first
 * upload's `file_url` is kept (per attempt) and every retry of the attempt sends it again.
 *
 *   Submit ─▶ record? ── yes ─────────────────────────────────────▶ POST (same body)
 *                     └─ no ─▶ read sheet ─▶ upload ─▶ keep record ─▶ POST
 *
 * A creation keeps its record per attempt (`<row>-a<attempt>.json`), an answers round per
 * answers key (`<row>-<answers key>.json`): the key changes with the answers and the sheet.
 */
const sheetFileUrl = async (
  ports: Pick<PipelinePorts, 'service' | 'objects'>,
  sheet: SheetRef | undefined,
  recordKey: string,
): Promise<string | null> => {
  if (!sheet) return null;
  const kept = await ports.objects.getBytes(recordKey);
  if (kept) {
    // An unreadable record is as good as none: the sheet is uploaded again.
    const parsed = UploadRecord.safeParse(parseJsonOrNull(new TextDecoder().decode(kept)));
    if (parsed.success && parsed.data.sha256 === sheet.sha256) return parsed.data.file_url;
  }
  const bytes = await ports.objects.getBytes(sheet.key);
  if (!bytes)
    throw new RowInputError('sheet_not_found', `sheet ${sheet.file_name} is no longer in the bucket`);
  if (sha256Hex(bytes) !== sheet.sha256) {
    throw new RowInputError('sheet_changed', `sheet ${sheet.file_name} changed after the batch was read`);
  }
  const upload = await ports.service.uploadSheet({ filename: sheet.file_name, bytes });
  await ports.objects.put(
    recordKey,
    JSON.stringify({ file_url: upload.fileUrl, sha256: sheet.sha256 }),
    'application/json',
  );
  return upload.fileUrl;
};

const uploadRecordKey = (config: RowStepConfig, row: RowRecord, tag: string): string =>
  `${config.bucketWorkPrefix ?? DEFAULT_WORK_PREFIX}${row.batch_id}/uploads/${row.row}-${tag}.json`;

/** How a failed upload or creation ends the step; errors worth a retry are thrown. */
const submitFailure = async (
  ports: Pick<PipelinePorts, 'batches'>,
  state: RowState,
  error: unknown,
  now: Date,
): Promise<RowStep> => {
  if (error instanceof RowInputError) {
    return finalStep(errorResult(error.message, { reason: error.reason }));
  }
  if (error instanceof TcsProblemError && error.status === 429) {
    // Property 2: the cap is shared; the row goes back to the queue (its lease released
    // by Complete) and a later dispatch, a new execution, tries the same key again.
    const seconds = Math.ceil((error.retryAfterMs ?? REQUEUE_DELAY_DEFAULT_SECONDS * 1000) / 1000);
    const delay = Math.min(REQUEUE_DELAY_MAX_SECONDS, Math.max(REQUEUE_DELAY_MIN_SECONDS, seconds));
    return {
      next: 'complete',
      outcome: {
        kind: 'requeue',
        attempt: state.attempt,
        dispatch: state.dispatch + 1,
        delay_seconds: delay,
        reason: 'rate_limited',
      },
    };
  }
  if (isBatchStopError(error)) {
    // A revoked key or a plan without the API stops the whole batch, said once in the summary.
    // An answers round stops on its own record: the batch's earlier verdicts stand.
    const stop = stopFromProblem(error, now);
    await ports.batches.recordStop(completionIdOf(state), stop);
    return finalStep(stoppedResult(stop));
  }
  if (error instanceof TcsProblemError && error.status >= 400 && error.status < 500 && !error.retryable) {
    // Spec, Errors rule 2: a 4xx will not change on retry; the row records why.
    return finalStep(
      errorResult(`${error.detail}${error.requestId ? ` (request_id ${error.requestId})` : ''}`, {
        reason: error.problem ?? problemNameOf(error.type ?? `http-${error.status}`),
      }),
    );
  }
  if (error instanceof TcsValidationError) {
    return finalStep(errorResult(scrubErrorText(error.message), { reason: 'invalid_request' }));
  }
  // 5xx, network, a 409 in flight that outlasted the client's retries: thrown. The key is
  // deterministic, so a Step Functions Retry replays rather than creates; the Catch makes
  // the row an `error` otherwise.
  throw error;
};

/**
 * Submit: upload the sheet (if any) and create the classification with the attempt's key.
 * Primary course: row ─▶ key ─▶ [upload] ─▶ POST ─▶ row in_progress ─▶ wait 3 s.
 */
export const submitRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'objects' | 'batches'>,
  config: RowStepConfig,
  input: unknown,
): Promise<RowStep> => {
  const state = RowState.parse(input);
  const now = ports.clock.now();
  // The row and the record its stop is kept on (the batch's, or the answers round's) at once: a
  // round trip less between the dispatch and the POST.
  const [row, stopRecord] = await Promise.all([
    loadRow(ports.batches, state.batch_id, state.row),
    ports.batches.getBatch(completionIdOf(state)),
  ]);
  // A late duplicate (the row was finished meanwhile): its result stands.
  if (isOutputStatus(row.status)) {
    return finalStep(storedResult(row), {
      classification_id: row.classification_id,
      submitted_at: row.submitted_at,
    });
  }
  if (isSuperseded(row, state)) {
    throw new Error(
      `row ${state.row_key}: execution a${state.attempt}/d${state.dispatch} superseded by a${row.attempt}/d${row.dispatch}`,
    );
  }
  if (state.round_id !== undefined)
    return submitAnswers(ports, config, { state, roundId: state.round_id, row, stop: stopRecord?.stop, now });
  if (stopRecord?.stop) return finalStep(stoppedResult(stopRecord.stop));
  const product = row.product;
  if (!product) return finalStep(errorResult('the row has no product to classify', { reason: 'no_product' }));

  // This attempt already created its classification (a row back from reconciliation, or a
  // dispatch after a lost Complete): look at it instead of creating again. Replaying the
  // POST would be safe for 24 hours only; after that the same key would create a second one.
  if (row.classification_id && row.submitted_attempt === state.attempt) {
    const c = await ports.service.getClassification(row.classification_id);
    return routeClassification(c, state, {
      submittedAt: row.submitted_at ?? now.toISOString(),
      now: ports.clock.now(),
      timeScale: config.timeScale,
    });
  }

  const externalReference = product.external_reference ?? deriveRowKey(state.batch_id, state.row);
  const idempotencyKey = deriveCreationKey(deriveRowKey(state.batch_id, state.row), state.attempt, {
    operation: product.operation,
    country: product.country,
    description: product.description,
    externalReference,
    sheetSha256: row.sheet?.sha256 ?? null,
  });

  let accepted: Awaited<ReturnType<PipelinePorts['service']['createClassification']>>;
  try {
    const fileUrl = await sheetFileUrl(ports, row.sheet, uploadRecordKey(config, row, `a${state.attempt}`));
    accepted = await ports.service.createClassification(
      {
        operation: product.operation,
        country: product.country,
        description: product.description,
        file_url: fileUrl,
        external_reference: externalReference,
      },
      { idempotencyKey },
    );
  } catch (error) {
    return submitFailure(ports, state, error, now);
  }

  const id = accepted.classification.id;
  // A replay of this attempt's creation: the run started at the first submission.
  const submittedAt = row.classification_id === id && row.submitted_at ? row.submitted_at : now.toISOString();
  await ports.batches.updateRow(
    state.batch_id,
    state.row,
    {
      status: 'in_progress',
      classification_id: id,
      submitted_attempt: state.attempt,
      ...(accepted.classification.app_url ? { app_url: accepted.classification.app_url } : {}),
      submitted_at: submittedAt,
      updated_at: now.toISOString(),
    },
    { onlyIfNotFinal: true },
  );
  if (accepted.classification.status === 'in_progress') {
    return {
      next: 'wait',
      wait_seconds: LIMITS.recommendedPollSeconds,
      classification_id: id,
      submitted_at: submittedAt,
    };
  }
  // The replayed classification has moved on (final, pending, or a status we do not know).
  const c = await ports.service.getClassification(id);
  return routeClassification(c, state, {
    submittedAt,
    now: ports.clock.now(),
    timeScale: config.timeScale,
  });
};

/**
 * Submit in an answers round (shared/pipeline/README.md, "Answer rounds"): the row's
 * classification is `pending_data`; its answers (and new sheet, if any) go to
 * `POST /classifications/{id}/answers` under the round's answers key, so a file dropped twice,
 * a retried Submit or a second dispatch answers once. The classification goes back to
 * `in_progress` and takes a slot, which the dispatcher leased for this round.
 *
 *   posted before ─▶ GET and route (no second POST)
 *   stop on the round ─▶ answers not sent: back to pending_data
 *   [upload] ─▶ POST answers ─ 202 ─▶ row in_progress ─▶ wait 3 s
 *                            ├ 409 conflict (no longer pending_data) ─▶ GET and route
 *                            ├ 429 ─▶ requeue in the round
 *                            └ refused (4xx), sheet gone ─▶ answers not sent: back to pending_data
 */
const submitAnswers = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'objects' | 'batches'>,
  config: RowStepConfig,
  context: { state: RowState; roundId: string; row: RowRecord; stop: BatchStop | undefined; now: Date },
): Promise<RowStep> => {
  const { state, roundId, row, stop, now } = context;
  const round = row.round;
  const classificationId = row.classification_id;
  if (round === undefined || round.round_id !== roundId || classificationId === undefined) {
    throw new Error(`row ${state.row_key}: not taken by answers round ${roundId}`);
  }
  const follow = async (submittedAt: string): Promise<RowStep> =>
    routeClassification(await ports.service.getClassification(classificationId), state, {
      submittedAt,
      now: ports.clock.now(),
      timeScale: config.timeScale,
    });
  const notSent = (failure: RowResult): RowStep =>
    finalStep(answersNotSentResult(row.result, failure, classificationId), {
      classification_id: classificationId,
    });

  // A dispatch after reconciliation or after a lost Complete: the answers are in; look.
  if (round.posted_at) return follow(round.posted_at);
  if (stop) return notSent(stoppedResult(stop));

  let accepted: Awaited<ReturnType<PipelinePorts['service']['answerQuestions']>>;
  try {
    const fileUrl = await sheetFileUrl(ports, round.sheet, uploadRecordKey(config, row, round.answers_key));
    accepted = await ports.service.answerQuestions(
      classificationId,
      { answers: round.answers, file_url: fileUrl },
      { idempotencyKey: round.answers_key },
    );
  } catch (error) {
    // Answered elsewhere (the web app), abandoned, or our own POST accepted beyond the key's
    // 24 hours: the classification says what it is now.
    if (error instanceof TcsProblemError && error.status === 409 && error.problem === 'conflict') {
      return follow(now.toISOString());
    }
    const step = await submitFailure(ports, state, error, now);
    return step.outcome?.kind === 'final' ? notSent(step.outcome.result) : step;
  }

  const postedAt = now.toISOString();
  await ports.batches.updateRow(
    state.batch_id,
    state.row,
    { status: 'in_progress', round: { ...round, posted_at: postedAt }, updated_at: postedAt },
    { onlyIfNotFinal: true },
  );
  if (accepted.classification.status === 'in_progress') {
    return {
      next: 'wait',
      wait_seconds: LIMITS.recommendedPollSeconds,
      classification_id: classificationId,
      submitted_at: postedAt,
    };
  }
  return follow(postedAt);
};

// ---------------------------------------------------------------------------
// Poll, Store, Review
// ---------------------------------------------------------------------------

/** Poll: read the classification, keep the lease alive, decide what comes next. */
export const pollRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'batches' | 'leases' | 'kick'>,
  config: RowStepConfig,
  input: unknown,
): Promise<RowStep> => {
  const state = RowState.parse(input);
  const run = runOf(state);
  const c = await ports.service.getClassification(run.classification_id);
  const now = ports.clock.now();
  const step = routeClassification(c, state, {
    submittedAt: run.submitted_at,
    now,
    timeScale: config.timeScale,
  });
  if (step.next === 'wait') {
    // Renewed once a third of the TTL has gone, not on every poll: one write every few
    // minutes instead of every 3 s, and still far from expiring between two polls.
    const renewedAt = Date.parse(state.step?.lease_renewed_at ?? '');
    if (now.getTime() - renewedAt < config.leaseTtlMs / 3) {
      step.lease_renewed_at = state.step?.lease_renewed_at;
    } else {
      // False when the lease expired and was recovered: the run goes on (the service holds
      // it in progress whatever we do); the dispatcher's balance read counts it among others.
      await ports.leases.renew({ holder: state.holder, ttlMs: config.leaseTtlMs, now: now.getTime() });
      step.lease_renewed_at = now.toISOString();
    }
  } else {
    // The classification has left in_progress: its slot is free at the service now, not
    // after Store or Review. Releasing here lets the next row start while this one is
    // stored (property 1: the lease lasts until the classification leaves in_progress).
    // Complete releases again, a no-op, for the paths that do not come through Poll.
    await ports.leases.release(state.holder);
    await ports.kick.kick('slot_freed');
  }
  return step;
};

/** The classification Poll passed along, else read from the service (a Store run on its own). */
const classificationOf = async (
  ports: Pick<PipelinePorts, 'service'>,
  state: RowState,
  id: string,
): Promise<Classification> => {
  const passed = Classification.safeParse(state.step?.classification);
  if (passed.success && passed.data.id === id) return passed.data;
  return ports.service.getClassification(id);
};

/** Store: the verdict PDF to the batch's outbox and the verdict's columns as the row's result. */
export const storeRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'objects' | 'batches'>,
  config: RowStepConfig,
  input: unknown,
): Promise<RowStep> => {
  const state = RowState.parse(input);
  const run = runOf(state);
  const c = await classificationOf(ports, state, run.classification_id);
  if (c.status !== 'resolved') {
    return routeClassification(c, state, {
      submittedAt: run.submitted_at,
      now: ports.clock.now(),
      timeScale: config.timeScale,
    });
  }
  const row = await loadRow(ports.batches, state.batch_id, state.row);
  const name = verdictPdfName(row.row, row.product?.sku ?? null, c.chosen_ncm);
  const paths = verdictPdfPaths(state.batch_id, name, config.bucketOutboxPrefix ?? DEFAULT_OUTBOX_PREFIX);
  let verdictPdf: string | null = paths.relative;
  let pdfNote: string | null = null;
  try {
    const pdf = await ports.service.downloadVerdictPdf(c.id);
    // Streamed from the signed URL straight to the bucket; the URL itself is never kept.
    await ports.objects.put(paths.key, Readable.fromWeb(pdf.body as WebReadableStream), 'application/pdf');
  } catch (error) {
    // The verdict is billed and valid without its PDF: the row stays resolved and says so.
    // A failure of our bucket is not the service's: thrown, for the workflow's Retry.
    if (!(error instanceof TcsError)) throw error;
    verdictPdf = null;
    pdfNote = `verdict PDF not downloaded: ${scrubErrorText(error.message)}`;
  }
  const result = resolvedResult(c, {
    currentNcm: row.product?.current_ncm ?? null,
    verdictPdf,
    appUrl: row.app_url ?? null,
  });
  if (pdfNote) result.detail = result.detail ? `${result.detail}; ${pdfNote}` : pdfNote;
  return finalStep(result, run);
};

/**
 * When an unanswered classification will be abandoned. The spec has no "pending since"
 * field; with one round of questions, pending_data follows the first run, which began at
 * `created_at`. `created_at` + 30 days is therefore never later than the real deadline
 * (at most one run, about a minute, early): a reviewer is never told there is more time
 * than there is. `now` only when `created_at` cannot be read.
 */
export const abandonsAt = (c: Pick<Classification, 'created_at'>, now: Date): string => {
  const created = Date.parse(c.created_at);
  const from = Number.isFinite(created) ? Math.min(created, now.getTime()) : now.getTime();
  return new Date(from + LIMITS.pendingDataLifetimeDays * 24 * 60 * 60 * 1000).toISOString();
};

/** Review: the questions to the review table; the row ends `pending_data` and frees its slot. */
export const reviewRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'batches' | 'reviews'>,
  config: RowStepConfig,
  input: unknown,
): Promise<RowStep> => {
  const state = RowState.parse(input);
  const run = runOf(state);
  const c = await classificationOf(ports, state, run.classification_id);
  const now = ports.clock.now();
  if (c.status !== 'pending_data') {
    return routeClassification(c, state, {
      submittedAt: run.submitted_at,
      now,
      timeScale: config.timeScale,
    });
  }
  const row = await loadRow(ports.batches, state.batch_id, state.row);
  // Written once: a retried Review must not reset an item someone has started answering.
  if (!(await ports.reviews.get(c.id))) {
    const provisional = c.candidates_are_provisional
      ? ([...c.candidates].sort((a, b) => a.rank - b.rank)[0] ?? null)
      : null;
    const item: ReviewItem = {
      classification_id: c.id,
      batch_id: state.batch_id,
      row: state.row,
      sku: row.product?.sku ?? null,
      external_reference: c.external_reference ?? row.product?.external_reference ?? null,
      description: row.product?.description ?? c.description,
      questions: c.questions,
      provisional_ncm: provisional?.ncm ?? null,
      provisional_confidence: provisional?.confidence ?? null,
      abandons_at: abandonsAt(c, now),
      state: 'pending',
      created_at: now.toISOString(),
    };
    await ports.reviews.put(item);
  }
  return finalStep(pendingResult(c, { appUrl: row.app_url ?? null }), run);
};

// ---------------------------------------------------------------------------
// Complete, and its stand-in for executions that died
// ---------------------------------------------------------------------------

export type CompleteReport = {
  batch_id: string;
  row: number;
  /**
   * `final`: the row has its result (now or already); `requeue`: the row is back in the
   * queue; `superseded`: a later dispatch owns the row and nothing of it was changed.
   */
  outcome: 'final' | 'requeue' | 'superseded';
  /** The row's status after this call. */
  status: RowStatus;
  /** Whether this call changed the row (false for a retried or late Complete). */
  changed: boolean;
  batchComplete: boolean;
  woke: boolean;
  leaseReleased: boolean;
  kicked: boolean;
};

type FinishReport = { changed: boolean; batchComplete: boolean; woke: boolean };

/** Where a finished row is counted: its batch, or the answers round it ran in (`countOn`). */
type FinishOptions = { countOn?: string | undefined };

const finishRowReporting = async (
  ports: Pick<PipelinePorts, 'clock' | 'batches' | 'waiters'>,
  batchId: string,
  row: number,
  result: RowResult,
  options: FinishOptions = {},
): Promise<FinishReport> => {
  const countOn = options.countOn ?? batchId;
  const at = ports.clock.now().toISOString();
  const changed = await ports.batches.updateRow(
    batchId,
    row,
    { status: result.status, result, finished_at: at, updated_at: at },
    { onlyIfNotFinal: true },
  );
  // Counted whether or not this call wrote the result: a retry after a crash between the
  // two writes must still count the row (a set ADD: counting twice is counting once).
  const done = await ports.batches.markRowDone(countOn, row);
  // Every call that sees the batch complete wakes it: a retry may be the only one left to
  // do it, and waking an already woken token is a no-op (BatchWaiters).
  if (done.batchComplete && done.taskToken) {
    await ports.waiters.wake(done.taskToken, { batch_id: countOn });
    return { changed, batchComplete: true, woke: true };
  }
  return { changed, batchComplete: done.batchComplete, woke: false };
};

/**
 * Gives a row its final result (only if it has none), counts it done and wakes the batch (or
 * the answers round, `countOn`) if it was the last.
 */
export const finishRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'batches' | 'waiters'>,
  batchId: string,
  row: number,
  result: RowResult,
  options: FinishOptions = {},
): Promise<void> => {
  await finishRowReporting(ports, batchId, row, result, options);
};

/** What this execution reports: its outcome, a caught error, or the absence of both. */
const outcomeOf = (state: RowState): RowOutcome => {
  const classificationId = state.step?.classification_id;
  const extra = classificationId ? { classification_id: classificationId } : {};
  if (state.error) {
    const cause = state.error.Cause ? scrubErrorText(state.error.Cause) : '';
    const detail = cause
      ? `${scrubErrorText(state.error.Error)}: ${cause}`
      : scrubErrorText(state.error.Error);
    return { kind: 'final', result: errorResult(detail, extra) };
  }
  if (state.step?.outcome) return state.step.outcome;
  return { kind: 'final', result: errorResult('row workflow ended without an outcome', extra) };
};

const kickSafely = async (kick: PipelinePorts['kick'], reason: KickReason): Promise<boolean> => {
  try {
    await kick.kick(reason);
    return true;
  } catch {
    // The one-minute schedule is the safety net (property 3): a lost kick only delays.
    return false;
  }
};

/**
 * Complete: the end of every path of the Row workflow.
 *
 *   final   ─▶ result on the row (once) ─▶ product cache ─▶ count done ─▶ wake batch if last
 *   requeue ─▶ release lease ─▶ row queued (attempt, dispatch) ─▶ message with delay
 *   always  ─▶ release the lease; kick the dispatcher if that freed a slot or queued a message
 *
 * A requeue releases before it updates the row: once the row names the next dispatch, the
 * lease of this attempt may already belong to it (same attempt, same holder), so a retried
 * Complete that finds the row moved on must not release it again.
 */
export const completeRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'queue' | 'batches' | 'cache' | 'leases' | 'waiters' | 'kick'>,
  input: unknown,
): Promise<CompleteReport> => {
  const state = RowState.parse(input);
  const outcome = outcomeOf(state);
  const row = await loadRow(ports.batches, state.batch_id, state.row);
  const base = { batch_id: state.batch_id, row: state.row };
  const now = () => ports.clock.now().toISOString();

  let report: Omit<CompleteReport, 'kicked'>;
  if (isSuperseded(row, state)) {
    // This Complete ran before (or a late execution ends): the row is a later dispatch's.
    // The one thing left may be the message of an interrupted requeue.
    const requeueInterrupted =
      outcome.kind === 'requeue' &&
      row.status === 'queued' &&
      row.attempt === outcome.attempt &&
      row.dispatch === outcome.dispatch;
    if (requeueInterrupted) {
      await ports.queue.send([
        {
          message: {
            batch_id: state.batch_id,
            row: state.row,
            attempt: outcome.attempt,
            dispatch: outcome.dispatch,
            ...(state.round_id !== undefined ? { round_id: state.round_id } : {}),
          },
          delaySeconds: outcome.delay_seconds,
        },
      ]);
    }
    // Another attempt holds another lease: ours can go. The same attempt shares our holder.
    const leaseReleased = row.attempt !== state.attempt ? await ports.leases.release(state.holder) : false;
    report = {
      ...base,
      outcome: requeueInterrupted ? 'requeue' : 'superseded',
      status: row.status,
      changed: false,
      batchComplete: false,
      woke: false,
      leaseReleased,
    };
  } else if (outcome.kind === 'requeue' && !isOutputStatus(row.status)) {
    const leaseReleased = await ports.leases.release(state.holder);
    const changed = await ports.batches.updateRow(
      state.batch_id,
      state.row,
      { status: 'queued', attempt: outcome.attempt, dispatch: outcome.dispatch, updated_at: now() },
      { onlyIfNotFinal: true },
    );
    if (changed) {
      await ports.queue.send([
        {
          message: {
            batch_id: state.batch_id,
            row: state.row,
            attempt: outcome.attempt,
            dispatch: outcome.dispatch,
            ...(state.round_id !== undefined ? { round_id: state.round_id } : {}),
          },
          delaySeconds: outcome.delay_seconds,
        },
      ]);
    }
    report = {
      ...base,
      outcome: 'requeue',
      status: changed ? 'queued' : row.status,
      changed,
      batchComplete: false,
      woke: false,
      leaseReleased,
    };
  } else {
    // A row already final keeps its result: a late or repeated Complete only makes sure
    // what follows a result (cache, count, wake) has happened.
    // (A requeue outcome reaches here only when the row is already final.)
    const result =
      isOutputStatus(row.status) || outcome.kind !== 'final' ? storedResult(row) : outcome.result;
    const classificationId = result.classification_id ?? row.classification_id;
    if (result.status === 'resolved' && row.product_key && row.fingerprint && classificationId) {
      await ports.cache.put({
        product_key: row.product_key,
        fingerprint: row.fingerprint,
        classification_id: classificationId,
        resolved_at: row.finished_at ?? now(),
        result,
        pdf_key: result.verdict_pdf
          ? `${DEFAULT_OUTBOX_PREFIX}${state.batch_id}/${result.verdict_pdf}`
          : null,
        batch_id: state.batch_id,
      });
    }
    const finished = await finishRowReporting(ports, state.batch_id, state.row, result, {
      countOn: completionIdOf(state),
    });
    const leaseReleased = await ports.leases.release(state.holder);
    report = { ...base, outcome: 'final', status: result.status, ...finished, leaseReleased };
  }
  // Poll released the lease and kicked when the run left in_progress: a second kick for the same
  // slot only races the first (the loser puts its message back). A requeue's message is new work,
  // so it kicks even then: a retry with no delay would otherwise wait for the schedule.
  const reason: KickReason | null = report.leaseReleased
    ? 'slot_freed'
    : report.outcome === 'requeue'
      ? 'rows_queued'
      : null;
  return { ...report, kicked: reason ? await kickSafely(ports.kick, reason) : false };
};

/** EventBridge "Step Functions Execution Status Change" (only the fields used). */
const ExecutionStatusChange = z.object({
  detail: z.object({
    status: z.string(),
    input: z.string().nullish(),
    error: z.string().nullish(),
    cause: z.string().nullish(),
  }),
});

const ENDED_WITHOUT_COMPLETE = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

/**
 * A Row execution that ended without reaching Complete (failed outside a Catch, timed
 * out, aborted): the row becomes `error` unless it already has a result or a later
 * dispatch owns it, and the lease is released (property 1). Null for other statuses.
 */
export const rowExecutionEnded = async (
  ports: Pick<PipelinePorts, 'clock' | 'queue' | 'batches' | 'cache' | 'leases' | 'waiters' | 'kick'>,
  event: unknown,
): Promise<CompleteReport | null> => {
  const { detail } = ExecutionStatusChange.parse(event);
  if (!ENDED_WITHOUT_COMPLETE.has(detail.status)) return null;
  if (!detail.input) throw new Error(`Row execution ${detail.status} without its input in the event`);
  const input = RowState.parse(JSON.parse(detail.input));
  return completeRow(ports, {
    batch_id: input.batch_id,
    row: input.row,
    attempt: input.attempt,
    dispatch: input.dispatch,
    row_key: input.row_key,
    holder: input.holder,
    ...(input.round_id !== undefined ? { round_id: input.round_id } : {}),
    error: { Error: `Row workflow ${detail.status}`, ...(detail.error ? { Cause: detail.error } : {}) },
  });
};
