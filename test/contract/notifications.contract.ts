/**
 * The contracts of the two ports that tell others something happened: BatchEvents (the
 * `Batch Completed` event Finalize publishes) and DispatcherKick (Complete and Prepare ask the
 * dispatcher to fill free slots now), whichever implementation serves them.
 */
import { describe, expect, it } from 'vitest';
import type { BatchEvents, DispatcherKick } from '../../shared/pipeline/core/ports.js';
import type { KickReason } from '../../shared/pipeline/core/records.js';
import { BATCH } from '../helpers/records.js';
import { type Implementation, useImplementation } from './implementation.js';

export type EventsSubject = {
  events: BatchEvents;
  /** The summaries published so far, in order, once each has arrived. */
  published(count: number): Promise<Record<string, unknown>[]>;
};

export type KickSubject = {
  kick: DispatcherKick;
  /** The reasons the dispatcher was kicked for, once `count` kicks have reached it. */
  received(count: number): Promise<KickReason[]>;
};

const summary = (rows: number) => ({
  batch_id: BATCH,
  name: 'Catálogo de peças — novembro',
  rows: { total: rows, resolved: rows - 1, pending_data: 1 },
  cost_usd: 1.25,
  files: ['results.csv', 'review.csv', 'summary.json'],
});

export const describeBatchEventsContract = (name: string, implementation: Implementation<EventsSubject>) =>
  describe(`BatchEvents contract: ${name}`, () => {
    const subject = useImplementation(implementation);

    it('publishes a batch completed with its summary, exactly as given', async () => {
      // Act
      await subject().events.batchCompleted(summary(34));

      // Assess
      expect(await subject().published(1)).toEqual([summary(34)]);
    });

    it('publishes every call, a repeated summary included', async () => {
      // Act
      await subject().events.batchCompleted(summary(34));
      await subject().events.batchCompleted(summary(34));
      await subject().events.batchCompleted(summary(2));

      // Assess
      expect(await subject().published(3)).toEqual([summary(34), summary(34), summary(2)]);
    });
  });

export const describeDispatcherKickContract = (name: string, implementation: Implementation<KickSubject>) =>
  describe(`DispatcherKick contract: ${name}`, () => {
    const subject = useImplementation(implementation);

    it('reaches the dispatcher once per kick, with its reason', async () => {
      // Act
      await subject().kick.kick('slot_freed');
      await subject().kick.kick('rows_queued');
      await subject().kick.kick('slot_freed');

      // Assess: asynchronous invocations, in no promised order.
      expect((await subject().received(3)).sort()).toEqual(['rows_queued', 'slot_freed', 'slot_freed']);
    });
  });
