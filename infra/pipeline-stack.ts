/**
 * The logic: twelve functions, the Batch, Row and Answers workflows, the EventBridge rules
 * that start them, the alarms. Everything here can be replaced by a redeploy; the data it works
 * on arrives as props from the stateful stack.
 *
 *   S3 Object Created (inbox/<name>/*.csv|.xlsx) ──rule──▶ Batch workflow
 *   S3 Object Created (answers/<batch-id>/*.csv|.xlsx) ──rule──▶ Answers workflow
 *   schedule rate(1 minute) ─────────────────────rule──▶ dispatch-rows ──▶ Row workflow
 *   Row workflow FAILED/TIMED_OUT/ABORTED ───────rule──▶ row-execution-ended
 *   finalize-batch, finalize-answers ──PutEvents──▶ default bus ("Batch Completed")
 *
 * Each function is wired by the `use*` helpers below, which set the environment variable that
 * names a resource and grant the narrowest access together, so the two never drift apart.
 * The wiring per function follows shared/pipeline/README.md, "Environment of the handlers",
 * and, where a handler uses more than its row there, the handler (functions/): row-review
 * reads the service, row-execution-ended completes with row-complete's ports, dispatch-rows
 * may wake the batch when it finishes a stopped batch's last row. prepare-answers and
 * finalize-answers follow their handlers' ports (shared/pipeline/README.md, "Answer rounds");
 * row-submit also reads `answers/`, where a resumed row's new sheet sits.
 */
