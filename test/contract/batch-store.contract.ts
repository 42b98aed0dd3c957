/**
 * The BatchStore contract: what Prepare, the Row steps, Complete, AwaitRows and Finalize rely
 * on from the batch table, whichever implementation serves it.
 */
import { describe, expect, it } from 'vitest';
import type { BatchStore } from '../../shared/pipeline/core/ports.js';
import type { BatchStop } from '../../shared/pipeline/core/records.js';
import { textMessage } from '../../shared/wording/message.js';
import {
  AT,
  BATCH,
  batchOptions,
  batchRecord,
  classificationId,
  LATER,
  rowRecord,
  TOKEN,
} from '../helpers/records.js';
import { collect, forEachNumber, type Implementation, useImplementation } from './implementation.js';

const NOT_COMPLETE = { batchComplete: false, taskToken: null };
/** How a row finished, as markRowDone counts it: resolved, billed USD 2.00. */
const DONE = { status: 'resolved', billed_cents: 200, at: AT } as const;

export const describeBatchStoreContract = (name: string, implementation: Implementation<BatchStore>) =>
  describe(`BatchStore contract: ${name}`, () => {
    const store = useImplementation(implementation);

    describe('createBatch and getBatch', () => {
      it('creates once; a second create returns the record already there, unchanged', async () => {
        // Prepare
        const first = batchRecord({ execution_id: 'exec-1', header: ['sku', 'descrição'] });
        expect(await store().createBatch(first)).toEqual({ created: true });

        // Act
        const duplicate = await store().createBatch(batchRecord({ execution_id: 'exec-2' }));

        // Assess
        expect(duplicate).toEqual({ created: false, existing: first });
        expect(await store().getBatch(BATCH)).toEqual(first);
      });

      it('reads complete_shards back in ascending order', async () => {
        // Act
        await store().createBatch(batchRecord({ shard_count: 3, complete_shards: [2, 0] }));

        // Assess
        expect((await store().getBatch(BATCH))?.complete_shards).toEqual([0, 2]);
      });

      it('reads null for a batch that does not exist', async () => {
        expect(await store().getBatch('ghost')).toBeNull();
      });

      it('hands out copies: changing a record read does not change the stored one', async () => {
        // Prepare
        await store().createBatch(batchRecord({ problems: [textMessage('first')] }));

        // Act
        const read = await store().getBatch(BATCH);
        read?.problems.push(textMessage('changed by the reader'));

        // Assess
        expect((await store().getBatch(BATCH))?.problems).toEqual([textMessage('first')]);
      });
    });

    describe('listBatches', () => {
      it('lists batches newest first, a page at a time, and never an answers round', async () => {
        // Prepare
        const started = ['2026-11-20T08:00:00.000Z', '2026-11-22T08:00:00.000Z', '2026-11-21T08:00:00.000Z'];
        for (const [index, started_at] of started.entries())
          await store().createBatch(batchRecord({ batch_id: `lote-${index + 1}`, started_at }));
        await store().createBatch(
          batchRecord({ batch_id: 'round-1', round_of: 'lote-1', started_at: '2026-11-23T08:00:00.000Z' }),
        );
        await store().updateBatch('lote-3', { state: 'running' });

        // Act
        const first = await store().listBatches({ limit: 2 });
        const second = await store().listBatches({ limit: 2, after: first.next });

        // Assess
        expect(first.batches.map((batch) => batch.batch_id)).toEqual(['lote-2', 'lote-3']);
        expect(first.batches[1]).toEqual(await store().getBatch('lote-3'));
        expect(first.next).not.toBeNull();
        expect(second).toEqual({ batches: [await store().getBatch('lote-1')], next: null });
      });

      it('lists nothing when there is no batch', async () => {
        expect(await store().listBatches({ limit: 10 })).toEqual({ batches: [], next: null });
      });

      it('refuses a cursor it did not give with a RangeError', async () => {
        // What a badly encoded `after=%E0%A4%A` becomes once decoded, and plain text.
        for (const after of ['\uFFFD\uFFFDA', 'not-a-cursor'])
          await expect(store().listBatches({ limit: 2, after })).rejects.toBeInstanceOf(RangeError);
      });
    });

    describe('updateBatch', () => {
      it('sets only the given fields; an undefined member leaves the stored value as it is', async () => {
        // Prepare
        await store().createBatch(batchRecord({ problems: [textMessage('first')], finished_at: AT }));

        // Act
        await store().updateBatch(BATCH, {
          state: 'running',
          rows_total: 1002,
          options: batchOptions(),
          finished_at: undefined,
        });

        // Assess
        expect(await store().getBatch(BATCH)).toEqual(
          batchRecord({
            state: 'running',
            rows_total: 1002,
            options: batchOptions(),
            problems: [textMessage('first')],
            finished_at: AT,
          }),
        );
      });

      it('never writes batch_id, complete_shards or task_token, even when a patch carries them', async () => {
        // Prepare
        await store().createBatch(batchRecord({ shard_count: 1 }));
        await store().registerWaiter(BATCH, TOKEN);
        const sneaky = {
          state: 'finalizing',
          batch_id: 'other',
          complete_shards: [0],
          task_token: 'other',
        } as Parameters<BatchStore['updateBatch']>[1];

        // Act
        await store().updateBatch(BATCH, sneaky);

        // Assess
        expect(await store().getBatch(BATCH)).toMatchObject({
          batch_id: BATCH,
          state: 'finalizing',
          complete_shards: [],
          task_token: TOKEN,
        });
        expect(await store().getBatch('other')).toBeNull();
      });

      it('fails for a batch that does not exist, and creates none', async () => {
        await expect(store().updateBatch('ghost', { state: 'running' })).rejects.toThrow('no batch ghost');
        await expect(store().updateBatch('ghost', {})).rejects.toThrow('no batch ghost');
        expect(await store().getBatch('ghost')).toBeNull();
      });
    });

    describe('recordStop', () => {
      const stop = (type: string): BatchStop => ({ type, title: type, detail: `${type} detail`, at: AT });

      it('keeps the first stop and returns it to every later caller', async () => {
        // Prepare
        await store().createBatch(batchRecord());

        // Act
        const first = await store().recordStop(BATCH, stop('plan-without-api'));
        const second = await store().recordStop(BATCH, stop('invalid-api-key'));

        // Assess
        expect(first).toEqual(stop('plan-without-api'));
        expect(second).toEqual(stop('plan-without-api'));
        expect((await store().getBatch(BATCH))?.stop).toEqual(stop('plan-without-api'));
      });

      it('fails for a batch that does not exist', async () => {
        await expect(store().recordStop('ghost', stop('x'))).rejects.toThrow('no batch ghost');
      });
    });

    describe('claimPartialRequest', () => {
      it('lets one caller of each period ask: the one that still finds the last time it read', async () => {
        // Prepare
        await store().createBatch(batchRecord());

        // Act
        const first = await store().claimPartialRequest(BATCH, { last: null, now: AT });
        const same = await store().claimPartialRequest(BATCH, { last: null, now: AT });
        const next = await store().claimPartialRequest(BATCH, { last: AT, now: LATER });
        const stale = await store().claimPartialRequest(BATCH, { last: AT, now: LATER });

        // Assess
        expect([first, same, next, stale]).toEqual([true, false, true, false]);
        expect((await store().getBatch(BATCH))?.partial_requested_at).toBe(LATER);
      });
    });

    describe('claimAuditPosition', () => {
      it("moves audit.csv's position only from the one a write started from: of two writes at once, one stands", async () => {
        // Prepare
        await store().createBatch(batchRecord());
        const position = (writes: number, bytes: number) => ({
          key: `2026-11-21T12:0${writes}:00.000Z#0000001#resolved`,
          bytes,
          writes,
          file: `outbox/${BATCH}/.audit/audit-${writes}-${bytes}.csv`,
          keys: `outbox/${BATCH}/.audit/keys-${writes}-${bytes}.txt`,
        });

        // Act: two first writes, then two second writes, each pair from the same position
        const first = await store().claimAuditPosition(BATCH, { from: null, to: position(1, 100) });
        const rival = await store().claimAuditPosition(BATCH, { from: null, to: position(1, 120) });
        const second = await store().claimAuditPosition(BATCH, {
          from: position(1, 100),
          to: position(2, 300),
        });
        const late = await store().claimAuditPosition(BATCH, {
          from: position(1, 100),
          to: position(2, 310),
        });

        // Assess
        expect([first, rival, second, late]).toEqual([true, false, true, false]);
        expect((await store().getBatch(BATCH))?.audit_through).toEqual(position(2, 300));
      });
    });

    describe('the queue window and the backlogs', () => {
      const window = { size: 20, enqueued_through: 20, passed_through: 0 };
      const until = '2026-11-21T12:01:00.000Z';

      it('lists the batches with a backlog: opening twice lists once, closing takes one off', async () => {
        // Act
        await store().markBacklog('lote-b', true);
        await store().markBacklog('lote-a', true);
        await store().markBacklog('lote-b', true);
        const both = await store().listBacklogs();
        await store().markBacklog('lote-b', false);
        await store().markBacklog('lote-b', false);
        await store().markBacklog('ghost', false);

        // Assess: the list is no batch of its own.
        expect(both).toEqual(['lote-a', 'lote-b']);
        expect(await store().listBacklogs()).toEqual(['lote-a']);
        expect(await store().listBatches({ limit: 10 })).toEqual({ batches: [], next: null });
      });

      it('lists no backlog before any was opened, and none once the last is closed', async () => {
        expect(await store().listBacklogs()).toEqual([]);
        await store().markBacklog(BATCH, true);
        await store().markBacklog(BATCH, false);
        expect(await store().listBacklogs()).toEqual([]);
      });

      it('lets one dispatcher top a window up: held until its hold runs out, and only at the end it read', async () => {
        // Prepare
        await store().createBatch(batchRecord({ state: 'running', queue_window: window }));

        // Act
        const first = await store().claimTopUp(BATCH, { now: AT, until, enqueuedThrough: 20 });
        const whileHeld = await store().claimTopUp(BATCH, { now: LATER, until, enqueuedThrough: 20 });
        const afterHold = await store().claimTopUp(BATCH, {
          now: until,
          until: '2026-11-21T12:02:00.000Z',
          enqueuedThrough: 20,
        });
        const staleEnd = await store().claimTopUp(BATCH, {
          now: '2026-11-21T12:09:00.000Z',
          until,
          enqueuedThrough: 10,
        });

        // Assess
        expect([first, whileHeld, afterHold, staleEnd]).toEqual([true, false, true, false]);
        expect((await store().getBatch(BATCH))?.queue_window).toEqual({
          ...window,
          topping_up_until: '2026-11-21T12:02:00.000Z',
        });
      });

      it('advances the window from the end it read, releasing the hold; a second advance from there is refused', async () => {
        // Prepare
        await store().createBatch(batchRecord({ state: 'running', queue_window: window }));
        await store().claimTopUp(BATCH, { now: AT, until, enqueuedThrough: 20 });

        // Act
        const moved = await store().advanceWindow(BATCH, { from: 20, to: 31, passedThrough: 9 });
        const again = await store().advanceWindow(BATCH, { from: 20, to: 42, passedThrough: 12 });
        const nextClaim = await store().claimTopUp(BATCH, { now: AT, until, enqueuedThrough: 31 });

        // Assess: released, so the next dispatcher may claim at once.
        expect([moved, again, nextClaim]).toEqual([true, false, true]);
        expect((await store().getBatch(BATCH))?.queue_window).toEqual({
          size: 20,
          enqueued_through: 31,
          passed_through: 9,
          topping_up_until: until,
        });
      });

      it('claims and advances nothing of a batch without a window, or of no batch, and creates none', async () => {
        // Prepare
        await store().createBatch(batchRecord({ state: 'running' }));

        // Act
        const claimed = await store().claimTopUp(BATCH, { now: AT, until, enqueuedThrough: 0 });
        const advanced = await store().advanceWindow(BATCH, { from: 0, to: 5, passedThrough: 0 });
        const ghostClaimed = await store().claimTopUp('ghost', { now: AT, until, enqueuedThrough: 0 });
        const ghostAdvanced = await store().advanceWindow('ghost', { from: 0, to: 5, passedThrough: 0 });

        // Assess
        expect([claimed, advanced, ghostClaimed, ghostAdvanced]).toEqual([false, false, false, false]);
        expect((await store().getBatch(BATCH))?.queue_window).toBeUndefined();
        expect(await store().getBatch('ghost')).toBeNull();
      });
    });

    describe('putRows, getRow and listRows', () => {
      it('writes more than 25 rows; of a row given twice, the last wins; a later put overwrites', async () => {
        // Prepare
        const rows = Array.from({ length: 60 }, (_, i) => rowRecord(i + 1));
        rows.push(rowRecord(7, { status: 'rejected', cells: ['again'] }));

        // Act
        await store().putRows(rows);
        await store().putRows([rowRecord(60, { status: 'reused' })]);

        // Assess
        const listed = await collect(store().listRows(BATCH));
        expect(listed.map((row) => row.row)).toEqual(Array.from({ length: 60 }, (_, i) => i + 1));
        expect(await store().getRow(BATCH, 7)).toEqual(
          rowRecord(7, { status: 'rejected', cells: ['again'] }),
        );
        expect(await store().getRow(BATCH, 60)).toEqual(rowRecord(60, { status: 'reused' }));
      });

      it('reads null for a row that does not exist', async () => {
        expect(await store().getRow(BATCH, 1)).toBeNull();
      });

      it("lists only the batch's rows, in row order, however many pages they take", async () => {
        // Prepare: ~1 KB per row, so 1,100 rows exceed the 1 MB of one DynamoDB Query page.
        const padding = 'x'.repeat(1000);
        const rows = Array.from({ length: 1100 }, (_, i) => rowRecord(i + 1, { cells: [padding] }));
        await store().putRows([...rows].reverse());
        await store().createBatch(batchRecord({ shard_count: 2 }));
        await store().putCompletionShards(
          BATCH,
          new Map([
            [0, 1000],
            [1, 100],
          ]),
        );
        await store().putRows([rowRecord(1, { batch_id: 'other-batch' })]);

        // Act
        const listed = await collect(store().listRows(BATCH));

        // Assess
        expect(listed.map((row) => row.row)).toEqual(Array.from({ length: 1100 }, (_, i) => i + 1));
        expect(listed.every((row) => row.batch_id === BATCH)).toBe(true);
        expect(listed[1099]).toEqual(rowRecord(1100, { cells: [padding] }));
      });

      it('tells how many rows follow a row, as its completion shard keeps them', async () => {
        // Prepare: row 2 has three followers, row 1001 (the second shard) one; row 5 has none.
        await store().createBatch(batchRecord({ shard_count: 2 }));
        await store().putCompletionShards(
          BATCH,
          new Map([
            [0, 10],
            [1, 1],
          ]),
          new Map([
            [2, 3],
            [1001, 1],
          ]),
        );

        // Act and assess
        expect(await store().followerCount(BATCH, 2)).toBe(3);
        expect(await store().followerCount(BATCH, 1001)).toBe(1);
        expect(await store().followerCount(BATCH, 5)).toBe(0);
        expect(await store().followerCount('no-such-batch', 2)).toBe(0);
      });

      it('pages the batch’s rows in row order, each once, a page never holding more than its limit', async () => {
        // Prepare: completion shards and another batch's rows sit in the same table.
        await store().putRows(Array.from({ length: 25 }, (_, i) => rowRecord(25 - i)));
        await store().createBatch(batchRecord({ shard_count: 1 }));
        await store().putCompletionShards(BATCH, new Map([[0, 25]]));
        await store().putRows([rowRecord(3, { batch_id: 'other-batch' })]);

        // Act
        const pages: number[][] = [];
        let after: number | null = null;
        do {
          const page = await store().rowsPage(BATCH, { after, limit: 10 });
          pages.push(page.rows.map((row) => row.row));
          after = page.next;
        } while (after !== null);
        const fromRow = await store().rowsPage(BATCH, { after: 20, limit: 10 });

        // Assess
        expect(pages.flat()).toEqual(Array.from({ length: 25 }, (_, i) => i + 1));
        expect(pages.every((page) => page.length <= 10)).toBe(true);
        expect(pages.slice(0, 2)).toEqual([
          [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
          [11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
        ]);
        expect(fromRow).toEqual({ rows: [21, 22, 23, 24, 25].map((row) => rowRecord(row)), next: null });
        expect(await store().rowsPage('ghost', { after: null, limit: 10 })).toEqual({ rows: [], next: null });
      });

      it('pages the rows queued in send order by their place, with what a top-up reads of each', async () => {
        // Prepare: rows 1..12, every third one without a place (a follower); places run backwards.
        await store().putRows(
          Array.from({ length: 12 }, (_, i) =>
            rowRecord(i + 1, i % 3 === 2 ? {} : { send_order: 100 - i, attempt: 1 + (i % 2) }),
          ),
        );
        await store().putRows([rowRecord(1, { batch_id: 'other-batch', send_order: 1 })]);

        // Act
        const pages: number[][] = [];
        let after = 0;
        for (;;) {
          const page = await store().sendOrderPage(BATCH, { after, limit: 3 });
          pages.push(page.rows.map((row) => row.send_order));
          if (page.next === null) break;
          after = page.next;
        }
        const past = await store().sendOrderPage(BATCH, { after: 96, limit: 10 });

        // Assess: eight places, in order, each once; rows 3, 6, 9, 12 have none.
        expect(pages.flat()).toEqual([90, 91, 93, 94, 96, 97, 99, 100]);
        expect(pages.every((page) => page.length <= 3)).toBe(true);
        expect(past.rows).toEqual([
          { row: 4, status: 'queued', attempt: 2, dispatch: 1, send_order: 97 },
          { row: 2, status: 'queued', attempt: 2, dispatch: 1, send_order: 99 },
          { row: 1, status: 'queued', attempt: 1, dispatch: 1, send_order: 100 },
        ]);
        expect(past.next).toBeNull();
        expect(await store().sendOrderPage('ghost', { after: 0, limit: 10 })).toEqual({
          rows: [],
          next: null,
        });
      });

      it('lists nothing for a batch without rows', async () => {
        expect(await collect(store().listRows('ghost'))).toEqual([]);
      });
    });

    describe('moveRow', () => {
      const round = (round_id: string) => ({
        round_id,
        answers: [{ question_id: 'q1', answer: 'aço inoxidável' }],
        answers_key: `key-${round_id}`,
        answered_by: 'ana@example.com',
        answered_at: AT,
      });
      const resolved = { status: 'resolved' as const, ncm: '73181500' };

      it('claimed: marks a row waiting under this attempt and dispatch, queued or already submitting', async () => {
        // Prepare
        await store().putRows([
          rowRecord(1, { attempt: 2, dispatch: 3 }),
          rowRecord(2, { status: 'submitting' }),
        ]);

        // Act
        const queued = await store().moveRow(BATCH, 1, {
          move: 'claimed',
          attempt: 2,
          dispatch: 3,
          at: LATER,
        });
        const again = await store().moveRow(BATCH, 2, {
          move: 'claimed',
          attempt: 1,
          dispatch: 1,
          at: LATER,
        });

        // Assess
        expect([queued, again]).toEqual([true, true]);
        expect(await store().getRow(BATCH, 1)).toEqual(
          rowRecord(1, { attempt: 2, dispatch: 3, status: 'submitting', updated_at: LATER }),
        );
        expect(await store().getRow(BATCH, 2)).toEqual(
          rowRecord(2, { status: 'submitting', updated_at: LATER }),
        );
      });

      it('claimed: never overwrites a later step: in progress, another dispatch or attempt, or final', async () => {
        // Prepare
        const later = [
          rowRecord(1, { status: 'in_progress' }),
          rowRecord(2, { dispatch: 2 }),
          rowRecord(3, { attempt: 2 }),
          rowRecord(4, { status: 'resolved', result: { status: 'resolved' } }),
        ];
        await store().putRows(later);

        // Act
        const applied = [];
        for (const row of [1, 2, 3, 4])
          applied.push(
            await store().moveRow(BATCH, row, { move: 'claimed', attempt: 1, dispatch: 1, at: LATER }),
          );

        // Assess
        expect(applied).toEqual([false, false, false, false]);
        expect(await collect(store().listRows(BATCH))).toEqual(later);
      });

      it('submitted: sets its fields and leaves the others; an absent app_url changes nothing', async () => {
        // Prepare
        await store().putRows([
          rowRecord(1, { status: 'submitting', app_url: 'https://app/c/1' }),
          rowRecord(2),
        ]);

        // Act
        const applied = await store().moveRow(BATCH, 1, {
          move: 'submitted',
          classification_id: 'cls_7KQ2M9XW4RTB',
          submitted_attempt: 1,
          submitted_at: AT,
          app_url: undefined,
          at: LATER,
        });

        // Assess
        expect(applied).toBe(true);
        expect(await store().getRow(BATCH, 1)).toEqual(
          rowRecord(1, {
            status: 'in_progress',
            app_url: 'https://app/c/1',
            classification_id: 'cls_7KQ2M9XW4RTB',
            submitted_attempt: 1,
            submitted_at: AT,
            updated_at: LATER,
          }),
        );
        expect(await store().getRow(BATCH, 2)).toEqual(rowRecord(2));
      });

      it('finished: writes while the row is working and refuses once it is final', async () => {
        // Prepare
        await store().putRows([rowRecord(1)]);

        // Act
        const working = await store().moveRow(BATCH, 1, {
          move: 'requeued',
          attempt: 1,
          dispatch: 2,
          at: AT,
        });
        const finishing = await store().moveRow(BATCH, 1, { move: 'finished', result: resolved, at: AT });
        const late = await store().moveRow(BATCH, 1, {
          move: 'finished',
          result: { status: 'error' },
          at: LATER,
        });
        const requeue = await store().moveRow(BATCH, 1, {
          move: 'requeued',
          attempt: 2,
          dispatch: 1,
          at: LATER,
        });

        // Assess
        expect([working, finishing, late, requeue]).toEqual([true, true, false, false]);
        expect(await store().getRow(BATCH, 1)).toEqual(
          rowRecord(1, { dispatch: 2, status: 'resolved', result: resolved, finished_at: AT }),
        );
      });

      it('resumed: only a row waiting for answers goes back to work, with its round, from dispatch 1', async () => {
        // Prepare
        await store().putRows([
          rowRecord(1, { status: 'pending_data', dispatch: 4, result: { status: 'pending_data' } }),
          rowRecord(2, { status: 'resolved', result: resolved }),
        ]);

        // Act
        const pending = await store().moveRow(BATCH, 1, { move: 'resumed', round: round('r1'), at: LATER });
        const twice = await store().moveRow(BATCH, 1, { move: 'resumed', round: round('r2'), at: LATER });
        const final = await store().moveRow(BATCH, 2, { move: 'resumed', round: round('r1'), at: LATER });

        // Assess
        expect([pending, twice, final]).toEqual([true, false, false]);
        expect(await store().getRow(BATCH, 1)).toMatchObject({
          status: 'queued',
          dispatch: 1,
          round: { round_id: 'r1' },
          result: { status: 'pending_data' },
        });
      });

      it('resent: a rejected or failed row unchanged since it was read goes back to work, its old outcome removed', async () => {
        // Prepare
        const failed = {
          status: 'failed' as const,
          reason: 'unreadable_pdf',
          classification_id: classificationId(1),
          cost_usd: '0.00',
        };
        await store().putRows([
          rowRecord(1, {
            status: 'failed',
            attempt: 1,
            result: failed,
            finished_at: AT,
            classification_id: classificationId(1),
            submitted_attempt: 1,
            submitted_at: AT,
            app_url: 'https://app.example/c/1',
            sheet: { key: 'inbox/nightly/scan.pdf', sha256: 'a'.repeat(64), size: 10, file_name: 'scan.pdf' },
          }),
          rowRecord(2, { status: 'resolved', result: resolved, finished_at: AT }),
          rowRecord(3, { status: 'rejected', result: { status: 'rejected', reason: 'operation_invalid' } }),
        ]);
        const product = {
          row: 1,
          description: null,
          operation: 'import' as const,
          country: 'IT',
          sheet: 'valvula.pdf',
          external_reference: null,
          sku: 'VAL-ESF',
          current_ncm: null,
          flags: [],
        };
        const resend = (
          read_at: string,
          sheet?: { key: string; sha256: string; size: number; file_name: string },
        ) => ({
          move: 'resent' as const,
          round: { ...round('r1'), kind: 'resend' as const, answers: [] },
          product,
          sheet,
          identity: { product_key: 'sku:VAL-ESF', fingerprint: 'f'.repeat(64) },
          cells: ['VAL-ESF', 'valvula.pdf'],
          attempt: 2,
          read_at,
          at: LATER,
        });
        const newSheet = {
          key: 'answers/nightly-abc/valvula.pdf',
          sha256: 'b'.repeat(64),
          size: 20,
          file_name: 'valvula.pdf',
        };

        // Act
        const stale = await store().moveRow(BATCH, 1, resend(LATER, newSheet));
        const sent = await store().moveRow(BATCH, 1, resend(AT, newSheet));
        const resolvedRow = await store().moveRow(BATCH, 2, resend(AT));
        const withoutSheet = await store().moveRow(BATCH, 3, resend(AT));

        // Assess
        expect([stale, sent, resolvedRow, withoutSheet]).toEqual([false, true, false, true]);
        const row = await store().getRow(BATCH, 1);
        expect(row).toMatchObject({
          status: 'queued',
          attempt: 2,
          dispatch: 1,
          product,
          sheet: newSheet,
          product_key: 'sku:VAL-ESF',
          cells: ['VAL-ESF', 'valvula.pdf'],
          round: { round_id: 'r1', kind: 'resend' },
          updated_at: LATER,
        });
        for (const gone of [
          'result',
          'finished_at',
          'classification_id',
          'submitted_attempt',
          'submitted_at',
          'app_url',
        ])
          expect([gone, row && gone in row]).toEqual([gone, false]);
        expect(await store().getRow(BATCH, 3)).not.toHaveProperty('sheet');
        expect(await store().getRow(BATCH, 3)).not.toHaveProperty('result');
      });

      it('returned: only the round that took the row gives it back to review', async () => {
        // Prepare
        await store().putRows([
          rowRecord(1, { status: 'queued', round: round('r1'), result: { status: 'pending_data' } }),
        ]);

        // Act
        const other = await store().moveRow(BATCH, 1, { move: 'returned', round_id: 'r2', at: LATER });
        const own = await store().moveRow(BATCH, 1, { move: 'returned', round_id: 'r1', at: LATER });

        // Assess
        expect([other, own]).toEqual([false, true]);
        expect(await store().getRow(BATCH, 1)).toMatchObject({ status: 'pending_data', updated_at: LATER });
      });

      it('settled elsewhere and amended: from waiting for answers, and within the same final status', async () => {
        // Prepare
        const reused = { status: 'reused' as const, verdict_pdf: 'outbox/old/pdfs/1.pdf' };
        await store().putRows([
          rowRecord(1, { status: 'pending_data', result: { status: 'pending_data' } }),
          rowRecord(2, { status: 'reused', result: reused }),
          rowRecord(3, { status: 'queued' }),
        ]);

        // Act
        const settled = await store().moveRow(BATCH, 1, {
          move: 'settled_elsewhere',
          result: resolved,
          at: LATER,
        });
        const notPending = await store().moveRow(BATCH, 3, {
          move: 'settled_elsewhere',
          result: resolved,
          at: LATER,
        });
        const amended = await store().moveRow(BATCH, 2, {
          move: 'amended',
          result: { ...reused, verdict_pdf: 'pdfs/00002.pdf' },
          at: LATER,
        });
        const otherStatus = await store().moveRow(BATCH, 2, { move: 'amended', result: resolved, at: LATER });

        // Assess
        expect([settled, notPending, amended, otherStatus]).toEqual([true, false, true, false]);
        expect(await store().getRow(BATCH, 1)).toMatchObject({ status: 'resolved', result: resolved });
        expect(await store().getRow(BATCH, 2)).toMatchObject({
          status: 'reused',
          result: { verdict_pdf: 'pdfs/00002.pdf' },
        });
      });

      it('sim_confirmed: only on the row as it was read; a row changed since, or of another status, is refused', async () => {
        // Prepare: row 2 changed after the sweep read it (a decision written meanwhile)
        const verifying = { status: 'resolved' as const, ncm: '8413.91.90' };
        await store().putRows([
          rowRecord(1, { status: 'resolved', result: verifying, updated_at: AT }),
          rowRecord(2, {
            status: 'resolved',
            result: { ...verifying, check: 'approved' },
            updated_at: LATER,
          }),
          rowRecord(3, { status: 'failed', result: { status: 'failed' }, updated_at: AT }),
        ]);
        const confirmed = { ...verifying, sim_code: '8413.91.90.10' };
        const later = '2026-11-21T12:00:02.000Z';

        // Act
        const moved = [1, 2, 3].map((row) =>
          store().moveRow(BATCH, row, { move: 'sim_confirmed', result: confirmed, read_at: AT, at: later }),
        );

        // Assess
        expect(await Promise.all(moved)).toEqual([true, false, false]);
        expect(await store().getRow(BATCH, 1)).toMatchObject({ result: confirmed, updated_at: later });
        expect(await store().getRow(BATCH, 2)).toMatchObject({
          result: { check: 'approved' },
          updated_at: LATER,
        });
        expect(
          await store().moveRow(BATCH, 1, {
            move: 'sim_confirmed',
            result: confirmed,
            read_at: AT,
            at: later,
          }),
        ).toBe(false);
      });

      it('fails for a row that does not exist, whatever the move, and creates none', async () => {
        await expect(
          store().moveRow(BATCH, 3, { move: 'finished', result: resolved, at: AT }),
        ).rejects.toThrow(`no row ${BATCH}:3`);
        await expect(
          store().moveRow(BATCH, 3, { move: 'claimed', attempt: 1, dispatch: 1, at: AT }),
        ).rejects.toThrow(`no row ${BATCH}:3`);
        expect(await store().getRow(BATCH, 3)).toBeNull();
      });
    });

    describe('completion', () => {
      // Rows 1..1000 are shard 0, rows 1001..1003 shard 1.
      const prepareTwoShards = async () => {
        await store().createBatch(batchRecord({ shard_count: 2, rows_dispatched: 1003 }));
        await store().putCompletionShards(
          BATCH,
          new Map([
            [0, 1000],
            [1, 3],
          ]),
        );
      };

      it('completes the batch only when every row of every shard is done, returns the token then, and again to a retried Complete', async () => {
        // Prepare
        await prepareTwoShards();
        const registered = await store().registerWaiter(BATCH, TOKEN);

        // Act
        const early: unknown[] = [];
        await forEachNumber(1001, 1003, async (row) =>
          early.push(await store().markRowDone(BATCH, row, DONE)),
        );
        await forEachNumber(1, 999, async (row) => early.push(await store().markRowDone(BATCH, row, DONE)));
        const shardsBeforeLast = (await store().getBatch(BATCH))?.complete_shards;
        const last = await store().markRowDone(BATCH, 1000, DONE);
        // A retried Complete of the last row, and of one long done: the same answer, once more.
        const lastAgain = await store().markRowDone(BATCH, 1000, DONE);
        const firstAgain = await store().markRowDone(BATCH, 1, DONE);

        // Assess
        expect(registered).toEqual(NOT_COMPLETE);
        expect(early).toHaveLength(1002);
        expect(early.every((result) => JSON.stringify(result) === JSON.stringify(NOT_COMPLETE))).toBe(true);
        expect(shardsBeforeLast).toEqual([1]);
        expect(last).toEqual({ batchComplete: true, taskToken: TOKEN });
        expect(lastAgain).toEqual({ batchComplete: true, taskToken: TOKEN });
        expect(firstAgain).toEqual({ batchComplete: true, taskToken: TOKEN });
        expect((await store().getBatch(BATCH))?.complete_shards).toEqual([0, 1]);
      });

      it('counts a repeated row once: repeats never complete a shard early', async () => {
        // Prepare
        await prepareTwoShards();

        // Act
        for (let i = 0; i < 5; i++) await store().markRowDone(BATCH, 1001, DONE);
        const second = await store().markRowDone(BATCH, 1002, DONE);

        // Assess
        expect(second).toEqual(NOT_COMPLETE);
        expect((await store().getBatch(BATCH))?.complete_shards).toEqual([]);
      });

      it('says complete without a token until the workflow registers; registering then says complete', async () => {
        // Prepare: one shard of three rows (completing across shards is the first case's)
        await store().createBatch(batchRecord({ shard_count: 1, rows_dispatched: 3 }));
        await store().putCompletionShards(BATCH, new Map([[0, 3]]));
        await forEachNumber(1, 2, (row) => store().markRowDone(BATCH, row, DONE));

        // Act
        const last = await store().markRowDone(BATCH, 3, DONE);
        const registered = await store().registerWaiter(BATCH, TOKEN);
        const registeredAgain = await store().registerWaiter(BATCH, TOKEN);

        // Assess
        expect(last).toEqual({ batchComplete: true, taskToken: null });
        expect(registered).toEqual({ batchComplete: true, taskToken: TOKEN });
        expect(registeredAgain).toEqual({ batchComplete: true, taskToken: TOKEN });
        expect((await store().getBatch(BATCH))?.task_token).toBe(TOKEN);
      });

      it('calls a batch without dispatched rows complete as soon as its workflow registers', async () => {
        // Prepare
        await store().createBatch(batchRecord({ shard_count: 0, rows_dispatched: 0 }));

        // Act
        const registered = await store().registerWaiter(BATCH, TOKEN);

        // Assess
        expect(registered).toEqual({ batchComplete: true, taskToken: TOKEN });
      });

      it('keeps the rows already done when a retried Prepare writes the shards again', async () => {
        // Prepare
        await prepareTwoShards();
        await store().markRowDone(BATCH, 1001, DONE);
        await store().markRowDone(BATCH, 1002, DONE);

        // Act
        await prepareTwoShards();
        const last = await store().markRowDone(BATCH, 1003, DONE);

        // Assess
        expect(last).toEqual(NOT_COMPLETE);
        expect((await store().getBatch(BATCH))?.complete_shards).toEqual([1]);
      });

      it('counts each row once with its followers, by the status it shows, however often it is marked', async () => {
        // Prepare: row 1 leads 4 followers, row 1002 leads 2; shard 0 expects rows 1 and 2.
        await store().createBatch(batchRecord({ shard_count: 2, rows_dispatched: 5 }));
        await store().putCompletionShards(
          BATCH,
          new Map([
            [0, 2],
            [1, 3],
          ]),
          new Map([
            [1, 4],
            [1002, 2],
          ]),
        );
        const finish = (
          status: 'resolved' | 'failed' | 'pending_data' | 'error',
          cents: number,
          at: string,
          valueCents?: number,
        ) => ({
          status,
          billed_cents: cents,
          at,
          ...(valueCents === undefined ? {} : { value_cents: valueCents }),
        });

        // Act: every mark repeated, a repeat saying something else too (a late Complete). The value
        // a verdict covers counts once, and only for a row that resolved.
        for (let i = 0; i < 3; i++) {
          await store().markRowDone(BATCH, 1, finish('resolved', 200, AT, 123_456));
          await store().markRowDone(BATCH, 1001, finish('failed', 0, AT, 9_900));
          await store().markRowDone(BATCH, 1002, finish('pending_data', 200, AT, 5_000));
        }
        await store().markRowDone(BATCH, 1002, finish('error', 0, LATER));
        const open = await store().getBatch(BATCH);
        const whileOpen = await store().finishedRows(open!);

        // Assess: nothing complete yet, every count from the open shards.
        expect(open?.shards).toEqual([0, 1]);
        expect(open?.complete_shards).toEqual([]);
        expect(whileOpen).toEqual({
          rows: { resolved: 1, failed: 1, pending_data: 1 },
          followers: { resolved: 4, pending_data: 2 },
          billed_cents: 400,
          value_cents: 123_456,
          last_at: AT,
        });
      });

      it('rolls a shard’s counts up onto the batch once, as it completes; the total stays exact', async () => {
        // Prepare
        await store().createBatch(batchRecord({ shard_count: 2, rows_dispatched: 5 }));
        await store().putCompletionShards(
          BATCH,
          new Map([
            [0, 2],
            [1, 3],
          ]),
          new Map([[2, 3]]),
        );
        const resolved = { status: 'resolved', billed_cents: 200, at: AT, value_cents: 1_000 } as const;
        await store().markRowDone(BATCH, 1, resolved);
        await store().markRowDone(BATCH, 1001, resolved);

        // Act: shard 0 completes, then its last row is marked again (a retried Complete).
        await store().markRowDone(BATCH, 2, { status: 'error', billed_cents: 0, at: LATER });
        await store().markRowDone(BATCH, 2, { status: 'error', billed_cents: 0, at: LATER });
        const afterShard0 = await store().getBatch(BATCH);
        const total0 = await store().finishedRows(afterShard0!);
        await store().markRowDone(BATCH, 1002, resolved);
        await store().markRowDone(BATCH, 1003, resolved);
        await store().markRowDone(BATCH, 1003, resolved);
        const afterAll = await store().getBatch(BATCH);

        // Assess
        expect(afterShard0?.complete_shards).toEqual([0]);
        expect(afterShard0?.finished).toEqual({
          rows: { resolved: 1, error: 1 },
          followers: { error: 3 },
          billed_cents: 200,
          value_cents: 1_000,
          last_at: LATER,
        });
        expect(total0).toEqual({
          rows: { resolved: 2, error: 1 },
          followers: { error: 3 },
          billed_cents: 400,
          value_cents: 2_000,
          last_at: LATER,
        });
        expect(afterAll?.complete_shards).toEqual([0, 1]);
        const everything = {
          rows: { resolved: 4, error: 1 },
          followers: { error: 3 },
          billed_cents: 800,
          value_cents: 4_000,
          last_at: LATER,
        };
        expect(afterAll?.finished).toEqual(everything);
        expect(await store().finishedRows(afterAll!)).toEqual(everything);
      });

      it('fails for a row whose shard was never created, and registering on an unknown batch', async () => {
        // Prepare
        await prepareTwoShards();

        // Act and Assess
        await expect(store().markRowDone(BATCH, 2001, DONE)).rejects.toThrow(
          `no completion shard 2 for batch ${BATCH}`,
        );
        await expect(store().markRowDone('ghost', 1, DONE)).rejects.toThrow(
          'no completion shard 0 for batch ghost',
        );
        await expect(store().registerWaiter('ghost', TOKEN)).rejects.toThrow('no batch ghost');
        expect(await store().getBatch('ghost')).toBeNull();
      });
    });
  });
