/**
 * The EventBridge rules that start the pipeline's work:
 *
 *   S3 Object Created (inbox/<name>/*.csv|.txt|.tsv|.xlsx|.xml|.zip) ▶ Batch workflow (startWorkflowOnDrop)
 *   S3 Object Created (answers/<batch-id>/*.csv|.txt|.tsv|.xlsx) ─▶ Answers workflow   (startWorkflowOnDrop)
 *   Row workflow FAILED/TIMED_OUT/ABORTED ──────────────▶ row-execution-ended
 *   rate(1 minute) ─────────────────────────────────────▶ dispatch-rows
 *   rate(1 day) ────────────────────────────────────────▶ sweep-reviews
 *   S3 Object Created (requests/<batch-id>/*) ──────────▶ write-partial-results
 *   S3 Object Created (reference/ncm/*, work/rechecks/…) ▶ recheck-verdicts
 *   CloudTrail: a write into answers/ or inbox/ ──────────▶ record-writer (who wrote it)
 *
 * Every construct is created on the stack itself, with the id it has always had: a resource's
 * logical id follows its path, and a new one would replace the resource on deploy.
 */
import { Duration, type Stack } from 'aws-cdk-lib';
import { Match, Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import { Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import type { IStateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import { REFERENCE_NCM_PREFIX } from '../shared/ncm-table/reference-table.js';
import {
  BUCKET_PREFIXES,
  type DropArea,
  droppedFileExtensions,
  RECHECK_CONTINUATION_PATTERN,
} from '../shared/pipeline/core/bucket-layout.js';
import { acknowledge } from './nag.js';

/**
 * A spreadsheet dropped one folder deep in `area`, in the spellings S3 keys take: wildcards are
 * case-sensitive, so each extension in lower and upper case (Prepare takes any case).
 */
const droppedFilePatterns = (area: DropArea): string[] =>
  droppedFileExtensions(area)
    .flatMap((extension) => [extension, extension.toUpperCase()])
    .map((extension) => `${BUCKET_PREFIXES[area]}*/*.${extension}`);

/** Input files that start a batch: `inbox/<batch-name>/<file>`; `*` also matches `/`. */
export const INPUT_KEY_PATTERNS = droppedFilePatterns('inbox');

/**
 * Filled review files that start an answers round: `answers/<batch-id>/<file>`. A key deeper
 * than one folder matches too (`*` matches `/`); PrepareAnswers skips it (answers-source.ts).
 */
export const ANSWERS_KEY_PATTERNS = droppedFilePatterns('answers');

export type StartWorkflowOnDropProps = {
  /** Prefix of the construct ids: `<id>Rule`, `<id>DeadLetterQueue`. */
  id: 'BatchStart' | 'AnswersStart';
  /** How operators call the rule (`batch-start`), in the dead-letter queue's acknowledgement. */
  ruleName: string;
  description: string;
  bucket: IBucket;
  keyPatterns: readonly string[];
  workflow: IStateMachine;
};

/** A spreadsheet dropped under a key pattern of the bucket starts the workflow, with the event as input. */
export const startWorkflowOnDrop = (scope: Stack, props: StartWorkflowOnDropProps) => {
  const deadLetterQueue = new Queue(scope, `${props.id}DeadLetterQueue`, {
    encryption: QueueEncryption.SQS_MANAGED,
    enforceSSL: true,
    retentionPeriod: Duration.days(14),
  });
  acknowledge(
    deadLetterQueue,
    `This queue is itself a dead-letter queue: of the ${props.ruleName} rule target (EventBridge), not of a queue.`,
    'AwsSolutions-SQS3',
  );
  const rule = new Rule(scope, `${props.id}Rule`, {
    description: props.description,
    eventPattern: {
      source: ['aws.s3'],
      detailType: ['Object Created'],
      detail: {
        bucket: { name: [props.bucket.bucketName] },
        object: { key: Match.anyOf(...props.keyPatterns.map((pattern) => Match.wildcard(pattern))) },
      },
    },
    targets: [
      new SfnStateMachine(props.workflow, {
        // EventBridge retries for a day; an event it still cannot deliver is kept, not lost.
        deadLetterQueue,
        maxEventAge: Duration.hours(24),
        retryAttempts: 185,
      }),
    ],
  });
  return { rule, deadLetterQueue };
};

/** A Row workflow that ended before Complete ran: its row and its lease must not leak. */
export const completeRowsOfFailedExecutions = (
  scope: Stack,
  rowWorkflow: IStateMachine,
  rowExecutionEnded: IFunction,
): Rule =>
  new Rule(scope, 'RowExecutionEndedRule', {
    description:
      'A Row workflow that failed, timed out or was aborted: follow its classification again, or end the row as error',
    eventPattern: {
      source: ['aws.states'],
      detailType: ['Step Functions Execution Status Change'],
      detail: {
        status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
        stateMachineArn: [rowWorkflow.stateMachineArn],
      },
    },
    targets: [new LambdaFunction(rowExecutionEnded, { retryAttempts: 8, maxEventAge: Duration.hours(6) })],
  });

/**
 * The safety net: a freed slot is normally refilled by a kick within seconds
 * (docs/architecture.md, property 3); the schedule runs the dispatcher when no kick arrives.
 */
export const runDispatcherEveryMinute = (scope: Stack, dispatcher: IFunction): Rule => {
  const rule = new Rule(scope, 'DispatchScheduleRule', {
    description: 'Safety net: run the dispatcher every minute even when no kick arrives',
    schedule: Schedule.rate(Duration.minutes(1)),
    targets: [
      new LambdaFunction(dispatcher, {
        event: RuleTargetInput.fromObject({ source: 'schedule' }),
        retryAttempts: 0, // the next minute is the retry
      }),
    ],
  });
  // Kicks and ticks are best effort: a failed one is superseded by the next, not retried.
  dispatcher.configureAsyncInvoke({ retryAttempts: 0 });
  return rule;
};

/**
 * Rows left unanswered are abandoned by the service after 30 days; once a day their batches'
 * results say so (shared/pipeline/answers/sweep-reviews.ts).
 */
export const sweepReviewsDaily = (scope: Stack, sweepReviews: IFunction): Rule =>
  new Rule(scope, 'ReviewSweepRule', {
    description: 'Daily: move forward the results of batches with rows abandoned after 30 days unanswered',
    schedule: Schedule.rate(Duration.days(1)),
    targets: [
      new LambdaFunction(sweepReviews, {
        event: RuleTargetInput.fromObject({ source: 'schedule' }),
        retryAttempts: 2,
      }),
    ],
  });

/** A request object dropped under `requests/<batch-id>/` asks for that batch's partial results now. */
export const writePartialResultsOnRequest = (
  scope: Stack,
  bucket: IBucket,
  writePartialResults: IFunction,
): Rule =>
  new Rule(scope, 'PartialResultsRequestRule', {
    description: "An object dropped in requests/<batch-id>/ writes that batch's partial results",
    eventPattern: {
      source: ['aws.s3'],
      detailType: ['Object Created'],
      detail: {
        bucket: { name: [bucket.bucketName] },
        object: { key: [{ prefix: BUCKET_PREFIXES.requests }] },
      },
    },
    // A lost request costs one more drop: a few retries, no dead-letter queue.
    targets: [new LambdaFunction(writePartialResults, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
  });

/**
 * A new NCM table dropped under `reference/ncm/` lists the earlier verdicts whose code it no longer
 * holds in force; a leg of that recheck whose time is spent drops its progress under
 * `work/rechecks/`, which calls the function again (shared/pipeline/reuse/recheck-verdicts.ts).
 */
export const recheckVerdictsOnNewTable = (scope: Stack, bucket: IBucket, recheckVerdicts: IFunction): Rule =>
  new Rule(scope, 'RecheckVerdictsRule', {
    description:
      'A table dropped in reference/ncm/ lists the earlier verdicts whose NCM is no longer in force',
    eventPattern: {
      source: ['aws.s3'],
      detailType: ['Object Created'],
      detail: {
        bucket: { name: [bucket.bucketName] },
        object: {
          key: Match.anyOf(Match.prefix(REFERENCE_NCM_PREFIX), Match.wildcard(RECHECK_CONTINUATION_PATTERN)),
        },
      },
    },
    // A lost event costs one more drop of the table: a few retries, no dead-letter queue.
    targets: [new LambdaFunction(recheckVerdicts, { retryAttempts: 2, maxEventAge: Duration.hours(1) })],
  });

/** The S3 calls that write an object, as CloudTrail names them. */
const OBJECT_WRITE_CALLS = ['PutObject', 'CopyObject', 'PostObject', 'CompleteMultipartUpload'] as const;

/**
 * Each write into `answers/` or `inbox/`, as CloudTrail records it (a data event; the trail is the
 * stateful stack's), keeps who wrote the object: the principal S3 authenticated, whatever the file
 * or its metadata say (shared/pipeline/people/record-writer.ts). PrepareAnswers waits for it.
 */
export const recordWritersOfDrops = (scope: Stack, bucket: IBucket, recordWriter: IFunction): Rule =>
  new Rule(scope, 'RecordWriterRule', {
    description: "Who wrote each file dropped in answers/ or inbox/, from CloudTrail's record of the write",
    eventPattern: {
      source: ['aws.s3'],
      detailType: ['AWS API Call via CloudTrail'],
      detail: {
        eventSource: ['s3.amazonaws.com'],
        eventName: [...OBJECT_WRITE_CALLS],
        requestParameters: {
          bucketName: [bucket.bucketName],
          key: Match.anyOf(Match.prefix(BUCKET_PREFIXES.answers), Match.prefix(BUCKET_PREFIXES.inbox)),
        },
      },
    },
    // A lost record leaves the round's person as the account S3 named: retried for a day.
    targets: [new LambdaFunction(recordWriter, { retryAttempts: 8, maxEventAge: Duration.hours(24) })],
  });
