/**
 * Optional persistence (`dataDir`): the sandbox's state — classifications, uploads'
 * extracted sheets, idempotency records, meter, gauge and clock offset — in one JSON file,
 * so a later run of the local runtime finds what an earlier one created. Written on change
 * (debounced) and on close, atomically (temporary file, then rename).
 */
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineSnapshot } from './core/engine.js';

export const STATE_FILE = 'sandbox-state.json';
const FORMAT = 'tcs-sandbox-state';
const VERSION = 1;

export type PersistedState = {
  format: typeof FORMAT;
  version: typeof VERSION;
  savedAt: string;
  seed: string;
  clockOffsetMs: number;
  engine: EngineSnapshot;
};

const statePath = (dataDir: string): string => join(dataDir, STATE_FILE);

/** The saved state, or null when there is none yet. A file of another format is an error, not a reset. */
export const loadState = (dataDir: string): PersistedState | null => {
  let text: string;
  try {
    text = readFileSync(statePath(dataDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  const state = JSON.parse(text) as Partial<PersistedState>;
  if (state.format !== FORMAT || state.version !== VERSION || !state.engine) {
    throw new Error(`${statePath(dataDir)} is not a sandbox state file of version ${VERSION}; move it away`);
  }
  return state as PersistedState;
};

export const saveState = (
  dataDir: string,
  state: Omit<PersistedState, 'format' | 'version' | 'savedAt'>,
): void => {
  mkdirSync(dataDir, { recursive: true });
  const full: PersistedState = {
    format: FORMAT,
    version: VERSION,
    savedAt: new Date().toISOString(),
    ...state,
  };
  const target = statePath(dataDir);
  const temporary = `${target}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(full));
  renameSync(temporary, target);
};

/** Coalesces bursts of changes into one write every `debounceMs`. */
export class DebouncedWriter {
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly write: () => void,
    private readonly debounceMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  schedule(): void {
    if (this.timer) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.flush();
    }, this.debounceMs);
    this.timer.unref();
  }

  flush(): void {
    if (this.timer) {
      clearTimeout(this.timer);
      this.timer = null;
    }
    try {
      this.write();
    } catch (error) {
      this.onError(error);
    }
  }
}
