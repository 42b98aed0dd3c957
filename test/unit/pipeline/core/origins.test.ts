/** A verdict shared across origins: what a row of another country or operation shows (core/origins.ts). */
import { describe, expect, it } from 'vitest';
import { originKey, originOfKey } from '../../../../shared/pipeline/core/origins.js';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { resultNow } from '../../../../shared/pipeline/core/row-life.js';
import { resultForOrigin } from '../../../../shared/pipeline/core/row-results.js';
import { productOriginsCollector } from '../../../../shared/pipeline/prepare/product-origins.js';
import type { RowPlan } from '../../../../shared/pipeline/prepare/row-plans.js';
import { wordMessages } from '../../../../shared/wording/index.js';

const AT = '2026-11-21T12:00:00.000Z';
const CN = { operation: 'import', country: 'CN' } as const;
const AR = { operation: 'import', country: 'AR' } as const;
const MX_EXPORT = { operation: 'export', country: 'MX' } as const;

/** A verdict made for imports from China, with a SIM opening chosen and its duties. */
const VERDICT: RowResult = {
  status: 'resolved',
  classification_id: 'cls_7KQ2M9XW4RTB',
  ncm: '8501.52.10',
  sim_code: '8501.52.10.10',
  confidence: '93',
  import_duty_applicable: '14',
  duty_kind: 'extrazone',
  statistical_rate: '3',
  tariff_source: 'TEC',
  verdict_pdf: 'pdfs/00001-MOT.pdf',
  cost_usd: '2.00',
  detail: 'SIM opening to be chosen among 8501.52.10.10, 8501.52.10.20',
  detail_messages: [{ code: 'verdict_notes', params: { sim_options: ['8501.52.10.10', '8501.52.10.20'] } }],
  origin_lookups: {
    'import:AR': {
      tariffs: {
        found: true,
        operation: 'import',
        import_duty_intrazone: 0,
        import_duty_extrazone: 14,
        import_duty_applicable: 0,
        duty_kind: 'intrazone',
        statistical_rate: 3,
        aec: null,
        source: 'TEC',
        queried_at: AT,
      },
    },
    'export:MX': {
      tariffs: { found: false, reason: 'not_available', source: 'TEC', queried_at: AT },
      sim_openings: {
        ncm: '85015210',
        operation: 'export',
        status: 'verifying',
        openings: [],
        verified_at: null,
      },
    },
  },
};

