import type { PipelinePorts } from '../core/ports.js';
import { RowState, type RowStep } from '../core/records.js';
import { routeClassification } from './route-classification.js';
import { type RowStepConfig, runOf } from './row-state.js';

/**
 * Poll, a step of the Row workflow: reads the row's classification and gives the next step. While
 * it runs, the lease is renewed now and then; once it has left `in_progress`, the lease is released
 * and the dispatcher kicked, so the freed slot is used at once.
 */
export const pollRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'leases' | 'kick'>,
  config: RowStepConfig,
  input: unknown,
): Promise<RowStep> => {
  const state = RowState.parse(input);
  const run = runOf(state);
  const c = await ports.service.getClassification(run.classification_id);
  const now = ports.clock.now();
  const step = routeClassification(c, state, { submittedAt: run.submitted_at, now }, ports.clock);
  if (step.next === 'wait') {
    // Renewed once a third of the TTL has gone, not on every poll: one write every few
    // minutes instead of every 3 s, and still far from expiring between two polls.
    const renewedAt = Date.parse(state.step?.lease_renewed_at ?? '');
    if (now.getTime() - renewedAt < config.leaseTtlMs / 3) {
      step.lease_renewed_at = state.step?.lease_renewed_at;
    } else {
      // False when the lease expired and was recovered: the run goes on (the service holds
      // it in progress whatever we do); the dispatcher's balance read counts it among others.
      await ports.leases.renew({ holder: state.holder, ttlMs: config.leaseTtlMs, now: now.getTime() });
      step.lease_renewed_at = now.toISOString();
    }
  } else {
    // The classification has left in_progress: its slot is free at the service now, not
    // after Store or Review. Releasing here lets the next row start while this one is stored.
    // Complete releases again, a no-op, for the paths that do not come through Poll.
    await ports.leases.release(state.holder);
    await ports.kick.kick('slot_freed');
  }
  return step;
};
