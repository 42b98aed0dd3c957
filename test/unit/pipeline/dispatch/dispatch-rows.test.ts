/**
 * The dispatcher against the in-memory ports and the real sandbox over HTTP: its balance
 * read, its slot arithmetic and leases, and (in the simulation) whole rows run through the
 * Row workflow's tasks while the dispatcher keeps refilling the slots they free.
 */
import { describe, expect, it } from 'vitest';
import { deriveRowKey } from '../../../../shared/pipeline/core/keys.js';
import type { RowWorkflows } from '../../../../shared/pipeline/core/ports.js';
import { BatchRecord, RowRecord, type RowStep } from '../../../../shared/pipeline/core/records.js';
import type { RowStatus } from '../../../../shared/pipeline/core/row-statuses.js';
import { dispatchRows } from '../../../../shared/pipeline/dispatch/dispatch-rows.js';
import { type DispatchConfig, runOptionsFor } from '../../../../shared/pipeline/dispatch/dispatch-run.js';
import { rowExecutionName, rowHolder } from '../../../../shared/pipeline/dispatch/execution-names.js';
import { completeRow } from '../../../../shared/pipeline/row/complete.js';
import { pollRow } from '../../../../shared/pipeline/row/poll.js';
import { reviewRow } from '../../../../shared/pipeline/row/review.js';
import type { RowStepConfig } from '../../../../shared/pipeline/row/row-state.js';
import { storeRow } from '../../../../shared/pipeline/row/store.js';
import { submitRow } from '../../../../shared/pipeline/row/submit.js';
import { ProductRow } from '../../../../shared/spreadsheet/schemas.js';
import { openRound } from '../../../helpers/memory-ports.js';
import {
  makeWorld,
  sandbox,
  serviceFor,
  startSandboxPerFile,
  type World,
} from '../../../helpers/sandbox-world.js';

const BATCH = 'nightly-D1spatch3r';
const TOKEN = 'batch-task-token';
const LEASE_TTL_MS = 10 * 60_000;
const DISPATCH: DispatchConfig = {
  capOverride: null,
  leaseTtlMs: LEASE_TTL_MS,
  maxRuntimeMs: 60_000,
  topUpHoldMs: 60_000,
};
const STEPS: RowStepConfig = { leaseTtlMs: LEASE_TTL_MS };

startSandboxPerFile('dispatch-rows');

/** A running batch of `count` rows, every one queued with a message, as Prepare leaves it. */
const seedBatch = async (w: World, count: number, batchId = BATCH) => {
  const now = w.clock.now().toISOString();
  await w.batches.createBatch(
    BatchRecord.parse({
      batch_id: batchId,
      name: 'nightly',
      source: {
        bucket: 'b',
        key: `inbox/${batchId}/p.csv`,
        version_or_etag: 'e1',
        folder: 'inbox/x/',
        file_name: 'p.csv',
      },
      execution_id: 'exec-1',
      state: 'running',
      rows_total: count,
      rows_dispatched: count,
      shard_count: 1,
      started_at: now,
    }),
  );
  await w.batches.putCompletionShards(batchId, new Map([[0, count]]));
  await w.batches.registerWaiter(batchId, `${TOKEN}-${batchId}`);
  const rows = Array.from({ length: count }, (_, index) =>
    RowRecord.parse({
      batch_id: batchId,
      row: index + 1,
      line: index + 2,
      cells: ['x'],
      status: 'queued',
      product: ProductRow.parse({
        row: index + 1,
        description: 'Café torrado em grãos, embalagem de 1 kg',
        operation: 'import',
        country: 'CO',
        sheet: null,
        external_reference: null,
        sku: `SKU-${index + 1}`,
        current_ncm: null,
        flags: [],
      }),
      product_key: `sku:SKU-${index + 1}`,
      fingerprint: `fp-${index + 1}`,
      updated_at: now,
    }),
  );
  await w.batches.putRows(rows);
  await w.queue.send(
    rows.map((r) => ({ message: { batch_id: batchId, row: r.row, attempt: 1, dispatch: 1 } })),
  );
};

/** Classifications of someone else in the organisation (the web app, another client). */
const othersInProgress = async (count: number) => {
  const other = serviceFor();
  for (let i = 0; i < count; i++) {
    await other.createClassification(
      { operation: 'import', country: 'BR', description: 'Rodamientos de bolas 6204' },
      { idempotencyKey: `someone-else-${String(i).padStart(6, '0')}` },
    );
  }
};

