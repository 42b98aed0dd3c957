/**
 * The Answers workflow: one Standard execution per answers file version dropped into
 * `answers/<batch-id>/`. Same conventions as the Batch workflow; the round it runs is tracked
 * like a batch (shared/pipeline/README.md, "Answer rounds"), so WaitForAnswers is await-rows on
 * the round id.
 *
 *   PrepareAnswers ─▶ RouteAfterPrepareAnswers ─┬─ wait ─────▶ WaitForAnswers (.waitForTaskToken) ─┐
 *      ▲                                        ├─ again ─▶ PrepareAnswers (who wrote the file: not yet known)
 *      │                                        ├─ finalize ─────────────────────────────────────────┼─▶ FinalizeAnswers ─▶ FinalizeAnswersAgain ─▶ AnswersDone
 *      │                                        └─ otherwise ─▶ AnswersSkipped (Succeed)              │
 *      └── Catch States.ALL ($.error) ───────────────────────────────────────────────────────────────┤
 *                                   WaitForAnswers Catch States.ALL ($.wait_error), timeout too ─────┘
 *
 * FinalizeAnswersAgain calls FinalizeAnswers again while it answers `next: "again"`: a batch's
 * files are revised in legs, as Finalize writes them. The shape is prepare-wait-finalize.ts's,
 * shared with the Batch workflow.
 */
import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { prepareWaitFinalize } from './prepare-wait-finalize.js';

export type AnswersWorkflowProps = {
  prepareAnswers: IFunction;
  /** await-rows, the same function as the Batch workflow's WaitForRows. */
  awaitRows: IFunction;
  finalizeAnswers: IFunction;
  /** How long WaitForAnswers waits for the round's last row before the round is finalized as it stands. */
  waitForAnswersTimeout: Duration;
  logRetention: RetentionDays;
};

export class AnswersWorkflow extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: AnswersWorkflowProps) {
    super(scope, id);
    this.stateMachine = prepareWaitFinalize(this, {
      states: {
        prepare: 'PrepareAnswers',
        route: 'RouteAfterPrepareAnswers',
        wait: 'WaitForAnswers',
        finalize: 'FinalizeAnswers',
        again: 'FinalizeAnswersAgain',
        done: 'AnswersDone',
        skipped: 'AnswersSkipped',
      },
      skippedComment: 'Not an answers file of a known batch, or another execution owns this object version',
      // PrepareAnswers answers `again` while S3's record of who wrote the file has not come
      // (shared/pipeline/people/answers-writer.ts): it looks for a minute per call, for 15 at most.
      prepareInLegs: true,
      prepare: props.prepareAnswers,
      awaitRows: props.awaitRows,
      finalize: props.finalizeAnswers,
      // The round record is a BatchRecord of its own: await-rows keeps the token there.
      waitRecordPath: '$.prepare.round_id',
      waitTimeout: { fixed: props.waitForAnswersTimeout },
      logId: 'answers-workflow',
      logRetention: props.logRetention,
    });
  }
}
