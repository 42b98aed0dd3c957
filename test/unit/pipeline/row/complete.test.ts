/**
 * The Complete task: a caught error, a workflow without outcome, the batch's wake, a retried requeue.
 */
import { describe, expect, it } from 'vitest';
import { BatchOptions } from '../../../../shared/pipeline/core/batch-options-schema.js';
import { scrubErrorText } from '../../../../shared/pipeline/core/error-text.js';
import type { RowExecutionInput } from '../../../../shared/pipeline/core/records.js';
import { completeRow } from '../../../../shared/pipeline/row/complete.js';
import { makeWorld, sandbox } from '../../../helpers/sandbox-world.js';
import { BATCH, dispatch, rowOf, seedBatch, startRowSandbox, TOKEN } from './row-fixture.js';

startRowSandbox();

describe('Complete', () => {
  it('turns a caught error into an error row whose detail keeps no signed URL, token or key', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const cause = JSON.stringify({
      errorType: 'TcsNetworkError',
      errorMessage:
        'GET https://bucket.s3.amazonaws.com/v.pdf?X-Amz-Signature=deadbeef&X-Amz-Credential=AKIA failed: ' +
        `Authorization: Bearer ${sandbox.keys.classify} task_token=${TOKEN}\n    at fetch (node:internal)`,
      trace: ['at fetch (node:internal)'],
    });

    const report = await completeRow(w.ports, {
      ...input,
      step: { next: 'wait', wait_seconds: 3, classification_id: 'cls_7KQ2M9XW4RTB', submitted_at: 'x' },
      error: { Error: 'TcsNetworkError', Cause: cause },
    });

    expect(report).toMatchObject({ outcome: 'final', status: 'error', leaseReleased: true, kicked: true });
    const { result } = await rowOf(w);
    expect(result?.status).toBe('error');
    expect(result?.classification_id).toBe('cls_7KQ2M9XW4RTB');
    expect(result?.detail).toMatch(
      /^TcsNetworkError: GET https:\/\/bucket\.s3\.amazonaws\.com\/v\.pdf\?… failed/,
    );
    for (const secret of [
      'X-Amz-Signature',
      'deadbeef',
      sandbox.keys.classify,
      TOKEN,
      'node:internal',
      'trace',
    ]) {
      expect(result?.detail).not.toContain(secret);
    }
    expect(scrubErrorText('plain message\nsecond line')).toBe('plain message');
    const path = 'NoSuchKey: outbox/nightly-7Kq2M9xW4r/pdfs/00001-CAF-1.pdf';
    expect(scrubErrorText(path)).toBe(path);
  });

  it('ends a workflow without outcome or error as an error row', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const report = await completeRow(w.ports, await dispatch(w, 1));
    expect(report.status).toBe('error');
    expect((await rowOf(w)).result?.detail).toBe('row workflow ended without an outcome');
    expect(w.leases.holders.size).toBe(0);
  });

  it('asks for partial results at most every partial_every_minutes while rows finish, never at the last', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}, {}, {}, {}]);
    await w.batches.updateBatch(BATCH, { options: BatchOptions.parse({ partial_every_minutes: 15 }) });
    const final = (input: RowExecutionInput) => ({
      ...input,
      step: { next: 'complete', outcome: { kind: 'final', result: { status: 'failed', cost_usd: '0.00' } } },
    });
    const inputs = [await dispatch(w, 1), await dispatch(w, 2), await dispatch(w, 3), await dispatch(w, 4)];

    await completeRow(w.ports, final(inputs[0]!));
    await completeRow(w.ports, final(inputs[1]!));
    expect(w.partials.requested).toEqual([BATCH]);

    w.clock.advance(15 * 60_000);
    await completeRow(w.ports, final(inputs[2]!));
    expect(w.partials.requested).toEqual([BATCH, BATCH]);

    // The last row: the final files come next, no partial ones.
    w.clock.advance(15 * 60_000);
    expect((await completeRow(w.ports, final(inputs[3]!))).batchComplete).toBe(true);
    expect(w.partials.requested).toEqual([BATCH, BATCH]);
  });

  it('wakes the batch when its last row finishes, once, and a retried Complete changes nothing', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}, {}, {}]);
    const final = (row: number, input: RowExecutionInput) => ({
      ...input,
      step: {
        next: 'complete',
        outcome: { kind: 'final', result: { status: 'failed', reason: `r${row}`, cost_usd: '0.00' } },
      },
    });
    const inputs = [await dispatch(w, 1), await dispatch(w, 2), await dispatch(w, 3)];

    const first = await completeRow(w.ports, final(1, inputs[0]!));
    const second = await completeRow(w.ports, final(2, inputs[1]!));
    expect([first.batchComplete, second.batchComplete]).toEqual([false, false]);
    expect(w.wakes).toEqual([]);

    const last = await completeRow(w.ports, final(3, inputs[2]!));
    expect(last).toMatchObject({ changed: true, batchComplete: true, woke: true });
    expect(w.wakes).toEqual([BATCH]);

    // A retry of the last Complete with another result: the stored one stands, the count
    // stays; it may wake again (it could be the only call left to do it), which the
    // waiters port ignores for a token already woken.
    const retried = await completeRow(w.ports, {
      ...inputs[2]!,
      step: { next: 'complete', outcome: { kind: 'final', result: { status: 'error', detail: 'x' } } },
    });
    expect(retried).toMatchObject({ changed: false, status: 'failed' });
    expect((await rowOf(w, 3)).result?.reason).toBe('r3');
    expect(w.batches.shards.get(`${BATCH}#0`)?.done.size).toBe(3);
    expect(w.waiters.woken).toHaveLength(1);
    expect(w.leases.holders.size).toBe(0);
    // One kick per lease freed: the retry frees none.
    expect(w.kick.count).toBe(3);
  });

  it('a retried requeue does not release the lease the next dispatch of the attempt now holds', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const state = {
      ...input,
      step: {
        next: 'complete',
        outcome: { kind: 'requeue', attempt: 1, dispatch: 2, delay_seconds: 7, reason: 'rate_limited' },
      },
    };
    expect((await completeRow(w.ports, state)).leaseReleased).toBe(true);
    const next = await dispatch(w, 1, 1, 2); // same attempt, so the same holder

    const retried = await completeRow(w.ports, state);

    expect(retried).toMatchObject({ outcome: 'superseded', leaseReleased: false, changed: false });
    expect(w.leases.holders.has(next.holder)).toBe(true);
    expect(await rowOf(w)).toMatchObject({ status: 'submitting', dispatch: 2 });
  });
});
