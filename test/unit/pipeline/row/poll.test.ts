/**
 * The Poll task: the slow path, a transient or permanent failure, and a status it does not know.
 */
import { describe, expect, it } from 'vitest';
import type { ClassificationService } from '../../../../shared/pipeline/core/ports.js';
import type { RowStep } from '../../../../shared/pipeline/core/records.js';
import { rowHolder } from '../../../../shared/pipeline/dispatch/execution-names.js';
import { completeRow } from '../../../../shared/pipeline/row/complete.js';
import { pollRow } from '../../../../shared/pipeline/row/poll.js';
import { submitRow } from '../../../../shared/pipeline/row/submit.js';
import { Classification } from '../../../../shared/tcs/schemas.js';
import { makeWorld, sandbox, serviceFor } from '../../../helpers/sandbox-world.js';
import { inProgressClassification } from '../../../helpers/tcs-fixtures.js';
import {
  BATCH,
  CONFIG,
  dispatch,
  recordingKeys,
  rowOf,
  runRowWorkflow,
  seedBatch,
  startRowSandbox,
} from './row-fixture.js';

startRowSandbox();

describe('Poll', () => {
  it('a run far longer than usual goes to the slow path: back in 15 min, looked at, never created again', async () => {
    const { keys, service: recording } = recordingKeys(serviceFor());
    // A classification that never leaves in_progress.
    const service: ClassificationService = {
      ...recording,
      getClassification: async (id, options) => ({
        ...(await recording.getClassification(id, options)),
        status: 'in_progress',
      }),
    };
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const submitted = await submitRow(w.ports, input);
    w.clock.advance(6 * 60 * 60 * 1000 + 1);

    const polled = await pollRow(w.ports, CONFIG, { ...input, step: submitted });

    expect(polled.outcome).toMatchObject({ kind: 'requeue', attempt: 1, dispatch: 2, delay_seconds: 900 });
    await completeRow(w.ports, { ...input, step: polled });
    expect(await rowOf(w)).toMatchObject({ status: 'queued', attempt: 1, dispatch: 2 });
    expect([...w.leases.holders.keys()]).toEqual([]);

    // The next dispatch of the same attempt looks at the same classification: no new POST.
    const again = await submitRow(w.ports, await dispatch(w, 1, 1, 2));
    expect(keys).toHaveLength(1);
    expect(again).toMatchObject({ classification_id: submitted.classification_id, next: 'complete' });
    expect(again.outcome).toMatchObject({ kind: 'requeue', dispatch: 3, delay_seconds: 900 });
  });
  it('requeues a transient failure as a new attempt with a new key; that attempt resolves', async () => {
    const { keys, service } = recordingKeys(serviceFor());
    const w = makeWorld(service);
    await seedBatch(w, [{ description: 'Café torrado em grãos [sandbox:fail-once=timed_out]' }]);

    const first = await runRowWorkflow(w, await dispatch(w, 1));

    expect((first.state.step as RowStep).outcome).toEqual({
      kind: 'requeue',
      attempt: 2,
      dispatch: 1,
      delay_seconds: 0,
      reason: 'failed (timed_out); new attempt 2',
    });
    expect(first.report).toMatchObject({ outcome: 'requeue' });
    expect(w.leases.holders.size).toBe(0);
    expect(await rowOf(w)).toMatchObject({ status: 'queued', attempt: 2, dispatch: 1 });
    expect(w.queue.sent.map((s) => s.message)).toEqual([
      { batch_id: BATCH, row: 1, attempt: 2, dispatch: 1 },
    ]);
    // Poll kicked when it freed the slot, before the new attempt was queued; Complete kicks for
    // that message, or it would wait for the schedule.
    expect(w.kick.reasons).toEqual(['slot_freed', 'rows_queued']);

    const second = await runRowWorkflow(w, await dispatch(w, 1, 2, 1));
    expect(second.report.status).toBe('resolved');
    expect(keys).toHaveLength(2);
    expect(keys[1]).not.toBe(keys[0]);
    expect(sandbox.stats().billed_usd).toBe(2);
    expect(w.leases.holders.size).toBe(0);
  });

  it('records a permanent failure, and a transient one on the last attempt, as failed', async () => {
    const w = makeWorld();
    await seedBatch(w, [
      { description: 'Café torrado em grãos [sandbox:fail=unexpected_format]' },
      { description: 'Café torrado em grãos [sandbox:fail=timed_out]' },
    ]);

    const permanent = await runRowWorkflow(w, await dispatch(w, 1));
    const exhausted = await runRowWorkflow(w, await dispatch(w, 2, 3, 1));

    expect(permanent.report).toMatchObject({ status: 'failed' });
    expect(w.leases.holders.has(rowHolder(BATCH, 1, 1))).toBe(false);
    expect((await rowOf(w, 1)).result).toMatchObject({
      status: 'failed',
      reason: 'unexpected_format',
      cost_usd: '0.00',
    });
    expect(exhausted.report).toMatchObject({ status: 'failed', batchComplete: true });
    expect(w.leases.holders.size).toBe(0);
    expect((await rowOf(w, 2)).result).toMatchObject({ status: 'failed', reason: 'timed_out' });
    expect(sandbox.stats().billed_usd).toBe(0);
  });

  it('keeps waiting on a status it does not know, and renews the lease', async () => {
    const real = serviceFor();
    const service: ClassificationService = {
      ...real,
      // The sandbox only speaks v1's statuses; a later one must read as "not finished".
      getClassification: async () =>
        Classification.parse(inProgressClassification({ status: 'under_review', stage: null })),
    };
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const submittedAt = w.clock.now().toISOString();
    const before = w.leases.holders.get(input.holder)!;
    w.clock.advance(60_000);

    const step = await pollRow(w.ports, CONFIG, {
      ...input,
      step: {
        next: 'wait',
        wait_seconds: 3,
        classification_id: 'cls_7KQ2M9XW4RTB',
        submitted_at: submittedAt,
      },
    });

    const renewedAt = w.clock.now().toISOString();
    expect(step).toEqual({
      next: 'wait',
      wait_seconds: 3,
      classification_id: 'cls_7KQ2M9XW4RTB',
      submitted_at: submittedAt,
      lease_renewed_at: renewedAt,
    });
    expect(w.leases.holders.get(input.holder)).toBe(before + 60_000);

    // The next polls leave the lease alone until a third of its TTL has gone, then renew it.
    w.clock.advance(CONFIG.leaseTtlMs / 3 - 1);
    const soon = await pollRow(w.ports, CONFIG, { ...input, step });
    expect(soon.lease_renewed_at).toBe(renewedAt);
    expect(w.leases.holders.get(input.holder)).toBe(before + 60_000);
    w.clock.advance(1);
    const later = await pollRow(w.ports, CONFIG, { ...input, step: soon });
    expect(later.lease_renewed_at).toBe(w.clock.now().toISOString());
    expect(w.leases.holders.get(input.holder)).toBe(w.clock.now().getTime() + CONFIG.leaseTtlMs);
  });
});