const statusOf = async (w: World, row: number, batchId = BATCH): Promise<RowStatus | undefined> =>
  (await w.batches.getRow(batchId, row))?.status;

describe('dispatchRows: slots', () => {
  it('fills exactly the free slots and leaves the other rows queued', async () => {
    const w = makeWorld();
    await seedBatch(w, 25);

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({
      outcome: 'dispatched',
      cap: 10,
      others: 0,
      held: 0,
      free: 10,
      started: 10,
      deferred: 0,
    });
    expect(w.workflows.started.size).toBe(10);
    expect(w.leases.holders.size).toBe(10);
    expect(w.queue.entries).toHaveLength(15);
    const first = { batch_id: BATCH, row: 1, attempt: 1, dispatch: 1 };
    expect(w.workflows.started.get(rowExecutionName(first))).toEqual({
      ...first,
      row_key: deriveRowKey(BATCH, 1),
      holder: rowHolder(BATCH, 1, 1),
    });
    expect(await statusOf(w, 10)).toBe('submitting');
    expect(await statusOf(w, 11)).toBe('queued');

    const again = await dispatchRows(w.ports, DISPATCH);
    expect(again).toMatchObject({ outcome: 'no_free_slots', held: 10, free: 0, received: 0, started: 0 });
  });

  it('leaves room for the organisation’s other classifications, and takes a lower cap override', async () => {
    const w = makeWorld();
    await seedBatch(w, 25);
    await othersInProgress(3);

    const report = await dispatchRows(w.ports, { ...DISPATCH, capOverride: 8 });

    expect(report).toMatchObject({ cap: 8, others: 3, held: 0, free: 5, started: 5 });

    // Our own submitted rows count in in_progress_count too, and are not "others".
    for (const input of w.workflows.started.values()) await submitRow(w.ports, input);
    expect((await w.ports.service.getBalance()).in_progress_count).toBe(8);
    const next = await dispatchRows(w.ports, DISPATCH);
    expect(next).toMatchObject({ cap: 10, others: 3, held: 5, free: 2, started: 2 });
    expect(w.leases.holders.size).toBe(7);
  });

  it('recovers the leases of holders that died before counting', async () => {
    const w = makeWorld();
    await seedBatch(w, 3);
    const now = w.clock.now().getTime();
    await w.leases.acquire({ holder: 'gone:1#a1', cap: 10, ttlMs: 1_000, now: now - 5_000 });

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ recovered: 1, held: 0, free: 10, started: 3 });
    expect(w.leases.holders.has('gone:1#a1')).toBe(false);
  });

  it('puts messages back for a few seconds, as fresh copies, when another dispatcher took the slots first', async () => {
    const w = makeWorld();
    await seedBatch(w, 4);
    const receive = w.queue.receive;
    w.ports.queue = {
      ...w.queue,
      receive: async (max) => {
        const received = await receive(max);
        // A second dispatcher, racing, fills every slot between our count and our acquire.
        for (let i = 0; i < 10; i++)
          await w.leases.acquire({
            holder: `rival:${i}#a1`,
            cap: 10,
            ttlMs: LEASE_TTL_MS,
            now: w.clock.now().getTime(),
          });
        return received;
      },
    };

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ received: 4, started: 0, deferred: 4 });
    expect(w.workflows.started.size).toBe(0);
    const now = w.clock.now().getTime();
    expect(w.queue.entries.map((e) => e.visibleAt - now)).toEqual([5_000, 5_000, 5_000, 5_000]);
    // Fresh copies: a lost race is no failed delivery, and must not count toward the DLQ's limit.
    expect(w.queue.entries.map((e) => [e.message.row, e.receiveCount])).toEqual([
      [1, 0],
      [2, 0],
      [3, 0],
      [4, 0],
    ]);
    expect(await statusOf(w, 1)).toBe('queued');
  });
});

describe('runOptionsFor', () => {
  it('fills a freed slot first on its kick, skips the look for dead holders and the top-up on any kick, runs fully otherwise', () => {
    expect(runOptionsFor({ source: 'kick', reason: 'slot_freed' })).toEqual({
      recoverExpired: false,
      freedSlot: true,
      topUpFirst: false,
    });
    expect(runOptionsFor({ source: 'kick', reason: 'rows_queued' })).toEqual({
      recoverExpired: false,
      freedSlot: false,
      topUpFirst: false,
    });
    for (const other of [{ source: 'schedule' }, null, { source: 'kick', reason: 'whatever' }])
      expect(runOptionsFor(other)).toEqual({ recoverExpired: true, freedSlot: false, topUpFirst: true });
  });
});

