/** The local runtime: the deployable pipeline on loopback stand-ins (README.md in this folder). */
export type { BatchOutcome, WaitOptions } from './batch-watch.js';
export { dataDirOwner } from './data-lock.js';
export type { CrashFault } from './lambda-pool.js';
export { type LocalConsole, openLocalConsole } from './local-console.js';
export type { RequestCount } from './permissions/request-counts.js';
export {
  type LocalPipeline,
  type LocalPipelineOptions,
  SANDBOX_LABEL,
  startLocalPipeline,
} from './pipeline.js';
export type { BatchProgress, BatchStage } from './progress.js';
export type { LocalStackDescription } from './stack-description.js';