import { ArnFormat, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import { type ITable, Table } from 'aws-cdk-lib/aws-dynamodb';
import { EventBus, Match, Rule, RuleTargetInput, Schedule } from 'aws-cdk-lib/aws-events';
import { LambdaFunction, SfnStateMachine } from 'aws-cdk-lib/aws-events-targets';
import { Policy, PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import { Bucket, type IBucket } from 'aws-cdk-lib/aws-s3';
import { type ISecret, Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { type IQueue, Queue, QueueEncryption } from 'aws-cdk-lib/aws-sqs';
import { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { PipelineAlarms } from './alarms.js';
import type { PipelineConfig } from './config.js';
import { HANDLER_NAMES, type HandlerName } from './contract.js';
import { acknowledge, inFinding, wildcardAction, wildcardResource } from './nag.js';
import { functionTimeout, PipelineFunctions } from './pipeline-functions.js';
import { REVIEW_BY_BATCH_INDEX, ROWS_QUEUE_VISIBILITY, type StatefulExports } from './stateful-stack.js';
import { AnswersWorkflow } from './workflows/answers-workflow.js';
import { BatchWorkflow } from './workflows/batch-workflow.js';
import { RowWorkflow } from './workflows/row-workflow.js';

/** The stateful stack's resources, imported by export name (StatefulExports). */
type PipelineData = {
  bucket: IBucket;
  batchTable: ITable;
  reviewTable: ITable;
  cacheTable: ITable;
  leaseTable: ITable;
  rowsQueue: IQueue;
  rowsDeadLetterQueue: IQueue;
  apiKeySecret: ISecret;
};

const importData = (scope: Construct, exported: StatefulExports): PipelineData => ({
  bucket: Bucket.fromBucketAttributes(scope, 'DataBucket', {
    bucketName: exported.bucketName,
    bucketArn: exported.bucketArn,
  }),
  batchTable: Table.fromTableName(scope, 'BatchTable', exported.batchTableName),
  reviewTable: Table.fromTableAttributes(scope, 'ReviewTable', {
    tableName: exported.reviewTableName,
    globalIndexes: [REVIEW_BY_BATCH_INDEX],
  }),
  cacheTable: Table.fromTableName(scope, 'ProductCacheTable', exported.cacheTableName),
  leaseTable: Table.fromTableName(scope, 'LeaseTable', exported.leaseTableName),
  rowsQueue: Queue.fromQueueAttributes(scope, 'RowsQueue', {
    queueArn: exported.rowsQueueArn,
    queueUrl: exported.rowsQueueUrl,
  }),
  rowsDeadLetterQueue: Queue.fromQueueArn(scope, 'RowsDeadLetterQueue', exported.rowsDeadLetterQueueArn),
  apiKeySecret: Secret.fromSecretCompleteArn(scope, 'TcsApiKeySecret', exported.apiKeySecretArn),
});

/** An S3 key prefix pattern a function's object grant is scoped to. */
type Prefix = 'inbox/*' | 'outbox/*' | 'work/*' | 'answers/*';

export type PipelineStackProps = StackProps & { config: PipelineConfig; data: StatefulExports };

/** Input files that start a batch: `inbox/<batch-name>/<file>`; `*` also matches `/`. */
export const INPUT_KEY_PATTERNS = [
  'inbox/*/*.csv',
  'inbox/*/*.CSV',
  'inbox/*/*.xlsx',
  'inbox/*/*.XLSX',
] as const;

/**
 * Filled review files that start an answers round: `answers/<batch-id>/<file>`. A key deeper
 * than one folder matches too (`*` matches `/`); PrepareAnswers skips it (answers-source.ts).
 */
export const ANSWERS_KEY_PATTERNS = [
  'answers/*/*.csv',
  'answers/*/*.CSV',
  'answers/*/*.xlsx',
  'answers/*/*.XLSX',
] as const;

/** Handlers of the Answers workflow of their own; their errors alarm apart (ten metrics per alarm). */
const ANSWERS_HANDLERS: readonly HandlerName[] = ['prepare-answers', 'finalize-answers', 'sweep-reviews'];

export class PipelineStack extends Stack {
  readonly functions: Readonly<Record<HandlerName, NodejsFunction>>;
  readonly batchWorkflow: StateMachine;
  readonly rowWorkflow: StateMachine;
  readonly answersWorkflow: StateMachine;
  readonly batchStartRule: Rule;
  readonly answersStartRule: Rule;
  readonly rowEndedRule: Rule;
  readonly dispatchScheduleRule: Rule;
  readonly reviewSweepRule: Rule;
  /** Events the batch-start rule could not deliver to the Batch workflow. */
  readonly batchStartDeadLetterQueue: Queue;
  /** Events the answers-start rule could not deliver to the Answers workflow. */
  readonly answersStartDeadLetterQueue: Queue;
  readonly alarms: PipelineAlarms;

  constructor(scope: Construct, id: string, props: PipelineStackProps) {
    super(scope, id, props);
    const { config } = props;
    const data = importData(this, props.data);

    const built = new PipelineFunctions(this, 'Functions', { config });
    this.functions = built.functions;
    const fn = this.functions;

    if (functionTimeout('dispatch-rows').toSeconds() >= ROWS_QUEUE_VISIBILITY.toSeconds()) {
      throw new Error('The rows queue visibility timeout must outlast dispatch-rows, or rows start twice');
    }

    const rowWorkflowName = `${this.stackName}-row-workflow`;
    const rowWorkflowArn = this.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: rowWorkflowName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });

    // --- The wiring helpers: one environment variable, one grant. ---------------------------

    const env = (f: NodejsFunction, name: string, value: string) => f.addEnvironment(name, value);
    // Grants land in the function's role, a sibling of the function: findings are acknowledged there.
    const roleOf = (f: NodejsFunction) => {
      if (!f.role) throw new Error(`${f.node.path} has no role`);
      return f.role;
    };
    const bucketArn = inFinding(this, data.bucket.bucketArn);
    const useBucket = (f: NodejsFunction, access: { read?: Prefix; write?: Prefix }) => {
      env(f, 'BUCKET_NAME', data.bucket.bucketName);
      // Object grants are scoped to the prefix the function works in (inbox/, outbox/, work/, answers/).
      if (access.read) {
        data.bucket.grantRead(f, access.read);
        acknowledge(
          roleOf(f),
          `grantRead's action set (GetObject* covers GetObjectVersion for a given version; List* makes a ` +
            `missing key a 404, not a 403) on ${access.read} only.`,
          wildcardAction('s3:GetObject*'),
          wildcardAction('s3:GetBucket*'),
          wildcardAction('s3:List*'),
          wildcardResource(`${bucketArn}/${access.read}`),
        );
      }
      if (access.write) {
        data.bucket.grantPut(f, access.write);
        acknowledge(
          roleOf(f),
          `grantPut on ${access.write} only: object keys are per batch; Abort* ends its own multipart uploads.`,
          wildcardAction('s3:Abort*'),
          wildcardResource(`${bucketArn}/${access.write}`),
        );
      }
    };
    const useTable = (f: NodejsFunction, variable: string, table: ITable, access: 'read' | 'readWrite') => {
      env(f, variable, table.tableName);
      if (access === 'read') table.grantReadData(f);
      else table.grantReadWriteData(f);
      if (table === data.reviewTable) {
        acknowledge(
          roleOf(f),
          "The review table's indexes (by-batch is queried for review.csv); CDK grants them as <table>/index/*.",
          wildcardResource(`${inFinding(this, data.reviewTable.tableArn)}/index/*`),
        );
      }
    };
    // Every function records progress on its batch or row: read-write for all.
    const useBatchTable = (f: NodejsFunction) => useTable(f, 'BATCH_TABLE', data.batchTable, 'readWrite');
    const useLeases = (f: NodejsFunction) => {
      useTable(f, 'LEASE_TABLE', data.leaseTable, 'readWrite');
      env(f, 'LEASE_SCOPE', config.leaseScope);
    };
    const useRowsQueue = (f: NodejsFunction, access: 'send' | 'consume') => {
      env(f, 'ROWS_QUEUE_URL', data.rowsQueue.queueUrl);
      if (access === 'send') data.rowsQueue.grantSendMessages(f);
      else data.rowsQueue.grantConsumeMessages(f);
    };
    const useService = (f: NodejsFunction) => {
      env(f, 'TCS_BASE_URL', config.tcsBaseUrl);
      // The secret's ARN, never its value: the handler reads the key at cold start.
      env(f, 'TCS_API_KEY_SECRET_ARN', data.apiKeySecret.secretArn);
      data.apiKeySecret.grantRead(f);
    };
    const useDispatcher = (f: NodejsFunction) => {
      env(f, 'DISPATCHER_FUNCTION_NAME', fn['dispatch-rows'].functionName);
      fn['dispatch-rows'].grantInvoke(f);
      acknowledge(
        roleOf(f),
        'grantInvoke adds <function>:* for versions and aliases of the dispatcher; no other function.',
        wildcardResource(`${inFinding(this, fn['dispatch-rows'].functionArn)}:*`),
      );
    };

    // --- Each function's reach. ----------------------------------------------------------------

    // Reads batch.json, the file and the sheets' sizes (ListBucket makes a missing sheet a 404,
    // not a 403); writes the batch and its rows; queues dispatchable rows; kicks the dispatcher.
    useBucket(fn['prepare-batch'], { read: 'inbox/*' });
    useBatchTable(fn['prepare-batch']);
    useTable(fn['prepare-batch'], 'CACHE_TABLE', data.cacheTable, 'read');
    useRowsQueue(fn['prepare-batch'], 'send');
    useDispatcher(fn['prepare-batch']);
    useService(fn['prepare-batch']);

    // Keeps the task token on the batch record (SendTaskSuccess granted below, with the workflow).
    useBatchTable(fn['await-rows']);

    // Writes the outbox and copies reused verdict PDFs from earlier batches' outboxes.
    useBucket(fn['finalize-batch'], { read: 'outbox/*', write: 'outbox/*' });
    useBatchTable(fn['finalize-batch']);
    useTable(fn['finalize-batch'], 'REVIEW_TABLE', data.reviewTable, 'read');
    const defaultBus = EventBus.fromEventBusName(this, 'DefaultBus', 'default');
    env(fn['finalize-batch'], 'EVENT_BUS_NAME', defaultBus.eventBusName);
    defaultBus.grantPutEventsTo(fn['finalize-batch']);

    // Balance, slots, receive, lease, StartExecution; records a batch-level stop (401/403) and
    // finishes a stopped batch's rows as not_submitted (waking the batch if it was the last).
    useBatchTable(fn['dispatch-rows']);
    useLeases(fn['dispatch-rows']);
    useRowsQueue(fn['dispatch-rows'], 'consume');
    // A message it cannot start now goes back as a fresh copy (not counted toward the DLQ).
    data.rowsQueue.grantSendMessages(fn['dispatch-rows']);
    useService(fn['dispatch-rows']);
    env(fn['dispatch-rows'], 'ROW_STATE_MACHINE_ARN', rowWorkflowArn);
    StateMachine.fromStateMachineArn(this, 'RowWorkflowByName', rowWorkflowArn).grantStartExecution(
      fn['dispatch-rows'],
    );
    if (config.capOverride !== undefined)
      env(fn['dispatch-rows'], 'CAP_OVERRIDE', String(config.capOverride));

    useBucket(fn['row-submit'], { read: 'inbox/*' }); // the row's technical sheet
    // A row resumed by an answers round may carry a new sheet, checked by PrepareAnswers where
    // the user put it (answers/<batch>/…): Submit uploads it with the answers (row.round.sheet).
    useBucket(fn['row-submit'], { read: 'answers/*' });
    // work/<batch>/uploads/<row>-a<attempt>.json: the sheet's file_url, so every retry of an
    // attempt sends the same body under the same Idempotency-Key (a new upload = a new URL).
    useBucket(fn['row-submit'], { read: 'work/*', write: 'work/*' });
    useBatchTable(fn['row-submit']);
    useService(fn['row-submit']);

    useBatchTable(fn['row-poll']);
    useLeases(fn['row-poll']); // renews the lease; releases it once the run has left in_progress
    useService(fn['row-poll']);
    useDispatcher(fn['row-poll']); // a freed slot is refilled at once

    useBucket(fn['row-store'], { write: 'outbox/*' }); // outbox/<batch>/pdfs/<verdict>
    useBatchTable(fn['row-store']);
    useService(fn['row-store']);

    // Reads the classification (its questions and provisional candidates) from the service.
    useBatchTable(fn['row-review']);
    useTable(fn['row-review'], 'REVIEW_TABLE', data.reviewTable, 'readWrite');
    useService(fn['row-review']);

    useBatchTable(fn['row-complete']);
    useTable(fn['row-complete'], 'CACHE_TABLE', data.cacheTable, 'readWrite');
    useLeases(fn['row-complete']);
    useRowsQueue(fn['row-complete'], 'send'); // a requeue (429, new attempt) goes back with a delay
    useDispatcher(fn['row-complete']);

    // Completes the row as row-complete does (functions/completion-ports.ts): the same reach.
    useBatchTable(fn['row-execution-ended']);
    useTable(fn['row-execution-ended'], 'CACHE_TABLE', data.cacheTable, 'readWrite');
    useLeases(fn['row-execution-ended']);
    useRowsQueue(fn['row-execution-ended'], 'send');
    useDispatcher(fn['row-execution-ended']);

    // Reads the filled review file and the sheets beside it (ListBucket: a missing sheet is a
    // 404, not a 403); writes answers-report.csv to the batch's outbox; marks review items
    // answered; puts resumed rows back to `queued` with their round and queues them; kicks.
    // Looks up the answered classifications at the service (nothing is posted here).
    useBucket(fn['prepare-answers'], { read: 'answers/*', write: 'outbox/*' });
    useBatchTable(fn['prepare-answers']);
    useTable(fn['prepare-answers'], 'REVIEW_TABLE', data.reviewTable, 'readWrite');
    useRowsQueue(fn['prepare-answers'], 'send');
    useDispatcher(fn['prepare-answers']);
    useService(fn['prepare-answers']);

    // finalize-answers looks again at the rows still pending at the service (abandoned after 30
    // days), keeps results.csv and summary.json as revisions (copies within the outbox), writes
    // the new ones and review.csv, closes settled review items, announces the batch again. The
    // daily sweep lists the abandoned classifications, then does the same for each batch they
    // belong to: the same reach.
    for (const reviser of [fn['finalize-answers'], fn['sweep-reviews']]) {
      useBucket(reviser, { read: 'outbox/*', write: 'outbox/*' });
      useBatchTable(reviser);
      useTable(reviser, 'REVIEW_TABLE', data.reviewTable, 'readWrite');
      env(reviser, 'EVENT_BUS_NAME', defaultBus.eventBusName);
      defaultBus.grantPutEventsTo(reviser);
      useService(reviser);
    }

    // --- Workflows. --------------------------------------------------------------------------

    this.batchWorkflow = new BatchWorkflow(this, 'BatchWorkflow', {
      prepare: fn['prepare-batch'],
      awaitRows: fn['await-rows'],
      finalize: fn['finalize-batch'],
      waitForRowsTimeout: Duration.hours(config.batchTimeoutHours),
      logRetention: config.logRetention,
    }).stateMachine;

    this.rowWorkflow = new RowWorkflow(this, 'RowWorkflow', {
      submit: fn['row-submit'],
      poll: fn['row-poll'],
      store: fn['row-store'],
      review: fn['row-review'],
      complete: fn['row-complete'],
      stateMachineName: rowWorkflowName,
      logRetention: config.logRetention,
    }).stateMachine;

    this.answersWorkflow = new AnswersWorkflow(this, 'AnswersWorkflow', {
      prepareAnswers: fn['prepare-answers'],
      awaitRows: fn['await-rows'],
      finalizeAnswers: fn['finalize-answers'],
      // A round waits for its rows as long as a batch does.
      waitForAnswersTimeout: Duration.hours(config.batchTimeoutHours),
      logRetention: config.logRetention,
    }).stateMachine;

    // Whoever finishes the last row wakes the Batch workflow, or the Answers workflow when the
    // row belonged to an answers round, with its task token. Only SendTaskSuccess: a batch (a
    // round) always goes on to Finalize (FinalizeAnswers), never fails from a row. A policy of
    // its own, not the role's default one: each function's resource depends on its default
    // policy, and the workflows depend on await-rows, so the default policy would be a cycle.
    const wakesBatch: HandlerName[] = ['await-rows', 'dispatch-rows', 'row-complete', 'row-execution-ended'];
    for (const name of wakesBatch) {
      const role = roleOf(fn[name]);
      new Policy(this, `${fn[name].node.id}WakesBatch`, {
        roles: [role],
        statements: [
          new PolicyStatement({
            actions: ['states:SendTaskSuccess'],
            resources: [this.batchWorkflow.stateMachineArn, this.answersWorkflow.stateMachineArn],
          }),
        ],
      });
    }

    // --- Rules. ------------------------------------------------------------------------------

    this.batchStartDeadLetterQueue = new Queue(this, 'BatchStartDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      this.batchStartDeadLetterQueue,
      'This queue is itself a dead-letter queue: of the batch-start rule target (EventBridge), not of a queue.',
      'AwsSolutions-SQS3',
    );
    this.batchStartRule = new Rule(this, 'BatchStartRule', {
      description: 'A spreadsheet dropped in inbox/<name>/ starts the Batch workflow',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [data.bucket.bucketName] },
          object: { key: Match.anyOf(...INPUT_KEY_PATTERNS.map((pattern) => Match.wildcard(pattern))) },
        },
      },
      targets: [
        new SfnStateMachine(this.batchWorkflow, {
          // EventBridge retries for a day; an event it still cannot deliver is kept, not lost.
          deadLetterQueue: this.batchStartDeadLetterQueue,
          maxEventAge: Duration.hours(24),
          retryAttempts: 185,
        }),
      ],
    });

    this.answersStartDeadLetterQueue = new Queue(this, 'AnswersStartDeadLetterQueue', {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      this.answersStartDeadLetterQueue,
      'This queue is itself a dead-letter queue: of the answers-start rule target (EventBridge), not of a queue.',
      'AwsSolutions-SQS3',
    );
    this.answersStartRule = new Rule(this, 'AnswersStartRule', {
      description: 'A filled review file dropped in answers/<batch-id>/ starts the Answers workflow',
      eventPattern: {
        source: ['aws.s3'],
        detailType: ['Object Created'],
        detail: {
          bucket: { name: [data.bucket.bucketName] },
          object: { key: Match.anyOf(...ANSWERS_KEY_PATTERNS.map((pattern) => Match.wildcard(pattern))) },
        },
      },
      targets: [
        new SfnStateMachine(this.answersWorkflow, {
          deadLetterQueue: this.answersStartDeadLetterQueue,
          maxEventAge: Duration.hours(24),
          retryAttempts: 185,
        }),
      ],
    });

    this.rowEndedRule = new Rule(this, 'RowExecutionEndedRule', {
      description: 'A Row workflow that failed, timed out or was aborted: complete the row as error',
      eventPattern: {
        source: ['aws.states'],
        detailType: ['Step Functions Execution Status Change'],
        detail: {
          status: ['FAILED', 'TIMED_OUT', 'ABORTED'],
          stateMachineArn: [this.rowWorkflow.stateMachineArn],
        },
      },
      targets: [
        new LambdaFunction(fn['row-execution-ended'], { retryAttempts: 8, maxEventAge: Duration.hours(6) }),
      ],
    });

    // The safety net: a freed slot is normally refilled by a kick within seconds (property 3).
    this.dispatchScheduleRule = new Rule(this, 'DispatchScheduleRule', {
      description: 'Safety net: run the dispatcher every minute even when no kick arrives',
      schedule: Schedule.rate(Duration.minutes(1)),
      targets: [
        new LambdaFunction(fn['dispatch-rows'], {
          event: RuleTargetInput.fromObject({ source: 'schedule' }),
          retryAttempts: 0, // the next minute is the retry
        }),
      ],
    });
    // Kicks and ticks are best effort: a failed one is superseded by the next, not retried.
    fn['dispatch-rows'].configureAsyncInvoke({ retryAttempts: 0 });

    // Rows left unanswered are abandoned by the service after 30 days; once a day their batches'
    // results say so (shared/pipeline/sweep-reviews.ts).
    this.reviewSweepRule = new Rule(this, 'ReviewSweepRule', {
      description: 'Daily: move forward the results of batches with rows abandoned after 30 days unanswered',
      schedule: Schedule.rate(Duration.days(1)),
      targets: [
        new LambdaFunction(fn['sweep-reviews'], {
          event: RuleTargetInput.fromObject({ source: 'schedule' }),
          retryAttempts: 2,
        }),
      ],
    });

    this.alarms = new PipelineAlarms(this, 'Alarms', {
      deadLetterQueues: {
        RowsDeadLetterQueue: data.rowsDeadLetterQueue,
        BatchStartDeadLetterQueue: this.batchStartDeadLetterQueue,
        AnswersStartDeadLetterQueue: this.answersStartDeadLetterQueue,
      },
      rowOutcomeLogGroups: [built.logGroups['row-complete'], built.logGroups['row-execution-ended']],
      dispatcherLogGroup: built.logGroups['dispatch-rows'],
      batchWorkflow: this.batchWorkflow,
      rowWorkflow: this.rowWorkflow,
      answersWorkflow: this.answersWorkflow,
      functionGroups: {
        LambdaErrors: HANDLER_NAMES.filter((name) => !ANSWERS_HANDLERS.includes(name)).map(
          (name): IFunction => fn[name],
        ),
        AnswersLambdaErrors: ANSWERS_HANDLERS.map((name): IFunction => fn[name]),
      },
      ...(config.alarmEmail !== undefined ? { alarmEmail: config.alarmEmail } : {}),
    });
  }
}
