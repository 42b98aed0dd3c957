/**
 * What the Answers workflow's first step is given and hands on: PrepareAnswers' input, and its
 * result, which FinalizeAnswers reads back from the workflow's state. Kept apart from
 * prepare-answers.ts, so that FinalizeAnswers (and the daily sweep) know the result without
 * loading what reads an answers file.
 */
import * as z from 'zod';

/**
 * PrepareAnswers' input: the S3 event, the workflow execution's id, and who answered when the caller
 * knows.
 */
export const PrepareAnswersInput = z.object({
  event: z.unknown(),
  execution_id: z.string().min(1),
});
export type PrepareAnswersInput = z.infer<typeof PrepareAnswersInput>;

/**
 * What PrepareAnswers tells the Answers workflow: the batch and round, and what comes next: wait
 * for the resumed rows, go straight to FinalizeAnswers, or skip (this execution owns no round).
 */
export const PrepareAnswersResult = z.object({
  batch_id: z.string().nullable(),
  round_id: z.string().nullable(),
  /**
   * `skip`: a duplicate delivery, not an answers file, or no such batch. `finalize`: nothing to wait
   * for. `again`: S3's record of who wrote the file has not come yet; the workflow calls again.
   */
  next: z.enum(['wait', 'finalize', 'skip', 'again']),
  /** One sentence for the workflow's log: why it skipped, or how many rows resumed. */
  detail: z.string().optional(),
});
export type PrepareAnswersResult = z.infer<typeof PrepareAnswersResult>;
