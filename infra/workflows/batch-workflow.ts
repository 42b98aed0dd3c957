/**
 * The Batch workflow: one Standard execution per input object version.
 *
 *   Prepare ─▶ RouteAfterPrepare ─┬─ wait ──────▶ WaitForRows (.waitForTaskToken) ─┐
 *      │                          ├─ finalize ──────────────────────────────────────┼─▶ Finalize ─▶ Done
 *      │                          └─ otherwise ─▶ Duplicate (Succeed)                │
 *      └── Catch States.ALL ($.error) ───────────────────────────────────────────────┤
 *                          WaitForRows Catch States.ALL ($.wait_error), timeout too ─┘
 *
 * The shape is prepare-wait-finalize.ts's, shared with the Answers workflow.
 */
import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { prepareWaitFinalize } from './prepare-wait-finalize.js';

export type BatchWorkflowProps = {
  prepare: IFunction;
  awaitRows: IFunction;
  finalize: IFunction;
  /** How long WaitForRows waits for the last row before the batch is finalized as it stands. */
  waitForRowsTimeout: Duration;
  logRetention: RetentionDays;
};

export class BatchWorkflow extends Construct {
  readonly stateMachine: StateMachine;

  constructor(scope: Construct, id: string, props: BatchWorkflowProps) {
    super(scope, id);
    this.stateMachine = prepareWaitFinalize(this, {
      states: {
        prepare: 'Prepare',
        route: 'RouteAfterPrepare',
        wait: 'WaitForRows',
        finalize: 'Finalize',
        done: 'Done',
        skipped: 'Duplicate',
        planned: 'Planned',
      },
      skippedComment: 'Another execution owns this object version',
      prepare: props.prepare,
      awaitRows: props.awaitRows,
      finalize: props.finalize,
      waitRecordPath: '$.prepare.batch_id',
      waitTimeout: props.waitForRowsTimeout,
      logId: 'batch-workflow',
      logRetention: props.logRetention,
    });
  }
}
