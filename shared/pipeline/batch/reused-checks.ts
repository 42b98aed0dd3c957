/**
 * Prepare's check items for the reused verdicts a person must check (docs/architecture.md, §12):
 * a chunk's rows marked `to_check` (reuse.ts, `reusedResult`) each get one, written a few at a time
 * with the chunk's rows. `create` writes only what is absent, so a leg or a Prepare run again
 * writes nothing twice and keeps any decision made meanwhile.
 *
 * A reused row has no classification at hand: its candidates come from the cached result's columns
 * (core/verdict-check.ts, `checkItemOfResult`), described from the NCM table in force, read once
 * and only when a chunk has such a row.
 */
import { tableInForce } from '../../ncm-table/reference-table.js';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { forEachLimited } from '../core/calls-in-parallel.js';
import type { CheckItem } from '../core/check-records.js';
import type { PipelinePorts } from '../core/ports.js';
import type { CachedVerdict, RowRecord } from '../core/records.js';
import { checkItemOfResult, checkReasonsOfResult, isReusedToCheck } from '../core/verdict-check.js';
import { tableDescription } from './divergence-sheet.js';

/** Check items written at once: a chunk's go out in parallel, never one after another. */
const CHECKS_IN_FLIGHT = 16;

/**
 * The writer of a batch's reused check items, chunk after chunk: `verdicts` are the chunk's cached
 * verdicts by fingerprint (the reused result keeps only its own detail, so the SIM openings to
 * choose from are read from the cached one).
 */
export const reusedCheckWriter = (
  ports: Pick<PipelinePorts, 'objects'> & Partial<Pick<PipelinePorts, 'checks'>>,
  batch: { checkBelow: number | undefined; now: Date },
) => {
  let table: Promise<NcmTable> | undefined;
  return async (
    records: readonly RowRecord[],
    verdicts: ReadonlyMap<string, CachedVerdict>,
  ): Promise<number> => {
    if (batch.checkBelow === undefined) return 0;
    const marked = records.filter(isReusedToCheck);
    if (marked.length === 0) return 0;
    table ??= tableInForce(ports.objects).then((inForce) => inForce.table);
    const ncm = await table;
    const describe = (digits: string) => tableDescription(ncm, digits);
    const items: CheckItem[] = marked.flatMap((record) => {
      const cached = record.fingerprint === undefined ? undefined : verdicts.get(record.fingerprint);
      const result = { ...record.result!, detail_messages: cached?.result.detail_messages ?? [] };
      const reasons = checkReasonsOfResult(cached?.result ?? result, batch.checkBelow);
      if (reasons.length === 0) return [];
      // Reused rows lead no followers: every row of a reused product reuses the verdict itself.
      const ctx = { reasons, checkBelow: batch.checkBelow, followers: 0, now: batch.now };
      return [checkItemOfResult(result, record, describe, ctx)];
    });
    const { checks } = ports;
    if (!checks)
      throw new Error('Prepare marks reused verdicts to check but was given no check store (checks)');
    await forEachLimited(items, CHECKS_IN_FLIGHT, async (item) => {
      await checks.create(item);
    });
    return items.length;
  };
};
