/**
 * The free look-ups a verdict needs for the rows of other origins that share it (core/origins.ts):
 * `GET /tariffs` for its NCM in each other country and operation, and `GET /sim-openings` for an
 * operation that is not the verdict's. Store makes them for a leader's followers once the verdict
 * is known; Prepare makes them for rows that reuse an earlier verdict for an origin it does not
 * keep. Each NCM and origin is asked once per run, a few at a time.
 */
import { TcsError } from '../../tcs/errors.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import {
  type Origin,
  type OriginLookup,
  type OriginLookups,
  originKey,
  sameOrigin,
} from '../core/origins.js';
import type { PipelinePorts } from '../core/ports.js';

/** The service's look-ups this needs. */
type LookupService = Pick<PipelinePorts['service'], 'getTariffs' | 'getSimOpenings'>;

/** Look-ups in flight at once: each is one free GET. */
const LOOKUPS_IN_FLIGHT = 8;

/**
 * Gives what the service says of an 8-digit NCM for one origin: its tariffs and, when the origin's
 * operation is not `verdictOperation`, that operation's SIM openings. Null when the service could
 * not answer (the row then says its tariffs were not looked up); our own errors are thrown.
 */
const lookUpOrigin = async (
  service: LookupService,
  ncm: string,
  origin: Origin,
  verdictOperation: Origin['operation'],
): Promise<OriginLookup | null> => {
  try {
    const [tariffs, simOpenings] = await Promise.all([
      service.getTariffs({ ncm, country: origin.country, operation: origin.operation }),
      origin.operation === verdictOperation
        ? undefined
        : service.getSimOpenings({ ncm, operation: origin.operation }),
    ]);
    return { tariffs, ...(simOpenings ? { sim_openings: simOpenings } : {}) };
  } catch (error) {
    // A free look-up the service cannot answer now never costs the verdict: the row says so.
    if (error instanceof TcsError) return null;
    throw error;
  }
};

/**
 * Gives a verdict's look-ups for `origins` (its own left out, each origin once), by `originKey`:
 * all of them at once, a few at a time; an origin the service could not answer is left out.
 */
export const lookUpOrigins = async (
  service: LookupService,
  ncm: string,
  verdictOrigin: Origin,
  origins: readonly Origin[],
): Promise<OriginLookups> => {
  const others = [...new Map(origins.map((origin) => [originKey(origin), origin])).values()].filter(
    (origin) => !sameOrigin(origin, verdictOrigin),
  );
  const found = await mapLimited(others, LOOKUPS_IN_FLIGHT, (origin) =>
    lookUpOrigin(service, ncm, origin, verdictOrigin.operation),
  );
  return Object.fromEntries(
    others.flatMap((origin, i) => (found[i] ? [[originKey(origin), found[i]] as const] : [])),
  );
};

/**
 * Gives a memory of look-ups for one run over many rows (Prepare's records pass): `add` asks each
 * NCM and origin not asked yet, a few at a time; `of` gives what is known for an NCM, by origin.
 * Holds one entry per NCM and origin asked: a batch has few of either.
 */
export const originLookupMemory = (service: LookupService) => {
  const byNcm = new Map<string, OriginLookups>();
  const asked = new Set<string>();
  return {
    add: async (needs: readonly { ncm: string; verdictOrigin: Origin; origin: Origin }[]): Promise<void> => {
      const fresh = needs.filter((need) => {
        const name = `${need.ncm}|${originKey(need.origin)}|${need.verdictOrigin.operation}`;
        if (asked.has(name) || sameOrigin(need.origin, need.verdictOrigin)) return false;
        asked.add(name);
        return true;
      });
      await mapLimited(fresh, LOOKUPS_IN_FLIGHT, async (need) => {
        const found = await lookUpOrigin(service, need.ncm, need.origin, need.verdictOrigin.operation);
        if (found) byNcm.set(need.ncm, { ...byNcm.get(need.ncm), [originKey(need.origin)]: found });
      });
    },
    of: (ncm: string): OriginLookups | undefined => byNcm.get(ncm),
  };
};
