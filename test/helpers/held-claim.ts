/**
 * A batch store whose first claim of audit.csv's position is held once made: the write that made
 * it waits there, between its claim and its copy into audit.csv, until the test releases it.
 */
import type { BatchStore } from '../../shared/pipeline/core/ports.js';

/**
 * Takes a batch store and holds the next claim of audit.csv's position after it is made; gives
 * `claimed` (resolves once it is) and `release`, which lets the held write go on.
 */
export const holdNextAuditClaim = (batches: Pick<BatchStore, 'claimAuditPosition'>) => {
  const claim = batches.claimAuditPosition.bind(batches);
  let reached: () => void = () => {};
  const claimed = new Promise<void>((resolve) => {
    reached = resolve;
  });
  let release: () => void = () => {};
  const held = new Promise<void>((resolve) => {
    release = resolve;
  });
  let holding = true;
  batches.claimAuditPosition = async (batchId, move) => {
    const made = await claim(batchId, move);
    if (holding) {
      holding = false;
      reached();
      await held;
    }
    return made;
  };
  return { claimed, release };
};
