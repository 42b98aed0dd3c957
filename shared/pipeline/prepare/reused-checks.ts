/**
 * Prepare's check items for the reused verdicts a person must check: every row of a reused product
 * is marked `to_check` alike, and the product gets one item, on its first row, that counts the
 * others as its followers, so one decision settles them all. Written a few at a time with the
 * chunk that holds that first row. `create` writes only what is absent, so
 * a leg or a Prepare run again writes nothing twice and keeps any decision made meanwhile.
 *
 * A reused row has no classification at hand: its candidates come from the cached result's columns,
 * described from the NCM table in force, read once
 * and only when a chunk has such a row. The cached result keeps its SIM openings by code alone, so
 * they are described as the registry does (`GET /sim-openings`, free), once per NCM and operation.
 */
import { TcsError } from '../../tcs/errors.js';
import { forEachLimited, mapLimited } from '../core/calls-in-parallel.js';
import type { CheckItem } from '../core/check-records.js';
import type { PipelinePorts } from '../core/ports.js';
import type { CachedVerdict, RowRecord } from '../core/records.js';
import { checkItemOfResult, checkReasonsOfResult, isReusedToCheck } from '../core/verdict-check.js';
import { ncmDescriber } from '../outbox/divergence-sheet.js';
import type { PlannedBatch } from './prepare-passes.js';
import { reusedLead } from './reused-products.js';

/** Check items written at once: a chunk's go out in parallel, never one after another. */
const CHECKS_IN_FLIGHT = 16;
/** SIM openings looked up at once. */
const LOOKUPS_IN_FLIGHT = 8;

type Describes = Map<string, Promise<ReadonlyMap<string, string>>>;

/**
 * The items' SIM openings without words described by the registry: each NCM and operation asked
 * once for the whole batch (`asked` keeps the answers); a lookup that fails leaves the codes alone,
 * as they were (the decision takes a code either way).
 */
const withSimWords = async (
  service: Pick<PipelinePorts['service'], 'getSimOpenings'>,
  items: readonly CheckItem[],
  asked: Describes,
): Promise<CheckItem[]> => {
  const keyOf = (item: CheckItem) => `${item.ncm}:${item.operation}`;
  const wordless = items.filter(
    (item) => item.ncm && item.operation && item.sim_options.some((option) => option.description === ''),
  );
  await mapLimited(wordless, LOOKUPS_IN_FLIGHT, async (item) => {
    if (asked.has(keyOf(item))) return;
    const query = { ncm: item.ncm!, operation: item.operation! };
    const answer = service.getSimOpenings(query).then(
      (found) => new Map(found.openings.map((opening) => [opening.code, opening.description])),
      (error: unknown) => {
        if (error instanceof TcsError) return new Map<string, string>();
        throw error;
      },
    );
    asked.set(keyOf(item), answer);
    await answer;
  });
  return Promise.all(
    items.map(async (item) => {
      const words = asked.get(keyOf(item));
      if (!words) return item;
      const known = await words;
      const sim_options = item.sim_options.map((option) => ({
        ...option,
        description: option.description || (known.get(option.code) ?? ''),
      }));
      return { ...item, sim_options };
    }),
  );
};

/**
 * Gives the writer of a batch's reused check items, called chunk after chunk with the chunk's
 * records and its cached verdicts by fingerprint (the reused result keeps only its own detail, so
 * the SIM openings to choose from are read from the cached one); it gives how many items it wrote.
 * Throws when items are due and no check store was given.
 */
export const reusedCheckWriter = (
  ports: Pick<PipelinePorts, 'objects' | 'service'> & Partial<Pick<PipelinePorts, 'checks'>>,
  planned: Pick<PlannedBatch, 'options' | 'reusedProducts'>,
  now: Date,
) => {
  const checkBelow = planned.options.check_below;
  const describer = ncmDescriber(ports.objects);
  const asked: Describes = new Map();
  return async (
    records: readonly RowRecord[],
    verdicts: ReadonlyMap<string, CachedVerdict>,
  ): Promise<number> => {
    if (checkBelow === undefined) return 0;
    const marked = records.flatMap((record) => {
      const lead = reusedLead(planned.reusedProducts, record);
      return isReusedToCheck(record) && lead.leads ? [{ record, followers: lead.followers }] : [];
    });
    if (marked.length === 0) return 0;
    const describe = await describer();
    const items: CheckItem[] = marked.flatMap(({ record, followers }) => {
      const cached = record.fingerprint === undefined ? undefined : verdicts.get(record.fingerprint);
      const result = { ...record.result!, detail_messages: cached?.result.detail_messages ?? [] };
      const reasons = checkReasonsOfResult(cached?.result ?? result, checkBelow);
      if (reasons.length === 0) return [];
      const ctx = { reasons, checkBelow, followers, now };
      const item = checkItemOfResult(result, record, describe, ctx);
      // Its followers reuse the verdict each on its own row: a decision is written on each.
      return [followers > 0 ? { ...item, followers_reuse: true } : item];
    });
    const { checks } = ports;
    if (!checks)
      throw new Error('Prepare marks reused verdicts to check but was given no check store (checks)');
    const described = await withSimWords(ports.service, items, asked);
    await forEachLimited(described, CHECKS_IN_FLIGHT, async (item) => {
      await checks.create(item);
    });
    return items.length;
  };
};
