import { TcsProblemError } from '../../tcs/errors.js';
import { submittedEvent } from '../audit/audit-events.js';
import { whoAnswered } from '../core/audit-records.js';
import { uploadRecordKey } from '../core/bucket-layout.js';
import type { PipelinePorts, WholeObjects } from '../core/ports.js';
import type { BatchStop, RowRecord, RowState, RowStep } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { answersNotSentResult, stoppedResult } from '../core/row-results.js';
import { followAcceptedRun, followClassification } from './route-classification.js';
import { finalStep } from './row-state.js';
import { sheetFileUrl } from './sheet-upload.js';
import { submitFailure } from './submit-failure.js';

/**
 * Submit in an answers round: posts a row's answers and gives the next step. The row's
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
export const submitAnswers = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'batches' | 'audit'> & { objects: WholeObjects },
  context: { state: RowState; roundId: string; row: RowRecord; stop: BatchStop | undefined; now: Date },
): Promise<RowStep> => {
  const { state, roundId, row, stop, now } = context;
  const round = row.round;
  const classificationId = row.classification_id;
  if (round === undefined || round.round_id !== roundId || classificationId === undefined) {
    throw new Error(`row ${state.row_key}: not taken by answers round ${roundId}`);
  }
  const follow = (submittedAt: string): Promise<RowStep> =>
    followClassification(ports, state, { id: classificationId, submittedAt });
  const notSent = (failure: RowResult): RowStep =>
    finalStep(answersNotSentResult(row.result, failure, classificationId), {
      classification_id: classificationId,
    });

  // audit.csv's `submitted` of the answers, who answered named, at the time the POST was accepted.
  const recordPosted = (at: string) =>
    ports.audit.record([
      submittedEvent(
        { batch_id: row.batch_id, row: row.row, sku: row.product?.sku ?? null },
        { at, classification_id: classificationId, who: whoAnswered(round), answers: true },
      ),
    ]);
  // A later dispatch (a run too long to poll, or a lost Complete): the answers are in; look. (Recorded
  // again under the same key: a Submit that died before recording it is not lost.)
  if (round.posted_at) {
    await recordPosted(round.posted_at);
    return follow(round.posted_at);
  }
  if (stop) return notSent(stoppedResult(stop));

  let accepted: Awaited<ReturnType<PipelinePorts['service']['answerQuestions']>>;
  try {
    const fileUrl = await sheetFileUrl(
      ports,
      round.sheet,
      uploadRecordKey(row.batch_id, row.row, round.answers_key),
    );
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
  await ports.batches.moveRow(state.batch_id, state.row, {
    move: 'answers_posted',
    round: { ...round, posted_at: postedAt },
    at: postedAt,
  });
  await recordPosted(postedAt);
  return followAcceptedRun(ports, state, {
    id: classificationId,
    submittedAt: postedAt,
    status: accepted.classification.status,
  });
};
