/**
 * The Submit task: its idempotency key per attempt, the sheet upload, and what it does with a
 * refusal (4xx, 429, 401/403) or a row already final.
 */
import { describe, expect, it } from 'vitest';
import { cliPerson } from '../../../../shared/pipeline/core/people.js';
import type { ClassificationService } from '../../../../shared/pipeline/core/ports.js';
import type { RowStep } from '../../../../shared/pipeline/core/records.js';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { rowExecutionName, rowHolder } from '../../../../shared/pipeline/dispatch/execution-names.js';
import { submitRow } from '../../../../shared/pipeline/row/submit.js';
import { TcsNetworkError } from '../../../../shared/tcs/errors.js';
import { batchOptions } from '../../../helpers/records.js';
import { makeWorld, sandbox, serviceFor } from '../../../helpers/sandbox-world.js';
import { tinyPdf } from '../../../helpers/tcs-fixtures.js';
import {
  BATCH,
  classificationOf,
  dispatch,
  fillCap,
  recordingKeys,
  rowOf,
  runRowWorkflow,
  seedBatch,
  startRowSandbox,
} from './row-fixture.js';

startRowSandbox();

/** The service, but the answer to the first POST /classifications is lost after it was accepted. */
const losingFirstCreateAnswer = (): ClassificationService => {
  let loseAnswer = true;
  const real = serviceFor();
  return {
    ...real,
    createClassification: async (body, options) => {
      const accepted = await real.createClassification(body, options);
      if (loseAnswer) {
        loseAnswer = false;
        throw new TcsNetworkError('POST /classifications', 'ECONNRESET', 'socket hang up');
      }
      return accepted;
    },
  };
};

