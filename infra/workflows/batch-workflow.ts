/**
 * The Batch workflow: one Standard execution per input object version.
 *
 *   Prepare ─▶ RouteAfterPrepare ─┬─ wait ──────▶ WaitForRows (.waitForTaskToken) ─┐
 *      ▲                          ├─ again ─▶ Prepare                                │
 *      │                          ├─ finalize ──────────────────────────────────────┼─▶ Finalize ─▶ FinalizeAgain ─▶ Done
 *      │                          └─ otherwise ─▶ Duplicate (Succeed)                │      ▲             │
 *      └── Catch States.ALL ($.error) ───────────────────────────────────────────────┤      └── again ────┘
 *                          WaitForRows Catch States.ALL ($.wait_error), timeout too ─┘
 *
 * Prepare and Finalize work in legs: while Prepare answers `next: "again"` (its time spent, rows
 * left to write), RouteAfterPrepare calls it again with the whole state, its answer at
 * `$.prepare.written_through`; while Finalize does, FinalizeAgain calls it again with where it
 * stopped (`$.finalized.settling`).
 *
 * The shape is prepare-wait-finalize.ts's, shared with the Answers workflow. WaitForRows waits as
 * long as Prepare says the batch may need (`$.prepare.wait_seconds`, its TimeoutSecondsPath):
 * the rows to classify at the cap, with a margin, from 72 h to a year (shared/contract.ts, BATCH_WAIT).
 */
import type { Duration } from 'aws-cdk-lib';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { Construct } from 'constructs';
import { BATCH_WAIT } from '../../shared/contract.js';
import { prepareWaitFinalize } from './prepare-wait-finalize.js';

export type BatchWorkflowProps = {
  prepare: IFunction;
  awaitRows: IFunction;
  finalize: IFunction;
  /**
   * The longest WaitForRows may wait for the last row before the batch is finalized as it stands:
   * Prepare's sized wait never passes it (a year at most, or the deployment's `batchTimeoutHours`).
   */
  longestWaitForRows: Duration;
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
        again: 'FinalizeAgain',
        done: 'Done',
        skipped: 'Duplicate',
        planned: 'Planned',
      },
      prepareInLegs: true,
      skippedComment: 'Another execution owns this object version',
      prepare: props.prepare,
      awaitRows: props.awaitRows,
      finalize: props.finalize,
      waitRecordPath: '$.prepare.batch_id',
      waitTimeout: { path: BATCH_WAIT.secondsPath, longest: props.longestWaitForRows },
      logId: 'batch-workflow',
      logRetention: props.logRetention,
    });
  }
}
