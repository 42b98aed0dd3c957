/**
 * One pipeline per data folder at a time. Two would share LevelDB files (dynalite cannot open
 * them twice and throws where nothing can catch it), the SQS state file and the sandbox's
 * state file, and each would overwrite the other's. A `run.lock` file holds the owner's pid;
 * a lock whose process is gone is stale and taken over.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const LOCK_FILE = 'run.lock';

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/** The process of the live pipeline that holds the data folder, or null when none does. */
export const dataDirOwner = (dataDir: string): number | null => {
  try {
    const owner = Number(readFileSync(join(dataDir, LOCK_FILE), 'utf8').trim());
    return Number.isInteger(owner) && owner > 0 && owner !== process.pid && isAlive(owner) ? owner : null;
  } catch {
    return null;
  }
};

/** Takes the data folder's lock; returns its release. Throws when another live run holds it. */
export const lockDataDir = (dataDir: string): (() => void) => {
  const path = join(dataDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      let released = false;
      return () => {
        if (released) return;
        released = true;
        rmSync(path, { force: true });
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8').trim());
      if (Number.isInteger(owner) && owner > 0 && isAlive(owner)) {
        throw new Error(
          `The data folder ${dataDir} is in use by another local pipeline (process ${owner}); ` +
            'wait for it to finish or use another data folder',
        );
      }
      rmSync(path, { force: true }); // stale: its process is gone
    }
  }
  throw new Error(`Could not lock the data folder ${dataDir}`);
};