describe('Submit', () => {
  it('sends the same key on every retry of an attempt and a new key for a new attempt', async () => {
    const { keys, service } = recordingKeys(serviceFor());
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);

    // The service does the work and the answer is lost, on every try of the client.
    sandbox.setFaults({ reset_after: 1 });
    await expect(submitRow(w.ports, input)).rejects.toBeInstanceOf(TcsNetworkError);
    expect(sandbox.stats().created).toBe(1);

    // The workflow's Retry: the same key finds the same classification.
    sandbox.setFaults({ reset_after: 0 });
    const step = await submitRow(w.ports, input);
    expect(step).toMatchObject({ next: 'wait', wait_seconds: 3 });
    expect(sandbox.stats().created).toBe(1);
    const row = await rowOf(w);
    expect(row).toMatchObject({ status: 'in_progress', classification_id: step.classification_id });

    // Submit run again once the row holds this attempt's classification: it looks at it
    // (no third POST) and keeps the time of the first submission.
    w.clock.advance(5_000);
    expect((await submitRow(w.ports, input)).submitted_at).toBe(step.submitted_at);
    expect(keys).toHaveLength(2);

    // A new attempt is a new key and a new classification (spec, rule 4).
    const second = await submitRow(w.ports, { ...input, attempt: 2, holder: rowHolder(BATCH, 1, 2) });
    expect(second.classification_id).not.toBe(step.classification_id);
    expect(sandbox.stats().created).toBe(2);
    expect(new Set(keys.slice(0, 2)).size).toBe(1);
    expect(keys).toHaveLength(3);
    expect(keys[2]).not.toBe(keys[0]);
    const sent = await classificationOf(step.classification_id!);
    expect(sent.external_reference).toBe(`${BATCH}:1`);
  });

  it('names no person without a proven sender, only the name batch.json states; then the proven sender beside it', async () => {
    const w = makeWorld(serviceFor());
    await seedBatch(w, [{}, {}]);
    await w.batches.updateBatch(BATCH, { options: batchOptions({ requested_by: 'Diretoria Fiscal' }) });
    await submitRow(w.ports, await dispatch(w, 1));
    await w.batches.updateBatch(BATCH, { sent_by: cliPerson('ana') });
    await submitRow(w.ports, await dispatch(w, 2));

    const submitted = w.audit.all(BATCH).filter((event) => event.event === 'submitted');
    const named = submitted.map(({ row, who, who_id, known_by, stated_by }) => ({
      row,
      who,
      who_id,
      known_by,
      stated_by,
    }));
    expect(named).toEqual([
      { row: 1, who: '', who_id: undefined, known_by: undefined, stated_by: 'Diretoria Fiscal' },
      { row: 2, who: 'ana', who_id: 'cli:ana', known_by: 'cli', stated_by: 'Diretoria Fiscal' },
    ]);
  });

  it('uploads a sheet once per attempt, so a retried Submit sends the same body under the same key', async () => {
    const w = makeWorld(losingFirstCreateAnswer());
    await seedBatch(w, [{ sheetBytes: tinyPdf(), external_reference: 'PO-4711' }]);
    const input = await dispatch(w, 1);

    await expect(submitRow(w.ports, input)).rejects.toBeInstanceOf(TcsNetworkError);
    const step = await submitRow(w.ports, input);

    expect(step.next).toBe('wait');
    const stats = sandbox.stats();
    expect(stats.requests_by_route['POST /v1/uploads']).toBe(1);
    expect(stats.created).toBe(1);
    const c = await classificationOf(step.classification_id!);
    expect(c.has_file).toBe(true);
    expect(c.external_reference).toBe('PO-4711');
  });

  it('records another 4xx on the row with its detail and request_id, without retrying', async () => {
    const w = makeWorld();
    await seedBatch(w, [{ country: 'ZZ' }]);

    const { report } = await runRowWorkflow(w, await dispatch(w, 1));

    expect(report).toMatchObject({ outcome: 'final', status: 'error', leaseReleased: true });
    const { result } = await rowOf(w);
    expect(result?.reason).toBe('validation-error');
    expect(result?.detail).toMatch(/country.*\(request_id \S+\)$/);
    expect(sandbox.stats().requests_by_route['POST /v1/classifications']).toBe(1);
  });

  it('a sheet uploaded again under the same key meets idempotency-key-reused, recorded as error', async () => {
    const w = makeWorld(losingFirstCreateAnswer());
    await seedBatch(w, [{ sheetBytes: tinyPdf() }]);
    const input = await dispatch(w, 1);
    // Created, answer lost: the row does not know its classification yet.
    await expect(submitRow(w.ports, input)).rejects.toBeInstanceOf(TcsNetworkError);
    // Without the kept upload record a retry would upload again: a new file_url, another body.
    for (const key of await w.objects.list('work/')) w.objects.objects.delete(key);

    const step = await submitRow(w.ports, input);

    expect(step.outcome).toMatchObject({
      kind: 'final',
      result: { status: 'error', reason: 'idempotency-key-reused' },
    });
  });

  it('puts the row back on a 429 with Retry-After as its delay; the next dispatch is a new execution', async () => {
    const { keys, service } = recordingKeys(serviceFor());
    const w = makeWorld(service);
    await seedBatch(w, [{}]);
    await fillCap();
    const first = await dispatch(w, 1);

    const { state, report } = await runRowWorkflow(w, first);

    const outcome = (state.step as RowStep).outcome;
    expect(outcome).toMatchObject({ kind: 'requeue', attempt: 1, dispatch: 2, reason: 'rate_limited' });
    const delay = outcome?.kind === 'requeue' ? outcome.delay_seconds : 0;
    // The sandbox's Retry-After is the time until the organisation's first run ends (45–75 s).
    expect(delay).toBeGreaterThanOrEqual(30);
    expect(delay).toBeLessThanOrEqual(75);
    expect(report).toMatchObject({
      outcome: 'requeue',
      status: 'queued',
      leaseReleased: true,
      batchComplete: false,
    });
    expect(await rowOf(w)).toMatchObject({ status: 'queued', attempt: 1, dispatch: 2 });
    expect(w.queue.sent).toEqual([
      { message: { batch_id: BATCH, row: 1, attempt: 1, dispatch: 2 }, delaySeconds: delay },
    ]);
    expect(w.leases.holders.size).toBe(0);
    expect(w.wakes).toEqual([]);
    expect(w.kick.count).toBe(1);
    expect(rowExecutionName({ batch_id: BATCH, row: 1, attempt: 1, dispatch: 2 })).not.toBe(
      rowExecutionName(first),
    );

    // Once the others' runs end, the next dispatch succeeds with the same key.
    sandbox.advanceClock(delay + 1);
    const next = await runRowWorkflow(w, await dispatch(w, 1, 1, 2));
    expect(next.report.status).toBe('resolved');
    expect(keys).toHaveLength(2);
    expect(keys[1]).toBe(keys[0]);
  });

  it('a 401 or 403 stops the batch: this row and the next end not_submitted with the Problem’s name', async () => {
    for (const [key, reason] of [
      [sandbox.keys.revoked, 'unauthenticated'],
      [sandbox.keys.plan_without_api, 'plan-without-api'],
    ] as const) {
      sandbox.reset();
      const w = makeWorld(serviceFor(key));
      await seedBatch(w, [{}, {}]);

      const { report } = await runRowWorkflow(w, await dispatch(w, 1));

      expect(report).toMatchObject({ status: 'not_submitted', leaseReleased: true });
      expect((await rowOf(w)).result).toMatchObject({ status: 'not_submitted', reason });
      const batch = await w.batches.getBatch(BATCH);
      expect(batch?.stop?.type).toMatch(new RegExp(`/${reason}$`));

      // Row 2, with a working key even, is not sent: the batch stopped.
      const posted = sandbox.stats().requests_by_route['POST /v1/classifications'];
      expect(posted).toBe(1);
      w.ports.service = serviceFor();
      const second = await runRowWorkflow(w, await dispatch(w, 2));
      expect(second.report.status).toBe('not_submitted');
      expect((await rowOf(w, 2)).result).toMatchObject({ reason, detail: batch?.stop?.detail });
      expect(sandbox.stats().requests_by_route['POST /v1/classifications']).toBe(posted);
      expect(w.wakes).toEqual([BATCH]);
    }
  });

  it('a row already final keeps its result: a late duplicate changes nothing', async () => {
    const w = makeWorld();
    await seedBatch(w, [{}]);
    const input = await dispatch(w, 1);
    const result: RowResult = { status: 'failed', reason: 'unexpected_format', cost_usd: '0.00' };
    w.batches.placeRow(BATCH, 1, { status: 'failed', result });

    const { report, steps } = await runRowWorkflow(w, input);

    expect(steps).toEqual(['Submit', 'Complete']);
    expect(report).toMatchObject({ outcome: 'final', status: 'failed', changed: false, leaseReleased: true });
    expect((await rowOf(w)).result).toEqual(result);
    expect(sandbox.stats().requests_by_route['POST /v1/classifications'] ?? 0).toBe(0);
  });
});
