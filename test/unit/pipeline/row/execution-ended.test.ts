/**
 * rowExecutionEnded: a Row execution that ended without reaching Complete (FAILED, TIMED_OUT,
 * ABORTED) finishes its row the way Complete would: as an error before its classification was
 * created, and after it by following that classification in a new dispatch (a few at most).
 */
import { describe, expect, it } from 'vitest';
import type { RowExecutionInput } from '../../../../shared/pipeline/core/records.js';
import { rowExecutionName } from '../../../../shared/pipeline/dispatch/execution-names.js';
import { FOLLOWED_AFTER_FAILURE_DISPATCHES } from '../../../../shared/pipeline/row/complete.js';
import { rowExecutionEnded } from '../../../../shared/pipeline/row/execution-ended.js';
import { submitRow } from '../../../../shared/pipeline/row/submit.js';
import { makeWorld, serviceFor } from '../../../helpers/sandbox-world.js';
import {
  BATCH,
  classificationOf,
  dispatch,
  recordingKeys,
  rowOf,
  runRowWorkflow,
  seedBatch,
  startRowSandbox,
} from './row-fixture.js';

startRowSandbox();

describe('rowExecutionEnded', () => {
  const ended = (
    input: RowExecutionInput,
    status = 'FAILED',
    error: string | null = 'States.TaskFailed',
  ) => ({
    version: '0',
    'detail-type': 'Step Functions Execution Status Change',
    source: 'aws.states',
    detail: {
      executionArn: `arn:aws:states:us-east-1:123456789012:execution:row:${rowExecutionName(input)}`,
      status,
      input: JSON.stringify(input),
      error,
      cause: 'something failed',
    },
  });

  it('ends a row whose execution died as error, releases its lease, and is idempotent', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);

    const report = await rowExecutionEnded(w.ports, ended(input));
    const again = await rowExecutionEnded(w.ports, ended(input));

    expect(report).toMatchObject({
      outcome: 'final',
      status: 'error',
      changed: true,
      leaseReleased: true,
      woke: true,
    });
    expect((await rowOf(w)).result?.detail).toBe('Row workflow FAILED: States.TaskFailed');
    expect(again).toMatchObject({ outcome: 'final', status: 'error', changed: false, leaseReleased: false });
    expect(w.waiters.woken).toHaveLength(1);
    // The repeat frees no lease, so it does not kick.
    expect(w.kick.count).toBe(1);
  });

  it('leaves a completed row as it was and says a timeout plainly', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}, {}]);
    const done = await dispatch(w, 1);
    await runRowWorkflow(w, done);
    const timedOut = await dispatch(w, 2);

    const late = await rowExecutionEnded(w.ports, ended(done));
    await rowExecutionEnded(w.ports, ended(timedOut, 'TIMED_OUT', null));

    expect(late).toMatchObject({ status: 'resolved', changed: false });
    expect((await rowOf(w, 1)).result?.status).toBe('resolved');
    expect((await rowOf(w, 2)).result?.detail).toBe('Row workflow TIMED_OUT');
    expect(w.leases.holders.size).toBe(0);
  });

  it('changes nothing when a later dispatch owns the row, and ignores other statuses', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const old = await dispatch(w, 1);
    await w.leases.release(old.holder);
    await dispatch(w, 1, 1, 2);

    expect(await rowExecutionEnded(w.ports, ended(old, 'ABORTED'))).toMatchObject({
      outcome: 'superseded',
      changed: false,
    });
    expect(await rowExecutionEnded(w.ports, ended(old, 'SUCCEEDED'))).toBeNull();
    expect(await rowOf(w)).toMatchObject({ status: 'submitting', dispatch: 2 });
    expect(w.leases.holders.has(old.holder)).toBe(true);
  });

  it('sends a row whose classification was created back to follow it: the next dispatch reads it, resolves the row and creates nothing', async () => {
    const { keys, service } = recordingKeys(serviceFor());
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const submitted = await submitRow(w.ports, input);

    const report = await rowExecutionEnded(w.ports, ended(input, 'TIMED_OUT', null));

    expect(report).toMatchObject({ outcome: 'requeue', status: 'queued', leaseReleased: true });
    expect(w.queue.sent.map((sent) => sent.message)).toEqual([
      { batch_id: BATCH, row: 1, attempt: 1, dispatch: 2 },
    ]);
    const next = await runRowWorkflow(w, await dispatch(w, 1, 1, 2));
    expect(next.steps[0]).toBe('Submit');
    expect(await rowOf(w)).toMatchObject({
      status: 'resolved',
      classification_id: submitted.classification_id,
    });
    expect(keys).toHaveLength(1);
    expect((await classificationOf(submitted.classification_id ?? '')).status).toBe('resolved');
  });

  it('ends the row as an error once it has been followed through its last dispatch', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const last = FOLLOWED_AFTER_FAILURE_DISPATCHES;
    const input = await dispatch(w, 1, 1, last);
    await submitRow(w.ports, input);

    const report = await rowExecutionEnded(w.ports, ended(input));

    expect(report).toMatchObject({ outcome: 'final', status: 'error', leaseReleased: true });
    expect((await rowOf(w)).result?.detail).toBe('Row workflow FAILED: States.TaskFailed');
    expect(w.queue.sent).toEqual([]);
  });
});
