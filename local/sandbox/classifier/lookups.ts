/** The reference lookups (`GET /tariffs`, `GET /sim-openings`) answered from the catalogue. */
import type { CandidateSim, Operation, SimOpenings, TariffLookup } from '../../../shared/tcs/schemas.js';
import { CATALOGUE, type CatalogueEntry } from './catalogue.js';
import { MERCOSUR_MEMBERS } from './countries.js';

export const TARIFF_SOURCE = 'Sandbox TEC (simulated)';

const BY_NCM: ReadonlyMap<string, CatalogueEntry> = new Map(CATALOGUE.map((entry) => [entry.ncm, entry]));

const findEntry = (ncm: string): CatalogueEntry | undefined => BY_NCM.get(ncm);

/**
 * Tariffs of an NCM for a country. An NCM the catalogue does not know answers found:false
 * `no_data`, as the real service does for a code its source has no figures for.
 * `aec` is the entry's common external tariff when its national duty differs, whatever the
 * country (the spec's "null when it does not differ from the import duty" is read against
 * the extra-zone duty, the only one the AEC can be compared with).
 */
export const lookupTariff = (
  query: { ncm: string; country: string; operation: Operation },
  now: Date,
): TariffLookup => {
  const queried_at = now.toISOString();
  const data = findEntry(query.ncm)?.tariff ?? 'no_data';
  if (data === 'no_data' || data === 'not_available') {
    return { found: false, reason: data, source: TARIFF_SOURCE, queried_at };
  }
  if (query.operation === 'export') {
    return {
      found: true,
      operation: 'export',
      export_duty: data.exportDuty,
      export_refund: data.exportRefund,
      source: TARIFF_SOURCE,
      queried_at,
    };
  }
  const intrazone = MERCOSUR_MEMBERS.includes(query.country);
  return {
    found: true,
    operation: 'import',
    import_duty_intrazone: 0,
    import_duty_extrazone: data.importDutyExtrazone,
    import_duty_applicable: intrazone ? 0 : data.importDutyExtrazone,
    duty_kind: intrazone ? 'intrazone' : 'extrazone',
    statistical_rate: data.statisticalRate,
    aec: data.aec,
    source: TARIFF_SOURCE,
    queried_at,
  };
};

/**
 * SIM openings of an NCM. The simulated registry has not confirmed an NCM the catalogue does
 * not know, so it answers `verifying` (never `none`: an empty list is never presented as
 * confirmed). An entry still `verifying` answers what it `confirms` once `confirmed` (the
 * engine's delay since the NCM was first asked about has passed). Openings do not depend on the
 * operation in the sandbox.
 */
export const lookupSimOpenings = (
  query: { ncm: string; operation: Operation },
  now: Date,
  registry: { confirmed: boolean } = { confirmed: false },
): SimOpenings => {
  const entered = findEntry(query.ncm)?.sim ?? { status: 'verifying' as const, confirms: null };
  const sim =
    entered.status === 'verifying' && registry.confirmed && entered.confirms ? entered.confirms : entered;
  const base = { ncm: query.ncm, operation: query.operation };
  switch (sim.status) {
    case 'available':
      return { ...base, status: 'available', openings: [...sim.openings], verified_at: now.toISOString() };
    case 'none':
      return { ...base, status: 'none', openings: [], verified_at: now.toISOString() };
    case 'verifying':
      return { ...base, status: 'verifying', openings: [], verified_at: null };
  }
};

/** The Candidate.sim the catalogue gives for an entry: one opening is selected for the caller. */
export const candidateSimOf = (entry: CatalogueEntry, now: Date): CandidateSim => {
  const sim = entry.sim;
  switch (sim.status) {
    case 'available': {
      const [only, ...others] = sim.openings;
      if (only !== undefined && others.length === 0) {
        return { status: 'auto_selected', code: only.code, options: [only], verified_at: now.toISOString() };
      }
      return {
        status: 'pending_choice',
        code: null,
        options: [...sim.openings],
        verified_at: now.toISOString(),
      };
    }
    case 'none':
      return { status: 'none', code: null, options: [], verified_at: now.toISOString() };
    case 'verifying':
      return { status: 'verifying', code: null, options: [], verified_at: null };
  }
};