describe('dispatchRows: a kick for a freed slot', () => {
  const FREED: DispatchConfig = { ...DISPATCH, freedSlot: true };

  /** Leases of rows already running, as other executions hold them. */
  const holdLeases = async (w: World, count: number, prefix = 'running') => {
    for (let i = 0; i < count; i++)
      await w.leases.acquire({
        holder: `${prefix}:${i}#a1`,
        cap: 10,
        ttlMs: LEASE_TTL_MS,
        now: w.clock.now().getTime(),
      });
  };

  /** Records when the queue is asked for messages and when the leases are counted. */
  const recordCalls = (w: World) => {
    const calls: string[] = [];
    const { receive } = w.queue;
    const { list } = w.leases;
    w.ports.queue = {
      ...w.queue,
      receive: async (max) => {
        calls.push(`receive ${max}`);
        return receive(max);
      },
    };
    w.ports.leases = {
      ...w.leases,
      list: async () => {
        calls.push('count');
        const leases = await list();
        calls.push(`counted ${leases.length}`);
        return leases;
      },
    };
    return calls;
  };

  it('receives the freed slot’s message while it counts, then counts again before taking more', async () => {
    const w = makeWorld();
    await seedBatch(w, 5);
    await holdLeases(w, 8);
    const calls = recordCalls(w);

    const report = await dispatchRows(w.ports, FREED);

    expect(report).toMatchObject({ outcome: 'dispatched', held: 8, free: 2, received: 2, started: 2 });
    // The one message is asked for before the count has answered: they run at once.
    expect(calls.indexOf('receive 1')).toBeLessThan(calls.indexOf('counted 8'));
    expect(calls.slice(calls.indexOf('counted 8') + 1)).toEqual(['count', 'counted 9', 'receive 1']);
    expect(w.leases.holders.size).toBe(10);
    expect(w.queue.entries).toHaveLength(3);
  });

  it('takes no second slot that another kick is filling meanwhile', async () => {
    const w = makeWorld();
    await seedBatch(w, 5);
    await holdLeases(w, 8);
    const { start } = w.workflows;
    // The other freed slot's dispatcher takes it while this one starts its own row.
    w.ports.workflows = {
      ...w.workflows,
      start: async (name, input) => {
        await holdLeases(w, 1, 'rival');
        return start(name, input);
      },
    };

    const report = await dispatchRows(w.ports, FREED);

    expect(report).toMatchObject({ free: 2, received: 1, started: 1, deferred: 0 });
    expect(w.leases.holders.size).toBe(10);
    expect(w.queue.entries.every((entry) => entry.receiveCount === 0)).toBe(true);
  });

  it('puts its message back, as a fresh copy, when the slot was taken first', async () => {
    const w = makeWorld();
    await seedBatch(w, 2);
    await holdLeases(w, 10);

    const report = await dispatchRows(w.ports, FREED);

    expect(report).toMatchObject({ outcome: 'no_free_slots', received: 1, deferred: 1, started: 0 });
    const now = w.clock.now().getTime();
    expect(w.queue.entries.map((e) => [e.message.row, e.receiveCount, e.visibleAt - now])).toEqual([
      [2, 0, 0],
      [1, 0, 5_000],
    ]);
    expect(await statusOf(w, 1)).toBe('queued');
  });

  it('puts its message back when the balance cannot be read', async () => {
    const w = makeWorld();
    await seedBatch(w, 2);
    sandbox.setFaults({ http5xx: 1 });

    const report = await dispatchRows(w.ports, FREED);

    expect(report).toMatchObject({ outcome: 'balance_unavailable', received: 1, deferred: 1, started: 0 });
    expect(w.queue.entries.map((e) => [e.message.row, e.receiveCount])).toEqual([
      [2, 0],
      [1, 0],
    ]);
    expect(w.leases.holders.size).toBe(0);
  });

  it('a refused key ends its message’s row not_submitted with the others', async () => {
    const w = makeWorld(serviceFor(sandbox.keys.revoked));
    await seedBatch(w, 2);

    const report = await dispatchRows(w.ports, FREED);

    expect(report).toMatchObject({ outcome: 'stopped', notSubmitted: 2, started: 0 });
    expect(await statusOf(w, 1)).toBe('not_submitted');
    expect(await statusOf(w, 2)).toBe('not_submitted');
    expect(w.queue.entries).toHaveLength(0);
  });
});

