/**
 * The Step Functions ports' contracts: RowWorkflows (the dispatcher starts one Row workflow
 * per row attempt, the name making a repeat a no-op) and BatchWaiters (Complete wakes the
 * Batch workflow's WaitForRows; waking is idempotent), whichever implementation serves them.
 */
import { describe, expect, it } from 'vitest';
import type { BatchWaiters, RowWorkflows } from '../../shared/pipeline/core/ports.js';
import type { RowExecutionInput } from '../../shared/pipeline/core/records.js';
import { BATCH } from '../helpers/records.js';
import { type Implementation, useImplementation } from './implementation.js';

export type WorkflowsSubject = {
  workflows: RowWorkflows;
  /** The inputs of every execution that ran under this name, in start order. */
  runsOf(name: string): Promise<unknown[]>;
  /** Lets the execution of this name end, and returns once it has. */
  finish(name: string): Promise<void>;
  /** Moves the clock forward: a repeat well after the first start is not the SDK retrying it. */
  advance(ms: number): void;
};

export type WaitersSubject = {
  waiters: BatchWaiters;
  /** A task token the Batch workflow is waiting on. */
  waitingToken(): string;
  /** What the workflow waiting on this token was woken with, once per wake it received. */
  deliveries(token: string): unknown[];
};

const input = (row: number, overrides: Partial<RowExecutionInput> = {}): RowExecutionInput => ({
  batch_id: BATCH,
  row,
  attempt: 1,
  dispatch: 1,
  row_key: `${BATCH}:${row}`,
  holder: `${BATCH}:${row}#a1`,
  ...overrides,
});

/** More than any clock skew the Step Functions adapter allows between a start and its retry. */
const WELL_AFTER_MS = 60_000;

export const describeRowWorkflowsContract = (
  name: string,
  implementation: Implementation<WorkflowsSubject>,
) =>
  describe(`RowWorkflows contract: ${name}`, () => {
    const subject = useImplementation(implementation);

    it('starts an execution under a new name with the given input', async () => {
      // Act
      const result = await subject().workflows.start('nightly-abc-1-a1-d1', input(1));

      // Assess
      expect(result).toBe('started');
      expect(await subject().runsOf('nightly-abc-1-a1-d1')).toEqual([input(1)]);
    });

    it('answers already_started to a later start under the name of a running execution, starting nothing', async () => {
      // Prepare
      await subject().workflows.start('nightly-abc-1-a1-d1', input(1));
      subject().advance(WELL_AFTER_MS);

      // Act
      const again = await subject().workflows.start('nightly-abc-1-a1-d1', input(1));

      // Assess
      expect(again).toBe('already_started');
      expect(await subject().runsOf('nightly-abc-1-a1-d1')).toEqual([input(1)]);
    });

    it('answers already_started to a start under a used name with another input, keeping the first', async () => {
      // Prepare
      await subject().workflows.start('nightly-abc-1-a1-d1', input(1));

      // Act
      const other = await subject().workflows.start('nightly-abc-1-a1-d1', input(1, { dispatch: 2 }));

      // Assess
      expect(other).toBe('already_started');
      expect(await subject().runsOf('nightly-abc-1-a1-d1')).toEqual([input(1)]);
    });

    it('answers already_started to a start under the name of an execution that has ended', async () => {
      // Prepare
      await subject().workflows.start('nightly-abc-1-a1-d1', input(1));
      await subject().finish('nightly-abc-1-a1-d1');

      // Act
      const again = await subject().workflows.start('nightly-abc-1-a1-d1', input(1));

      // Assess
      expect(again).toBe('already_started');
      expect(await subject().runsOf('nightly-abc-1-a1-d1')).toEqual([input(1)]);
    });

    it('starts executions under different names independently', async () => {
      // Act
      const results = [
        await subject().workflows.start('nightly-abc-1-a1-d1', input(1)),
        await subject().workflows.start('nightly-abc-1-a1-d2', input(1, { dispatch: 2 })),
      ];

      // Assess
      expect(results).toEqual(['started', 'started']);
      expect(await subject().runsOf('nightly-abc-1-a1-d2')).toEqual([input(1, { dispatch: 2 })]);
    });
  });

export const describeBatchWaitersContract = (name: string, implementation: Implementation<WaitersSubject>) =>
  describe(`BatchWaiters contract: ${name}`, () => {
    const subject = useImplementation(implementation);

    it('wakes the workflow waiting on a token with the batch id', async () => {
      // Prepare
      const token = subject().waitingToken();

      // Act
      await subject().waiters.wake(token, { batch_id: BATCH });

      // Assess
      expect(subject().deliveries(token)).toEqual([{ batch_id: BATCH }]);
    });

    it('wakes once: waking the same token again is no error and delivers nothing more', async () => {
      // Prepare
      const token = subject().waitingToken();
      await subject().waiters.wake(token, { batch_id: BATCH });

      // Act
      await subject().waiters.wake(token, { batch_id: BATCH });

      // Assess
      expect(subject().deliveries(token)).toEqual([{ batch_id: BATCH }]);
    });

    it('wakes each waiting workflow by its own token', async () => {
      // Prepare
      const first = subject().waitingToken();
      const second = subject().waitingToken();

      // Act
      await subject().waiters.wake(second, { batch_id: 'round-2' });

      // Assess
      expect(subject().deliveries(first)).toEqual([]);
      expect(subject().deliveries(second)).toEqual([{ batch_id: 'round-2' }]);
    });
  });
