/**
 * Persistence of the stand-ins (`dataDir`): the SQS queues and their messages, so a later
 * command of the local runtime finds the rows it left waiting, as it would on AWS. One JSON
 * file, written on change (debounced) and on close, atomically (temporary file, then
 * rename). Step Functions executions, task tokens, functions, secrets and events are not
 * kept: they belong to the process that registered them.
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { QueuesSnapshot } from './sqs-queues.js';

const LOCAL_AWS_STATE_FILE = 'local-aws-state.json';
const FORMAT = 'local-aws-state';
const VERSION = 1;

type PersistedState = {
  format: typeof FORMAT;
  version: typeof VERSION;
  savedAt: string;
  sqs: QueuesSnapshot;
};

export const localAwsStatePath = (dataDir: string): string => join(dataDir, LOCAL_AWS_STATE_FILE);

/** The saved queues, or null when nothing was saved yet. Another file format is an error, not a reset. */
export const loadLocalAwsState = (dataDir: string): QueuesSnapshot | null => {
  let text: string;
  try {
    text = readFileSync(localAwsStatePath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const state = JSON.parse(text) as Partial<PersistedState>;
  if (state.format !== FORMAT || state.version !== VERSION || !Array.isArray(state.sqs?.queues)) {
    throw new Error(
      `${localAwsStatePath(dataDir)} is not a local AWS state file of version ${VERSION}; move it away`,
    );
  }
  return state.sqs;
};

export const saveLocalAwsState = (dataDir: string, sqs: QueuesSnapshot): void => {
  mkdirSync(dataDir, { recursive: true });
  const state: PersistedState = { format: FORMAT, version: VERSION, savedAt: new Date().toISOString(), sqs };
  const target = localAwsStatePath(dataDir);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(state));
  renameSync(temporary, target);
};