describe('dispatchRows: messages', () => {
  it('drops stale and duplicate messages, and starts a claimed row whose start never happened', async () => {
    const w = makeWorld();
    await seedBatch(w, 6);
    w.batches.placeRow(BATCH, 1, { status: 'resolved', result: { status: 'resolved' } }); // final
    w.batches.placeRow(BATCH, 2, { dispatch: 2 }); // the message is an older dispatch
    w.batches.placeRow(BATCH, 3, { attempt: 2 }); // an older attempt
    w.batches.placeRow(BATCH, 4, { status: 'in_progress' }); // a redelivery: its execution runs
    w.batches.placeRow(BATCH, 5, { status: 'submitting' }); // claimed, then the dispatcher died

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ received: 6, dropped: 4, started: 2 });
    expect([...w.workflows.started.keys()]).toEqual([
      rowExecutionName({ batch_id: BATCH, row: 5, attempt: 1, dispatch: 1 }),
      rowExecutionName({ batch_id: BATCH, row: 6, attempt: 1, dispatch: 1 }),
    ]);
    expect(w.queue.entries).toHaveLength(0);
    expect([...w.leases.holders.keys()]).toEqual([rowHolder(BATCH, 5, 1), rowHolder(BATCH, 6, 1)]);
    expect(await statusOf(w, 4)).toBe('in_progress');
  });

  it('a duplicate of a started row starts nothing new and takes no new slot', async () => {
    const w = makeWorld();
    await seedBatch(w, 1);
    await dispatchRows(w.ports, DISPATCH);
    await w.queue.send([{ message: { batch_id: BATCH, row: 1, attempt: 1, dispatch: 1 } }]);

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ held: 1, free: 9, started: 0, alreadyStarted: 1 });
    expect(w.leases.holders.size).toBe(1);
    expect(w.queue.entries).toHaveLength(0);
  });

  it('releases the lease when StartExecution fails, and starts the row by the same name on redelivery', async () => {
    const w = makeWorld();
    await seedBatch(w, 2);
    let failures = 1;
    const workflows: RowWorkflows = {
      start: async (name, input) => {
        if (failures-- > 0) throw new Error('ThrottlingException: Rate exceeded');
        return w.workflows.start(name, input);
      },
    };
    w.ports.workflows = { ...w.workflows, ...workflows };

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ received: 2, startFailures: 1, started: 0, deferred: 1 });
    expect(w.leases.holders.size).toBe(0);
    expect(w.queue.entries).toHaveLength(2);

    w.clock.advance(31_000); // past the visibility timeout
    const retried = await dispatchRows(w.ports, DISPATCH);
    expect(retried).toMatchObject({ started: 2 });
    expect(
      w.workflows.started.has(rowExecutionName({ batch_id: BATCH, row: 1, attempt: 1, dispatch: 1 })),
    ).toBe(true);
    expect(w.leases.holders.size).toBe(2);
  });

  it('marks the row submitting alongside the start, never over what its Submit wrote first', async () => {
    const w = makeWorld();
    await seedBatch(w, 1);
    const { start } = w.workflows;
    const { moveRow } = w.batches;
    let submitDone!: () => void;
    const submitted = new Promise<void>((resolve) => {
      submitDone = resolve;
    });
    // A fast execution: its Submit has POSTed and written in_progress before the mark lands.
    w.ports.workflows = {
      ...w.workflows,
      start: async (name, input) => {
        const fate = await start(name, input);
        await submitRow(w.ports, input);
        submitDone();
        return fate;
      },
    };
    w.ports.batches = {
      ...w.batches,
      moveRow: async (...args) => {
        if (args[2].move === 'claimed') await submitted;
        return moveRow(...args);
      },
    };

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ started: 1 });
    expect(await statusOf(w, 1)).toBe('in_progress');
    expect(w.leases.holders.size).toBe(1);
    expect(w.queue.entries).toHaveLength(0);
  });

  it('gives back the lease it took alongside a read that failed', async () => {
    const w = makeWorld();
    await seedBatch(w, 1);
    w.ports.batches = {
      ...w.batches,
      getRow: async () => {
        throw new Error('ProvisionedThroughputExceededException');
      },
    };

    await expect(dispatchRows(w.ports, DISPATCH)).rejects.toThrow('ProvisionedThroughputExceededException');
    expect(w.leases.holders.size).toBe(0);
    expect(w.workflows.started.size).toBe(0);
  });

  it('ends the queued rows of a stopped batch not_submitted, without a lease', async () => {
    const w = makeWorld();
    await seedBatch(w, 2);
    const stop = {
      type: 'https://sandbox.tcs.invalid/problems/subscription-inactive',
      title: 'Suscripción inactiva',
      detail: 'La suscripción no está activa.',
      at: w.clock.now().toISOString(),
    };
    await w.batches.recordStop(BATCH, stop);

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ notSubmitted: 2, started: 0 });
    expect((await w.batches.getRow(BATCH, 1))?.result).toMatchObject({
      status: 'not_submitted',
      reason: 'subscription-inactive',
      detail: stop.detail,
    });
    expect(w.leases.holders.size).toBe(0);
    expect(w.wakes).toEqual([BATCH]);
  });
});

