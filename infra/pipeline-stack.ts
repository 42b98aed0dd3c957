/**
 * The logic: a function per handler name, the Batch, Row and Answers workflows, the EventBridge
 * rules that start them, the alarms and the operators' dashboard. Everything here can be replaced by a redeploy; the data it works
 * on arrives as props from the stateful stack.
 *
 *   S3 Object Created (inbox/<name>/*.csv|.txt|.tsv|.xlsx) ──rule──▶ Batch workflow
 *   S3 Object Created (answers/<batch-id>/*.csv|.txt|.tsv|.xlsx) ──rule──▶ Answers workflow
 *   schedule rate(1 minute) ─────────────────────rule──▶ dispatch-rows ──▶ Row workflow
 *   Row workflow FAILED/TIMED_OUT/ABORTED ───────rule──▶ row-execution-ended
 *   finalize-batch, finalize-answers ──PutEvents──▶ default bus ("Batch Completed")
 *
 * What each function may reach, and the environment that names it, follow from its
 * description in functions/catalogue.ts (function-reach.ts applies it); the rules are in
 * pipeline-rules.ts. Every construct sits on the stack itself under the id it has always had,
 * so the logical ids, hence the deployed resources, stay the same.
 */
import { ArnFormat, Duration, Stack, type StackProps } from 'aws-cdk-lib';
import type { Rule } from 'aws-cdk-lib/aws-events';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { Topic } from 'aws-cdk-lib/aws-sns';
import type { Queue } from 'aws-cdk-lib/aws-sqs';
import type { StateMachine } from 'aws-cdk-lib/aws-stepfunctions';
import type { Construct } from 'constructs';
import { BATCH_WAIT, HANDLER_NAMES, type HandlerName } from '../shared/contract.js';
import { PipelineAlarms } from './alarms.js';
import type { PipelineConfig } from './config.js';
import { PipelineDashboard } from './dashboard.js';
import { allowWakingWorkflows, grantFunctionReach } from './function-reach.js';
import { noticesTopic } from './notices-topic.js';
import { importData, type PipelineData } from './pipeline-data.js';
import { functionTimeout, PipelineFunctions } from './pipeline-functions.js';
import {
  ANSWERS_KEY_PATTERNS,
  completeRowsOfFailedExecutions,
  INPUT_KEY_PATTERNS,
  recheckVerdictsOnNewTable,
  recordWritersOfDrops,
  runDispatcherEveryMinute,
  startWorkflowOnDrop,
  sweepReviewsDaily,
  writePartialResultsOnRequest,
} from './pipeline-rules.js';
import { ROWS_QUEUE_VISIBILITY, type StatefulExports } from './stateful-stack.js';
import { AnswersWorkflow } from './workflows/answers-workflow.js';
import { BatchWorkflow } from './workflows/batch-workflow.js';
import { RowWorkflow } from './workflows/row-workflow.js';

export type PipelineStackProps = StackProps & { config: PipelineConfig; data: StatefulExports };

/**
 * Handlers that move results forward outside the batch's own run (answers rounds, the sweep, the
 * partial results, the recheck after the NCM table changes): their errors alarm apart, as an
 * alarm's metric math takes ten metrics at most.
 * The alarm keeps its first id, `AnswersLambdaErrors`, so a deploy does not replace it.
 */
const ANSWERS_HANDLERS: readonly HandlerName[] = [
  'prepare-answers',
  'finalize-answers',
  'sweep-reviews',
  'write-partial-results',
  'recheck-verdicts',
  'record-writer',
];

type Functions = Readonly<Record<HandlerName, NodejsFunction>>;

export class PipelineStack extends Stack {
  readonly functions: Functions;
  readonly batchWorkflow: StateMachine;
  readonly rowWorkflow: StateMachine;
  readonly answersWorkflow: StateMachine;
  readonly batchStartRule: Rule;
  readonly answersStartRule: Rule;
  readonly recordWriterRule: Rule;
  /** Where people are told a batch finished, questions wait, verdicts wait to be checked. */
  readonly noticesTopic: Topic;
  readonly rowEndedRule: Rule;
  readonly dispatchScheduleRule: Rule;
  readonly reviewSweepRule: Rule;
  readonly partialResultsRequestRule: Rule;
  readonly recheckVerdictsRule: Rule;
  /** Events the batch-start rule could not deliver to the Batch workflow. */
  readonly batchStartDeadLetterQueue: Queue;
  /** Events the answers-start rule could not deliver to the Answers workflow. */
  readonly answersStartDeadLetterQueue: Queue;
  readonly alarms: PipelineAlarms;
  readonly dashboard: PipelineDashboard;

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

    // A fixed name, so dispatch-rows gets the Row workflow's ARN without a reference: the
    // workflow invokes row-complete, which invokes dispatch-rows.
    const rowWorkflowName = `${this.stackName}-row-workflow`;
    const rowWorkflowArn = this.formatArn({
      service: 'states',
      resource: 'stateMachine',
      resourceName: rowWorkflowName,
      arnFormat: ArnFormat.COLON_RESOURCE_NAME,
    });
    this.noticesTopic = noticesTopic(this, config);
    grantFunctionReach(this, {
      functions: fn,
      data,
      config,
      rowWorkflowArn,
      noticesTopic: this.noticesTopic,
    });

