/**
 * What the "To check" workbench shows of its list (web/src/check-filters.ts): filters by batch,
 * reason and confidence band, a search that ignores accents and finds an NCM dotted or not, the
 * sorts, the SIM openings a bulk approval can set on all, and the entry a row's link opens.
 */
import { describe, expect, it } from 'vitest';
import type { CheckEntryView } from '../../../shared/console/api.js';
import {
  batchChoices,
  batchesOf,
  entryWithRow,
  NO_FILTERS,
  sharedSimOptions,
  shownEntries,
} from '../../../web/src/check-filters.js';

const entry = (key: string, patch: Partial<CheckEntryView> = {}): CheckEntryView => ({
  key,
  rows: [
    {
      batch_id: 'nightly-1',
      batch_name: 'nightly',
      row: 1,
      classification_id: `cls_${key}`,
      followers: 0,
      created_at: '2026-12-01T10:00:00.000Z',
    },
  ],
  row_count: 1,
  batch_count: 1,
  sku: null,
  description: null,
  title: null,
  reasons: ['low_confidence'],
  check_below: 90,
  ncm: '84713012',
  confidence: 67,
  candidates: [],
  sim_options: [],
  verdict: null,
  ...patch,
});

const row = (batch_id: string, number: number, created_at: string) => ({
  batch_id,
  batch_name: batch_id.replace(/-\d+$/, ''),
  row: number,
  classification_id: `cls_${batch_id}_${number}`,
  followers: 0,
  created_at,
});

const coffee = entry('coffee', {
  description: 'Café torrado em grãos',
  sku: 'CF-1',
  ncm: '09012100',
  confidence: 92,
  reasons: ['sim_pending_choice'],
  sim_options: [
    { code: '0901210001', description: 'Em grãos' },
    { code: '0901210002', description: 'Moído' },
  ],
  rows: [row('weekly-1', 4, '2026-12-02T08:00:00.000Z')],
});
const laptop = entry('laptop', {
  description: 'Notebook 14 polegadas',
  sku: 'NB-14',
  confidence: 45,
  row_count: 12,
  rows: [row('nightly-1', 3, '2026-12-01T09:00:00.000Z'), row('weekly-1', 9, '2026-12-02T09:00:00.000Z')],
});
const wine = entry('wine', {
  description: 'Vinho tinto Malbec',
  ncm: '22042100',
  confidence: 75,
  reasons: ['low_confidence', 'sim_pending_choice'],
  row_count: 3,
  rows: [row('nightly-1', 8, '2026-12-01T11:00:00.000Z')],
});
const all = [coffee, laptop, wine];
const keys = (entries: CheckEntryView[]) => entries.map((one) => one.key);

describe('the entries a person’s filters keep', () => {
  it('keeps the list as it came without filters', () => {
    expect(keys(shownEntries(all, NO_FILTERS))).toEqual(['laptop', 'wine', 'coffee']);
  });

  it('filters by batch, by reason and by confidence band', () => {
    expect(keys(shownEntries(all, { ...NO_FILTERS, batch: 'weekly-1' }))).toEqual(['laptop', 'coffee']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, reason: 'sim_pending_choice' }))).toEqual([
      'wine',
      'coffee',
    ]);
    expect(keys(shownEntries(all, { ...NO_FILTERS, confidence: 'under50' }))).toEqual(['laptop']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, confidence: 'from70to90' }))).toEqual(['wine']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, confidence: 'from90' }))).toEqual(['coffee']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, reason: 'low_confidence', batch: 'weekly-1' }))).toEqual([
      'laptop',
    ]);
  });

  it('searches product, SKU, NCM (dotted or not) and batch, accents and case aside, every word', () => {
    expect(keys(shownEntries(all, { ...NO_FILTERS, search: 'cafe' }))).toEqual(['coffee']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, search: 'nb-14' }))).toEqual(['laptop']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, search: '8471.30' }))).toEqual(['laptop']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, search: '22042100' }))).toEqual(['wine']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, search: 'weekly' }))).toEqual(['laptop', 'coffee']);
    expect(keys(shownEntries(all, { ...NO_FILTERS, search: 'weekly notebook' }))).toEqual(['laptop']);
    expect(shownEntries(all, { ...NO_FILTERS, search: 'parafuso' })).toEqual([]);
  });

  it('sorts by waiting time, confidence, rows and product', () => {
    const sorted = (sort: (typeof NO_FILTERS)['sort']) => keys(shownEntries(all, { ...NO_FILTERS, sort }));
    expect(sorted('waiting')).toEqual(['laptop', 'wine', 'coffee']);
    expect(sorted('confidence_low')).toEqual(['laptop', 'wine', 'coffee']);
    expect(sorted('confidence_high')).toEqual(['coffee', 'wine', 'laptop']);
    expect(sorted('rows')).toEqual(['laptop', 'wine', 'coffee']);
    expect(sorted('product')).toEqual(['coffee', 'laptop', 'wine']);
  });
});

describe('what the workbench offers', () => {
  it('lists the batches of the entries once each, by name, the id beside a name two batches share', () => {
    expect(batchesOf(all)).toEqual([
      { id: 'nightly-1', label: 'nightly' },
      { id: 'weekly-1', label: 'weekly' },
    ]);
    expect(
      batchChoices([
        ['nightly-2', 'nightly'],
        ['weekly-1', 'weekly'],
        ['nightly-1', 'nightly'],
      ]),
    ).toEqual([
      { id: 'nightly-1', label: 'nightly · nightly-1' },
      { id: 'nightly-2', label: 'nightly · nightly-2' },
      { id: 'weekly-1', label: 'weekly' },
    ]);
  });

  it('offers a SIM opening for a bulk approval only when every entry has the same NCM and offers it', () => {
    const ground = entry('ground', { ncm: '09012100', sim_options: [coffee.sim_options[1]!] });
    expect(sharedSimOptions([coffee])).toEqual(coffee.sim_options);
    expect(sharedSimOptions([coffee, ground])).toEqual([coffee.sim_options[1]]);
    expect(sharedSimOptions([coffee, wine])).toEqual([]);
    expect(sharedSimOptions([])).toEqual([]);
  });

  it("finds the entry holding a batch's row", () => {
    expect(entryWithRow(all, { batchId: 'weekly-1', row: 9 })?.key).toBe('laptop');
    expect(entryWithRow(all, { batchId: 'weekly-1', row: 3 })).toBeNull();
  });
});