describe('dispatchRows: answers rounds', () => {
  const ROUND = `${BATCH}~r0undH4sh`;
  const roundMessage = { batch_id: BATCH, row: 1, attempt: 1, dispatch: 1, round_id: ROUND };

  /** Row 1 taken by an answers round, as PrepareAnswers leaves it: queued, its `round` set, a message. */
  const seedRound = async (w: World) => {
    await seedBatch(w, 2);
    await openRound(w.batches, {
      batchId: BATCH,
      roundId: ROUND,
      rows: 1,
      taskToken: `${TOKEN}-${ROUND}`,
      fileName: 'r.csv',
      now: w.clock.now(),
    });
    w.batches.placeRow(BATCH, 1, {
      status: 'queued',
      classification_id: 'cls_01JD9Q3Z8X7W6V5T4S3R2Q1P0N',
      result: {
        status: 'pending_data',
        classification_id: 'cls_01JD9Q3Z8X7W6V5T4S3R2Q1P0N',
        questions: 'Q1?',
      },
      round: {
        round_id: ROUND,
        answers: [{ question_id: 'q1', answer: 'torrado' }],
        answers_key: 'a_cls_01JD9Q3Z8X7W6V5T4S3R2Q1P0N_abcdefghijklmnopqrstuv',
        answered_by: 'ana',
        answered_at: w.clock.now().toISOString(),
      },
    });
  };

  it('starts a round’s row under the round’s execution name and lease holder; drops the batch’s old message for it', async () => {
    const w = makeWorld();
    await seedRound(w);
    // Row 1's batch message (attempt 1, dispatch 1) is still in the queue from seedBatch.
    await w.queue.send([{ message: roundMessage }]);

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ started: 2, dropped: 1 });
    expect(w.workflows.started.get(rowExecutionName(roundMessage))).toMatchObject({
      ...roundMessage,
      holder: rowHolder(BATCH, 1, 1, ROUND),
    });
    expect(w.leases.holders.has(rowHolder(BATCH, 1, 1, ROUND))).toBe(true);
    expect(w.leases.holders.has(rowHolder(BATCH, 1, 1))).toBe(false);
  });

  it('a round stopped on its own record sends the row back to pending_data, counted on the round', async () => {
    const w = makeWorld();
    await seedRound(w);
    await w.queue.send([{ message: roundMessage }]);
    await w.batches.recordStop(ROUND, {
      type: 'https://sandbox.tcs.invalid/problems/subscription-inactive',
      title: 'Suscripción inactiva',
      detail: 'La suscripción no está activa.',
      at: w.clock.now().toISOString(),
    });

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ notSubmitted: 1 });
    const row = await w.batches.getRow(BATCH, 1);
    expect(row?.status).toBe('pending_data');
    expect(row?.result).toMatchObject({ status: 'pending_data', questions: 'Q1?' });
    expect(row?.result?.detail).toMatch(/^answers not sent \(subscription-inactive: /);
    expect(w.wakes).toEqual([ROUND]);
    // The batch's own row 2 was not stopped: the stop is the round's.
    expect(
      w.workflows.started.has(rowExecutionName({ batch_id: BATCH, row: 2, attempt: 1, dispatch: 1 })),
    ).toBe(true);
  });
});

