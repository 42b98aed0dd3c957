/**
 * Prepare's SIM watches for the reused verdicts whose SIM openings the registry had not confirmed
 * when an earlier batch stored them: each such product gets one, on its first row, counting its
 * other rows, written a few at a time with the chunk that
 * holds that row, so the daily sweep moves this batch's results forward too. `put` writes only
 * what is absent: a leg or a Prepare run again writes nothing twice.
 */
import { forEachLimited } from '../core/calls-in-parallel.js';
import type { PipelinePorts } from '../core/ports.js';
import type { CachedVerdict, RowRecord } from '../core/records.js';
import { simWatchOfReuse } from '../core/sim-watch.js';
import type { PlannedBatch } from './prepare-passes.js';
import { reusedLead } from './reused-products.js';

/** Watches written at once: a chunk's go out in parallel, never one after another. */
const WATCHES_IN_FLIGHT = 16;

/**
 * Gives the writer of a batch's reused SIM watches, called chunk after chunk with the chunk's
 * records and its cached verdicts by fingerprint; it gives how many watches it wrote. Throws when
 * watches are due and no SIM watch store was given.
 */
export const reusedSimWatchWriter =
  (
    ports: Partial<Pick<PipelinePorts, 'simWatches'>>,
    planned: Pick<PlannedBatch, 'reusedProducts'>,
    now: Date,
  ) =>
  async (records: readonly RowRecord[], verdicts: ReadonlyMap<string, CachedVerdict>): Promise<number> => {
    const watches = records.flatMap((record) => {
      const lead = reusedLead(planned.reusedProducts, record);
      const cached = record.fingerprint === undefined ? undefined : verdicts.get(record.fingerprint);
      const watch = cached && lead.leads ? simWatchOfReuse(record, cached, now.toISOString()) : null;
      if (!watch) return [];
      return [lead.followers > 0 ? { ...watch, followers: lead.followers } : watch];
    });
    if (watches.length === 0) return 0;
    const { simWatches } = ports;
    if (!simWatches)
      throw new Error('Prepare reuses a verdict whose SIM openings wait but was given no SIM watches');
    await forEachLimited(watches, WATCHES_IN_FLIGHT, async (watch) => {
      await simWatches.put(watch);
    });
    return watches.length;
  };
