/** Public surface of the TCS sandbox. */
export { sandboxClassifier } from './classifier/index.js';
export { KEY_NAMES, type KeyName, OTHER_ORG, PRIMARY_ORG } from './core/organizations.js';
export { FAULT_KEYS, type FaultSettings, type Faults, NO_FAULTS, parseFaultSpec } from './faults.js';
export { STATE_FILE } from './persistence.js';
export {
  type Sandbox,
  type SandboxKeys,
  type SandboxLog,
  type SandboxOptions,
  type SandboxStats,
  startSandbox,
} from './sandbox.js';
