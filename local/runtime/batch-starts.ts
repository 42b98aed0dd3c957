/**
 * Starting a batch, or an answers round, as a user does on AWS: the files are dropped into the
 * bucket (bucket.ts) and the *Object Created* event goes through the template's rules, which
 * start the workflow. The execution a rule started is remembered by batch (or round) id:
 * waitForBatch watches it, close() interrupts it while it runs.
 */
import { basename, dirname, extname } from 'node:path';
import type { S3Client } from '@aws-sdk/client-s3';
import { answersSourceFromEvent } from '../../shared/pipeline/answers/answers-source.js';
import { CLI_REQUESTER_PREFIX } from '../../shared/pipeline/people/answers-writer.js';
import { batchSourceFromEvent } from '../../shared/pipeline/prepare/batch-source.js';
import type { LocalAws } from '../aws/local-aws.js';
import type { ExecutionRecord } from '../aws/step-functions.js';
import { dropAnswers, dropBatch } from './bucket.js';
import type { LocalRules, RoutedTarget } from './rules.js';

export type BatchSubmission = {
  file: string;
  sheetsDir?: string;
  optionsFile?: string;
  batchName?: string;
  /** Who sends it at this machine (`--by`, else the OS user): the event names them as the CLI's user. */
  sentBy?: string;
};

export type AnswersSubmission = {
  file: string;
  batchId: string;
  sheets?: readonly string[];
  sheetsDir?: string;
  answeredBy: string;
};

export type BatchStarts = {
  submit(input: BatchSubmission): Promise<{ batchId: string; batchName: string }>;
  submitAnswers(input: AnswersSubmission): Promise<{ roundId: string; missingSheets: string[] }>;
  /** The workflow execution this process started for a batch or round, if any. */
  executionOf(batchId: string): ExecutionRecord | null;
  /** Batch (or round) id → execution ARN, for those whose execution is still RUNNING. */
  running(): Map<string, string>;
};

/** The execution a rule started for the event; null when no rule's target is a workflow. */
const startedExecution = (routed: readonly RoutedTarget[]): string | null =>
  routed.find((delivery) => delivery.executionArn)?.executionArn ?? null;

export const createBatchStarts = (deps: {
  s3: S3Client;
  bucket: string;
  rules: LocalRules;
  localAws: LocalAws;
  log: (line: string) => void;
}): BatchStarts => {
  const { s3, bucket, rules, log } = deps;
  /** Batch id (or round id) → the Batch (or Answers) workflow execution this process started for it. */
  const executions = new Map<string, string>();

  const submit = async (input: BatchSubmission) => {
    const batchName = input.batchName ?? basename(input.file, extname(input.file));
    const event = await dropBatch(s3, bucket, {
      file: input.file,
      batchName,
      ...(input.sheetsDir !== undefined ? { sheetsDir: input.sheetsDir } : {}),
      ...(input.optionsFile !== undefined ? { optionsFile: input.optionsFile } : {}),
      ...(input.sentBy !== undefined ? { requester: `${CLI_REQUESTER_PREFIX}${input.sentBy}` } : {}),
    });
    const found = batchSourceFromEvent(event);
    if (!found)
      throw new Error(`${basename(input.file)} is not a batch file (a .csv or .xlsx in inbox/<name>/)`);
    const executionArn = startedExecution(await rules.route('default', event));
    if (!executionArn) throw new Error(`No rule of the template starts a batch for ${found.source.key}`);
    executions.set(found.batchId, executionArn);
    log(`batch ${found.batchId}: ${found.source.key} started ${executionArn}`);
    return { batchId: found.batchId, batchName: found.batchName };
  };

  const submitAnswers = async (input: AnswersSubmission) => {
    const { event, missingSheets } = await dropAnswers(s3, bucket, {
      file: input.file,
      batchId: input.batchId,
      sheets: input.sheets ?? [],
      sheetsDir: input.sheetsDir ?? dirname(input.file),
      requester: `${CLI_REQUESTER_PREFIX}${input.answeredBy}`,
    });
    const found = answersSourceFromEvent(event);
    if (!found)
      throw new Error(
        `${basename(input.file)} is not an answers file (a .csv or .xlsx in answers/<batch-id>/)`,
      );
    const executionArn = startedExecution(await rules.route('default', event));
    if (!executionArn)
      throw new Error(`No rule of the template starts an answers round for ${found.source.key}`);
    executions.set(found.roundId, executionArn);
    log(`round ${found.roundId}: ${found.source.key} started ${executionArn}`);
    return { roundId: found.roundId, missingSheets };
  };

  return {
    submit,
    submitAnswers,
    executionOf: (batchId) => {
      const executionArn = executions.get(batchId);
      return executionArn ? deps.localAws.execution(executionArn) : null;
    },
    running: () =>
      new Map([...executions].filter(([, arn]) => deps.localAws.execution(arn)?.status === 'RUNNING')),
  };
};