describe('resultForOrigin', () => {
  it('gives a row of another country the same verdict with that country’s duties, and says whose verdict it is', () => {
    const shown = resultForOrigin(VERDICT, { origin: CN }, AR);
    expect(shown).toMatchObject({
      classification_id: 'cls_7KQ2M9XW4RTB',
      verdict_from: 'cls_7KQ2M9XW4RTB (CN, import)',
      ncm: '8501.52.10',
      sim_code: '8501.52.10.10',
      confidence: '93',
      verdict_pdf: 'pdfs/00001-MOT.pdf',
      import_duty_applicable: '0',
      duty_kind: 'intrazone',
      statistical_rate: '3',
      tariff_source: 'TEC',
    });
    expect(shown.origin_lookups).toBeUndefined();
    expect(shown.detail).toContain('made for import (CN)');
    expect(shown.detail).toContain('tariffs looked up for import (AR)');
    // The same operation keeps the verdict's SIM notes.
    expect(shown.detail).toContain('SIM opening to be chosen among 8501.52.10.10, 8501.52.10.20');
    expect(wordMessages(shown.detail_messages ?? [], 'pt')[0]).toContain(
      'o NCM é do produto, seja qual for a origem',
    );
  });

  it('gives a row of another operation its own SIM openings and no SIM code, and says when tariffs were not found', () => {
    const shown = resultForOrigin(VERDICT, { origin: CN }, MX_EXPORT);
    expect(shown.sim_code).toBeUndefined();
    expect(shown.import_duty_applicable).toBeUndefined();
    expect(shown.duty_kind).toBeUndefined();
    expect(shown.tariff_source).toBe('TEC');
    expect(shown.detail).toContain('SIM openings not yet confirmed by the official registry');
    expect(shown.detail).toContain('tariffs not found (not_available)');
    expect(shown.detail).not.toContain('to be chosen among');
  });

  it('says so when the row’s tariffs were never looked up, and shows none of another country’s', () => {
    const shown = resultForOrigin(VERDICT, { origin: CN }, { operation: 'import', country: 'US' });
    expect(shown.import_duty_applicable).toBeUndefined();
    expect(shown.tariff_source).toBeUndefined();
    expect(shown.detail).toContain('tariffs for import (US) not looked up yet');
  });

  it('leaves a row of the verdict’s own origin, and a result without an NCM, as they are, without the look-ups', () => {
    const { origin_lookups: _kept, ...own } = VERDICT;
    expect(resultForOrigin(VERDICT, { origin: CN }, CN)).toEqual(own);
    const pending: RowResult = { status: 'pending_data', questions: 'Qual a potência?', cost_usd: '0.00' };
    expect(resultForOrigin(pending, { origin: CN }, AR)).toEqual(pending);
  });

  it('is what a follower of another origin shows, derived from its leader', () => {
    const shown = resultNow(
      { status: 'following', follows: 1, product: { ...AR, row: 2 } as never, result: undefined },
      { row: 1, status: 'resolved', result: VERDICT, product: { ...CN, row: 1 } as never },
    );
    expect(shown).toMatchObject({
      status: 'resolved',
      cost_usd: '0.00',
      duty_kind: 'intrazone',
      verdict_from: 'cls_7KQ2M9XW4RTB (CN, import)',
    });
    expect(shown.detail).toMatch(/^Same product as row 1 /);
  });
});

describe('origin keys', () => {
  it('read back into the origin they name, and refuse text that names none', () => {
    expect(originOfKey(originKey(MX_EXPORT))).toEqual(MX_EXPORT);
    expect(originOfKey('import')).toBeNull();
    expect(originOfKey('resale:BR')).toBeNull();
  });
});

describe('productOriginsCollector', () => {
  const plan = (row: number, goods: string, origin: { operation: 'import' | 'export'; country: string }) =>
    ({
      kind: 'valid',
      mapped: { row },
      product: origin,
      identity: {
        product_key: `h:${row}`,
        fingerprint: `${goods}-${originKey(origin)}`,
        product_fingerprint: goods,
      },
    }) as unknown as RowPlan;

  it('names every other origin of a product, whichever came first, and holds nothing for a file of one origin', () => {
    const origins = productOriginsCollector({ verdict_per_country: false, duplicates: 'classify_once' });
    origins.add([plan(1, 'motor', CN), plan(2, 'bearing', AR), plan(3, 'motor', AR)]);
    origins.add([plan(4, 'bearing', CN), plan(5, 'coffee', CN), plan(6, 'motor', MX_EXPORT)]);
    expect(origins.othersOf('motor', 'import:CN')).toEqual(['export:MX', 'import:AR']);
    expect(origins.othersOf('bearing', 'import:AR')).toEqual(['import:CN']);
    expect(origins.othersOf('coffee', 'import:CN')).toEqual([]);

    const one = productOriginsCollector({ verdict_per_country: false, duplicates: 'classify_once' });
    one.add([plan(1, 'motor', CN), plan(2, 'coffee', CN)]);
    expect(one.othersOf('motor', 'import:CN')).toEqual([]);
  });

  it('collects nothing when each origin, or each row, is classified on its own', () => {
    for (const options of [
      { verdict_per_country: true, duplicates: 'classify_once' as const },
      { verdict_per_country: false, duplicates: 'classify_each' as const },
    ]) {
      const origins = productOriginsCollector(options);
      origins.add([plan(1, 'motor', CN), plan(2, 'motor', AR)]);
      expect(origins.othersOf('motor', 'import:CN')).toEqual([]);
    }
  });
});
