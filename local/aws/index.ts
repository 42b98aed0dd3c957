/** Public surface of the local AWS stand-ins. */
export { createLocalAwsClock, type LocalAwsClock } from './clock.js';
export type { EventEnvelope, RecordedEvent } from './eventbridge.js';
export type { FunctionErrorReport, InvocationType, LocalFunction, LocalFunctionContext } from './lambda.js';
export { type LocalAws, type LocalAwsOptions, startLocalAws } from './local-aws.js';
export type { LocalAwsLog, LocalAwsLogLevel } from './log.js';
export { LOCAL_AWS_STATE_FILE } from './persistence.js';
export type {
  ExecutionRecord,
  ExecutionStatus,
  StartedExecution,
  StateMachineRunner,
  TaskFailure,
  TaskTokenOptions,
} from './step-functions.js';