    const workflows = buildWorkflows(this, fn, config, rowWorkflowName);
    this.batchWorkflow = workflows.batch;
    this.rowWorkflow = workflows.row;
    this.answersWorkflow = workflows.answers;
    allowWakingWorkflows(this, fn, [this.batchWorkflow, this.answersWorkflow]);

    const batchStart = startWorkflowOnDrop(this, {
      id: 'BatchStart',
      ruleName: 'batch-start',
      description: 'A spreadsheet dropped in inbox/<name>/ starts the Batch workflow',
      bucket: data.bucket,
      keyPatterns: INPUT_KEY_PATTERNS,
      workflow: this.batchWorkflow,
    });
    this.batchStartRule = batchStart.rule;
    this.batchStartDeadLetterQueue = batchStart.deadLetterQueue;
    const answersStart = startWorkflowOnDrop(this, {
      id: 'AnswersStart',
      ruleName: 'answers-start',
      description: 'A filled review file dropped in answers/<batch-id>/ starts the Answers workflow',
      bucket: data.bucket,
      keyPatterns: ANSWERS_KEY_PATTERNS,
      workflow: this.answersWorkflow,
    });
    this.answersStartRule = answersStart.rule;
    this.answersStartDeadLetterQueue = answersStart.deadLetterQueue;
    this.rowEndedRule = completeRowsOfFailedExecutions(this, this.rowWorkflow, fn['row-execution-ended']);
    this.dispatchScheduleRule = runDispatcherEveryMinute(this, fn['dispatch-rows']);
    this.reviewSweepRule = sweepReviewsDaily(this, fn['sweep-reviews']);
    this.partialResultsRequestRule = writePartialResultsOnRequest(
      this,
      data.bucket,
      fn['write-partial-results'],
    );
    this.recheckVerdictsRule = recheckVerdictsOnNewTable(this, data.bucket, fn['recheck-verdicts']);
    this.recordWriterRule = recordWritersOfDrops(this, data.bucket, fn['record-writer']);

    this.alarms = addAlarms(this, built, data, config);
    this.dashboard = new PipelineDashboard(this, 'Dashboard', {
      alarms: this.alarms,
      rowOutcomeLogGroups: [built.logGroups['row-complete'], built.logGroups['row-execution-ended']],
      finalizeLogGroup: built.logGroups['finalize-batch'],
    });
  }
}

const buildWorkflows = (scope: Stack, fn: Functions, config: PipelineConfig, rowWorkflowName: string) => ({
  batch: new BatchWorkflow(scope, 'BatchWorkflow', {
    prepare: fn['prepare-batch'],
    awaitRows: fn['await-rows'],
    finalize: fn['finalize-batch'],
    longestWaitForRows: Duration.seconds(
      Math.min(BATCH_WAIT.longestSeconds, (config.batchTimeoutHours ?? Number.POSITIVE_INFINITY) * 3600),
    ),
    logRetention: config.logRetention,
  }).stateMachine,
  row: new RowWorkflow(scope, 'RowWorkflow', {
    submit: fn['row-submit'],
    poll: fn['row-poll'],
    store: fn['row-store'],
    review: fn['row-review'],
    complete: fn['row-complete'],
    stateMachineName: rowWorkflowName,
    logRetention: config.logRetention,
  }).stateMachine,
  answers: new AnswersWorkflow(scope, 'AnswersWorkflow', {
    prepareAnswers: fn['prepare-answers'],
    awaitRows: fn['await-rows'],
    finalizeAnswers: fn['finalize-answers'],
    // A round resumes the rows someone answered, never a whole catalogue: a fixed wait, the
    // deployment's ceiling when it sets one, else the shortest a batch waits.
    waitForAnswersTimeout: config.batchTimeoutHours
      ? Duration.hours(config.batchTimeoutHours)
      : Duration.seconds(BATCH_WAIT.shortestSeconds),
    logRetention: config.logRetention,
  }).stateMachine,
});

const addAlarms = (
  stack: PipelineStack,
  built: PipelineFunctions,
  data: PipelineData,
  config: PipelineConfig,
): PipelineAlarms =>
  new PipelineAlarms(stack, 'Alarms', {
    deadLetterQueues: {
      RowsDeadLetterQueue: data.rowsDeadLetterQueue,
      BatchStartDeadLetterQueue: stack.batchStartDeadLetterQueue,
      AnswersStartDeadLetterQueue: stack.answersStartDeadLetterQueue,
    },
    rowOutcomeLogGroups: [built.logGroups['row-complete'], built.logGroups['row-execution-ended']],
    dispatcherLogGroup: built.logGroups['dispatch-rows'],
    batchWorkflow: stack.batchWorkflow,
    rowWorkflow: stack.rowWorkflow,
    answersWorkflow: stack.answersWorkflow,
    functionGroups: {
      LambdaErrors: HANDLER_NAMES.filter((name) => !ANSWERS_HANDLERS.includes(name)).map(
        (name): IFunction => built.functions[name],
      ),
      AnswersLambdaErrors: ANSWERS_HANDLERS.map((name): IFunction => built.functions[name]),
    },
    ...(config.alarmEmail !== undefined ? { alarmEmail: config.alarmEmail } : {}),
  });
