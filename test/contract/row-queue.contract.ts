/**
 * The RowQueue contract: what Prepare, the dispatcher and Complete rely on from the rows
 * queue, whichever implementation serves it. Time-based rules (delays, the visibility
 * timeout) are exercised by moving the implementation's clock, never by waiting.
 */
import { describe, expect, it } from 'vitest';
import type { ReceivedRow, RowQueue } from '../../shared/pipeline/core/ports.js';
import type { RowMessage } from '../../shared/pipeline/core/records.js';
import { rowMessage } from '../helpers/records.js';
import { type Implementation, useImplementation } from './implementation.js';

export type QueueSubject = {
  queue: RowQueue;
  /** How long a received message stays invisible unless deleted. */
  visibilityTimeoutMs: number;
  /** Moves the queue's clock forward. */
  advance(ms: number): void;
};

const byRow = (rows: readonly RowMessage[]) => [...rows].sort((a, b) => a.row - b.row);

export const describeRowQueueContract = (name: string, implementation: Implementation<QueueSubject>) =>
  describe(`RowQueue contract: ${name}`, () => {
    const subject = useImplementation(implementation);
    const queue = () => subject().queue;

    /** Receives until the queue answers nothing, checking that no answer holds more than asked. */
    const receiveAll = async (max = 10): Promise<ReceivedRow[]> => {
      const all: ReceivedRow[] = [];
      for (let calls = 0; calls < 50; calls++) {
        const received = await queue().receive(max);
        expect(received.length).toBeLessThanOrEqual(max);
        if (received.length === 0) return all;
        all.push(...received);
      }
      throw new Error('the queue kept answering after 50 receives');
    };

    it('hands out what was sent, each message once while it is in flight, received once', async () => {
      // Prepare
      const sent = [
        rowMessage(1),
        rowMessage(2, { attempt: 2, dispatch: 3 }),
        rowMessage(3, { round_id: 'r-1' }),
      ];

      // Act
      await queue().send(sent.map((message) => ({ message })));
      const received = await receiveAll();

      // Assess
      expect(byRow(received.map((row) => row.message))).toEqual(sent);
      expect(received.map((row) => row.receiveCount)).toEqual([1, 1, 1]);
      expect(new Set(received.map((row) => row.receipt)).size).toBe(3);
      expect(await queue().receive(10)).toEqual([]);
    });

    it('answers nothing from an empty queue', async () => {
      expect(await queue().receive(10)).toEqual([]);
    });

    it('sends more messages than one SendMessageBatch holds, and receives at most `max` at a time', async () => {
      // Prepare
      const sent = Array.from({ length: 23 }, (_, i) => rowMessage(i + 1));

      // Act
      await queue().send(sent.map((message) => ({ message })));
      const firstThree = await queue().receive(3);
      const rest = await receiveAll();

      // Assess
      expect(firstThree).toHaveLength(3);
      expect(byRow([...firstThree, ...rest].map((row) => row.message))).toEqual(sent);
    });

    it('refuses a max outside 1..10', async () => {
      await expect(queue().receive(0)).rejects.toThrow(RangeError);
      await expect(queue().receive(11)).rejects.toThrow(RangeError);
      await expect(queue().receive(2.5)).rejects.toThrow(RangeError);
    });

    it('hands a message out again once its visibility timeout passes, with a new receipt', async () => {
      // Prepare
      await queue().send([{ message: rowMessage(1) }]);
      const [first] = await queue().receive(10);

      // Act
      subject().advance(subject().visibilityTimeoutMs - 1_000);
      const tooEarly = await queue().receive(10);
      subject().advance(1_000);
      const [again] = await queue().receive(10);

      // Assess
      expect(tooEarly).toEqual([]);
      expect(again?.message).toEqual(rowMessage(1));
      expect(again?.receiveCount).toBe(2);
      expect(again?.receipt).not.toBe(first?.receipt);
    });

    it('deletes a message for good; deleting it again is harmless', async () => {
      // Prepare
      await queue().send([{ message: rowMessage(1) }, { message: rowMessage(2) }]);
      const received = await receiveAll();
      const one = received.find((row) => row.message.row === 1);

      // Act
      await queue().delete(one!.receipt);
      await queue().delete(one!.receipt);
      subject().advance(subject().visibilityTimeoutMs);
      const after = await receiveAll();

      // Assess
      expect(after.map((row) => row.message)).toEqual([rowMessage(2)]);
    });

    it('keeps a delayed message out of sight until its delay has passed', async () => {
      // Prepare
      await queue().send([{ message: rowMessage(1), delaySeconds: 120 }, { message: rowMessage(2) }]);

      // Act
      const now = await receiveAll();
      for (const row of now) await queue().delete(row.receipt);
      subject().advance(119_000);
      const almost = await receiveAll();
      subject().advance(1_000);
      const later = await receiveAll();

      // Assess
      expect(now.map((row) => row.message)).toEqual([rowMessage(2)]);
      expect(almost).toEqual([]);
      expect(later.map((row) => row.message)).toEqual([rowMessage(1)]);
      expect(later[0]?.receiveCount).toBe(1);
    });

    it('refuses a delay SQS cannot keep (outside 0..900 s, or not whole), sending nothing', async () => {
      // Act and Assess
      for (const delaySeconds of [-1, 901, 1.5])
        await expect(
          queue().send([{ message: rowMessage(1) }, { message: rowMessage(2), delaySeconds }]),
        ).rejects.toThrow(RangeError);
      expect(await queue().receive(10)).toEqual([]);
    });

    it('refuses a message that is not a row message, sending nothing', async () => {
      // Prepare
      const broken = { ...rowMessage(2), row: 0 };

      // Act and Assess
      await expect(queue().send([{ message: rowMessage(1) }, { message: broken }])).rejects.toThrow();
      expect(await queue().receive(10)).toEqual([]);
    });
  });
