/**
 * The recheck after the NCM table changes: every cached verdict whose code the table in force no
 * longer holds, listed with what the table says of it (ended, replaced, split), in legs when the
 * cache is large; over memory ports, with a small table dropped in reference/ncm/ as Siscomex
 * publishes it.
 */
import { describe, expect, it } from 'vitest';
import {
  RECHECK_CSV_COLUMNS,
  type RecheckReport,
  RecheckSummary,
  readRecheckProgress,
  recheckAskedBy,
  recheckVerdicts,
} from '../../../../shared/pipeline/reuse/recheck-verdicts.js';
import { fixedClock, memoryObjectStore, memoryProductCache } from '../../../helpers/memory-ports.js';
import { cachedVerdict, classificationId } from '../../../helpers/records.js';
import { siscomexEntry, siscomexTable } from '../../../helpers/siscomex-table.js';

const entry = (code: string, description: string) =>
  siscomexEntry(code, description, { starts: '01/01/2027' });

/** A table newer than the carried one: 1513.21.10 split in two, 7318.16.00 gone, 7318.15.00 kept. */
const NEWER_TABLE = JSON.stringify(
  siscomexTable('01/01/2027', 'Resolução Gecex nº 900/2026', [
    entry('15.13', 'Óleos de coco, de amêndoa de palma ou de babaçu'),
    entry('1513.21.11', 'De amêndoa de palma'),
    entry('1513.21.19', 'Outros'),
    entry('7318.15.00', '-- Outros parafusos'),
  ]),
);

const verdict = (key: string, ncm: string, classification: number, batch = 'nightly-abc') =>
  cachedVerdict(key, {
    batch_id: batch,
    classification_id: classificationId(classification),
    result: { status: 'resolved', ncm, ncm_description: `description of ${ncm}`, title: `title ${key}` },
  });

const world = async () => {
  const objects = memoryObjectStore(
    { 'reference/ncm/Tabela_NCM_Vigente_20270101.json': NEWER_TABLE },
    {
      minPartBytes: 64,
    },
  );
  const cache = memoryProductCache();
  await cache.put(verdict('sku:OIL-1', '1513.21.10', 1, 'nightly-001'));
  await cache.put(verdict('sku:BOLT-9', '7318.16.00', 2));
  await cache.put(verdict('sku:BOLT-1', '7318.15.00', 3));
  await cache.put(verdict('h:f00d', '15132110', 4));
  // OIL-1's verdict as Complete also keeps it, under its fingerprint: listed once, by its SKU.
  await cache.put(verdict('h:0011', '1513.21.10', 1, 'nightly-001'));
  return { clock: fixedClock('2027-01-02T09:00:00.000Z'), objects, cache };
};

const csvRows = (text: string) =>
  text
    .replace(/^\uFEFF/, '')
    .trimEnd()
    .split('\r\n')
    .map((line) => line.split(','));

describe('the recheck after the NCM table changes', () => {
  it('lists every verdict whose code is no longer in force, with what the table says of it', async () => {
    // Prepare
    const ports = await world();

    // Act
    const report = await recheckVerdicts(ports);

    // Assess
    expect(report).toMatchObject({ done: true, folder: 'outbox/rechecks/2027-01-01/' });
    const [header, ...rows] = csvRows(ports.objects.text('outbox/rechecks/2027-01-01/recheck.csv')!);
    expect(header).toEqual([...RECHECK_CSV_COLUMNS]);
    const shown = rows.map((row) => Object.fromEntries(header!.map((column, i) => [column, row[i]])));
    expect(shown.map((r) => [r.batch_id, r.sku, r.keyed_by, r.ncm, r.change, r.replaced_by])).toEqual([
      ['nightly-abc', 'BOLT-9', 'sku', '7318.16.00', 'ended', ''],
      ['nightly-001', 'OIL-1', 'sku', '1513.21.10', 'split', '1513.21.11; 1513.21.19'],
      ['nightly-abc', '', 'fingerprint', '15132110', 'split', '1513.21.11; 1513.21.19'],
    ]);
    expect(shown[1]).toMatchObject({
      ncm_description: 'description of 1513.21.10',
      replaced_by_descriptions: '1513.21.11 De amêndoa de palma; 1513.21.19 Outros',
      table_date: '2027-01-01',
      table_act: 'Resolução Gecex nº 900/2026',
      title: 'title sku:OIL-1',
    });
    const summary = RecheckSummary.parse(
      JSON.parse(ports.objects.text('outbox/rechecks/2027-01-01/recheck.json')!),
    );
    expect(summary).toMatchObject({
      table: { source: 'reference/ncm/Tabela_NCM_Vigente_20270101.json', as_of: '2027-01-01', codes: 3 },
      checked: 5,
      not_in_force: 3,
      ended: 1,
      split: 2,
      replaced: 0,
      legs: 1,
    });
  });

  it('goes through a cache too large for one leg in legs, each handing on by the object it drops', async () => {
    // Prepare: a leg with no time left hands on after every page of one verdict.
    const ports = await world();
    const whole = await world();
    await recheckVerdicts(whole);
    const settings = { legMs: 0, pageSize: 1, partBytes: 64 };

    // Act
    const legs: RecheckReport[] = [await recheckVerdicts(ports, null, settings)];
    for (let last = legs[0]!; 'continues' in last; ) {
      expect(recheckAskedBy(objectCreated(last.continues))).toEqual({ continueFrom: last.continues });
      const progress = await readRecheckProgress(ports.objects, last.continues);
      last = await recheckVerdicts(ports, progress, settings);
      legs.push(last);
    }

    // Assess: the same list as in one leg, said to have taken five.
    expect(legs).toHaveLength(5);
    expect(ports.objects.text('outbox/rechecks/2027-01-01/recheck.csv')).toBe(
      whole.objects.text('outbox/rechecks/2027-01-01/recheck.csv'),
    );
    expect(JSON.parse(ports.objects.text('outbox/rechecks/2027-01-01/recheck.json')!)).toMatchObject({
      legs: 5,
      checked: 5,
      not_in_force: 3,
    });
  });

  it('with no table dropped, checks against the carried one, where every code of these verdicts is in force', async () => {
    const ports = await world();
    ports.objects.objects.clear();
    const report = await recheckVerdicts(ports);
    expect(report).toMatchObject({ done: true, summary: { table: { source: 'carried' }, checked: 5 } });
    expect(report.done && report.summary.not_in_force).toBe(2); // 1513.21.10 was split in 2022
  });
});

const objectCreated = (key: string) => ({
  'detail-type': 'Object Created',
  source: 'aws.s3',
  detail: { bucket: { name: 'b' }, object: { key } },
});

describe('what starts a recheck', () => {
  it('a table dropped in reference/ncm/, a leg’s progress, or an invocation without an S3 event', () => {
    expect(recheckAskedBy(objectCreated('reference/ncm/Tabela_NCM_Vigente_20270101.json.gz'))).toEqual({
      start: true,
    });
    expect(recheckAskedBy({})).toEqual({ start: true });
    expect(recheckAskedBy(objectCreated('work/rechecks/2027-01-01/recheck-5.leg-2.json'))).toEqual({
      continueFrom: 'work/rechecks/2027-01-01/recheck-5.leg-2.json',
    });
    expect(recheckAskedBy(objectCreated('reference/ncm/notes.txt'))).toHaveProperty('ignore');
    expect(recheckAskedBy(objectCreated('work/rechecks/2027-01-01/finalize/x.csv.3'))).toHaveProperty(
      'ignore',
    );
  });
});