describe('dispatchRows: the balance', () => {
  it.each([
    ['revoked', 'unauthenticated'],
    ['plan_without_api', 'plan-without-api'],
  ] as const)(
    'a %s key stops every queued row’s batch: not_submitted (%s), said once',
    async (key, reason) => {
      const w = makeWorld(serviceFor(sandbox.keys[key]));
      await seedBatch(w, 2);
      await seedBatch(w, 1, 'other-batch');
      w.batches.placeRow(BATCH, 2, { status: 'submitting' }); // has an execution: left to it

      const report = await dispatchRows(w.ports, DISPATCH);

      expect(report).toMatchObject({
        outcome: 'stopped',
        received: 3,
        notSubmitted: 2,
        dropped: 1,
        started: 0,
      });
      for (const [batchId, row] of [
        [BATCH, 1],
        ['other-batch', 1],
      ] as const) {
        expect((await w.batches.getBatch(batchId))?.stop?.type).toMatch(new RegExp(`/${reason}$`));
        expect((await w.batches.getRow(batchId, row))?.result).toMatchObject({
          status: 'not_submitted',
          reason,
        });
      }
      expect(await statusOf(w, 2)).toBe('submitting');
      expect(w.queue.entries).toHaveLength(0);
      expect(w.wakes).toEqual(['other-batch']);
    },
  );

  it('dispatches nothing when the balance cannot be read; the schedule tries again', async () => {
    const w = makeWorld();
    await seedBatch(w, 3);
    sandbox.setFaults({ http5xx: 1 });

    const report = await dispatchRows(w.ports, DISPATCH);

    expect(report).toMatchObject({ outcome: 'balance_unavailable', received: 0, started: 0 });
    expect(report.detail).toMatch(/^5\d\d /);
    expect(w.queue.visible()).toHaveLength(3);
  });
});

describe('dispatcher and Row workflows together', () => {
  it('never exceeds the cap with 25 queued rows: no 429, every row resolved, the batch woken once', async () => {
    const w = makeWorld();
    await seedBatch(w, 25);
    await othersInProgress(3);
    type Execution = {
      state: Record<string, unknown>;
      next: 'Submit' | 'Poll' | 'Store' | 'Review' | 'Complete' | 'done';
    };
    const executions = new Map<string, Execution>();
    let maxLeases = 0;

    const advance = async (execution: Execution) => {
      const run = async (task: (s: unknown) => Promise<RowStep>) => {
        const step = await task(execution.state);
        execution.state = { ...execution.state, step };
        execution.next = ({ wait: 'Poll', store: 'Store', review: 'Review', complete: 'Complete' } as const)[
          step.next
        ];
      };
      if (execution.next === 'Submit') await run((s) => submitRow(w.ports, s));
      else if (execution.next === 'Poll') await run((s) => pollRow(w.ports, STEPS, s));
      else if (execution.next === 'Store') await run((s) => storeRow(w.ports, s));
      else if (execution.next === 'Review') await run((s) => reviewRow(w.ports, s));
      else if (execution.next === 'Complete') {
        await completeRow(w.ports, execution.state);
        execution.next = 'done';
      }
    };

    for (let tick = 0; tick < 400; tick++) {
      await dispatchRows(w.ports, DISPATCH);
      maxLeases = Math.max(maxLeases, w.leases.holders.size);
      for (const [name, input] of w.workflows.started) {
        if (!executions.has(name)) executions.set(name, { state: { ...input }, next: 'Submit' });
      }
      for (const execution of executions.values()) if (execution.next !== 'done') await advance(execution);
      if (w.wakes.length > 0) break;
      sandbox.advanceClock(3);
      w.clock.advance(3_000);
    }

    const stats = sandbox.stats();
    expect(w.wakes).toEqual([BATCH]);
    expect(stats.responses_by_status['429']).toBeUndefined();
    expect(maxLeases).toBeLessThanOrEqual(10);
    expect(maxLeases).toBeGreaterThanOrEqual(7);
    expect(stats.in_progress_max).toBeLessThanOrEqual(10);
    expect(executions.size).toBe(25);
    for (let row = 1; row <= 25; row++) expect(await statusOf(w, row)).toBe('resolved');
    expect(stats.billed_usd).toBe(2 * 25 + 2 * 3);
    expect(w.leases.holders.size).toBe(0);
    expect(w.queue.entries).toHaveLength(0);
  });
});
