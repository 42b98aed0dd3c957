/**
 * Answers given in the console go the way a filled review.csv goes: they are written as the
 * review file a person would have sent (outbox/results-files.ts, buildReviewCsv, answers filled
 * in) and dropped into `answers/<batch-id>/`, where the file's arrival starts the answers round
 * (same Idempotency-Key rules, same answers-report.csv, same revision of the results). The
 * console adds no second way into the pipeline; it only refuses, before writing anything, what
 * the round would refuse: a row no longer pending, a question left unanswered, an answer too long.
 *
 * The file carries the signed-in person as its `answered-by` metadata, which the round records as
 * who answered: S3's requester would name the console function's role, never the person.
 *
 * The file's name is a hash of what it says, so the same answers sent twice land on the same
 * key; a round started by the copy finds them already sent and sends nothing.
 */
import { joinedRowOf, type ReviewItem } from '../pipeline/core/records.js';
import { buildReviewCsv, type FilledAnswers } from '../pipeline/outbox/results-files.js';
import { characterCount, LIMITS } from '../tcs/schemas.js';
import { type AnswersAccepted, AnswersSubmission, type RowAnswers } from './api.js';
import { type ConsolePorts, type ConsoleUser, checkUploadedSheet, dropPerBatch } from './ports.js';
import { ConsoleRefusal, invalidRequest } from './refusals.js';

type Checked = { item: ReviewItem; batchName: string; answers: RowAnswers };

/** The row's answers, one per question, each within the service's limit. */
const checkAnswers = (item: ReviewItem, given: RowAnswers, where: string): void => {
  const known = new Set(item.questions.map((question) => question.id));
  const unknown = given.answers.find((answer) => !known.has(answer.question_id));
  if (unknown)
    throw new ConsoleRefusal(
      400,
      'unknown_question',
      `${where}: "${unknown.question_id}" is not one of its questions.`,
      {
        row: item.row,
        question_id: unknown.question_id,
      },
    );
  for (const question of item.questions) {
    const answer =
      given.answers.find((candidate) => candidate.question_id === question.id)?.answer.trim() ?? '';
    if (answer === '')
      throw new ConsoleRefusal(
        400,
        'answer_missing',
        `${where}: the question "${question.text}" has no answer; the classifier takes one round of answers, so every question needs one.`,
        { row: item.row, question: question.text },
      );
    if (characterCount(answer) > LIMITS.answerMax)
      throw new ConsoleRefusal(
        400,
        'answer_too_long',
        `${where}: the answer to "${question.text}" has ${characterCount(answer)} characters; the service takes at most ${LIMITS.answerMax}.`,
        { row: item.row, max: LIMITS.answerMax },
      );
  }
};

/** Still waiting for answers: the item is pending and its row still pending_data. */
const checkPending = async (
  ports: Pick<ConsolePorts, 'batches' | 'reviews'>,
  given: RowAnswers,
): Promise<Checked> => {
  const item = await ports.reviews.get(given.classification_id);
  // A later batch's rows that joined this classification are answered with it: the answers go
  // to the batch that asked, whose round settles every batch waiting on it.
  const joinedFrom = item?.joined?.some((name) => joinedRowOf(name)?.batch_id === given.batch_id) ?? false;
  if (!item || (item.batch_id !== given.batch_id && !joinedFrom))
    throw new ConsoleRefusal(
      404,
      'classification_not_found',
      `Classification ${given.classification_id} is not waiting for answers in batch ${given.batch_id}.`,
      { classification_id: given.classification_id, batch_id: given.batch_id },
    );
  const [batch, row] = await Promise.all([
    ports.batches.getBatch(item.batch_id),
    ports.batches.getRow(item.batch_id, item.row),
  ]);
  const batchName = batch?.name ?? item.batch_id;
  const where = `Row ${item.row} of batch ${batchName}`;
  if (item.state !== 'pending' || row?.status !== 'pending_data') {
    const when = item.answered_at ? ` on ${item.answered_at}` : '';
    const now = row ? `it is ${row.status} now` : 'its row is gone';
    throw new ConsoleRefusal(
      409,
      'not_pending',
      `${where} is not waiting for answers: ${item.state === 'answered' ? `it was answered${when}, and ` : ''}${now}. Nothing was sent.`,
      {
        row: item.row,
        batch_name: batchName,
        status: row?.status ?? 'unknown',
        answered_at: item.answered_at ?? '',
      },
    );
  }
  checkAnswers(item, given, where);
  return { item, batchName, answers: given };
};

const checkSheet = (ports: Pick<ConsolePorts, 'objects'>, checked: Checked): Promise<void> =>
  checked.answers.sheet === undefined
    ? Promise.resolve()
    : checkUploadedSheet(ports, checked.item.batch_id, checked.answers.sheet, {
        row: checked.item.row,
        batchName: checked.batchName,
      });

const answersFile = (rows: readonly Checked[]): Buffer => {
  const filled: FilledAnswers = new Map(
    rows.map(({ item, answers }) => [
      item.classification_id,
      {
        answers: new Map(answers.answers.map((answer) => [answer.question_id, answer.answer.trim()])),
        ...(answers.sheet !== undefined ? { sheet: answers.sheet } : {}),
      },
    ]),
  );
  return buildReviewCsv(
    rows.map((row) => row.item),
    ',',
    { filled },
  );
};

export const submitAnswers = async (
  ports: Pick<ConsolePorts, 'batches' | 'reviews' | 'objects' | 'writers' | 'clock'>,
  body: unknown,
  user: ConsoleUser,
): Promise<AnswersAccepted> => {
  const parsed = AnswersSubmission.safeParse(body);
  if (!parsed.success) throw invalidRequest('answers', parsed.error.issues);
  const seen = new Set<string>();
  for (const given of parsed.data.rows) {
    if (seen.has(given.classification_id))
      throw new ConsoleRefusal(
        400,
        'invalid_request',
        `Classification ${given.classification_id} is answered twice.`,
        {
          field: 'rows',
        },
      );
    seen.add(given.classification_id);
  }
  // Every row is checked before any file is written: a refusal writes nothing.
  const checked: Checked[] = [];
  for (const given of parsed.data.rows) checked.push(await checkPending(ports, given));
  for (const row of checked) await checkSheet(ports, row);
  const files = await dropPerBatch(ports, checked, answersFile, user);
  return { files };
};
