/**
 * The daily SIM sweep over a batch run by the synthesized workflows: verdicts stored while the
 * registry was still verifying their SIM openings are watched, looked up again each day, and once
 * the sandbox's registry confirms them the batch's results move forward: a SIM code, openings to
 * choose (to check under check_below), or none; a run again changes nothing.
 */
import Papa from 'papaparse';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sweepSimOpenings } from '../../shared/pipeline/answers/sweep-sim-openings.js';
import { reuseKeysOf } from '../../shared/pipeline/core/row-life.js';
import { type Harness, startHarness, synthesizedDefinitions } from './harness.js';

beforeAll(async () => {
  await synthesizedDefinitions();
}, 120_000);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

/** Rows 1 to 3 resolve to NCMs whose SIM openings the sandbox's registry is verifying; row 4's are known. */
const CATALOGUE = [
  'sku,description,operation,country',
  'TIL-1,"Filé de tilápia fresco, bandeja 500 g",import,BR',
  'ROT-2,"Rotor de bomba em bronze, pump impeller",import,BR',
  'MAT-3,"Erva mate para chimarrão, pacote 1 kg",export,AR',
  'CAF-4,"Café torrado em grãos, embalagem de 1 kg",import,BR',
].join('\n');

/** The same catalogue re-sent with a second row of the rotor and of the tilapia (rows 5 and 6). */
const CATALOGUE_AGAIN = [
  CATALOGUE,
  'ROT-2,"Rotor de bomba em bronze, pump impeller",import,BR',
  'TIL-1,"Filé de tilápia fresco, bandeja 500 g",import,BR',
].join('\n');

const DAY_SECONDS = 24 * 60 * 60;

const outboxCsv = (h: Harness, batchId: string, name: string): Record<string, string>[] => {
  const text = h.objects.text(`outbox/${batchId}/${name}`);
  if (text === undefined) throw new Error(`no outbox/${batchId}/${name}`);
  return Papa.parse<Record<string, string>>(text.replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
};

const sweep = (h: Harness) =>
  sweepSimOpenings(h.portsOf('sweep-reviews'), { until: Date.now() + 60_000, parallel: 4 });

describe('the daily SIM sweep', () => {
  it('moves a batch forward once the registry confirms the SIM openings it was verifying', async () => {
    harness = await startHarness();
    const h = harness;
    const output = await h.runBatch(
      h.drop('sims', 'products.csv', CATALOGUE, { 'batch.json': JSON.stringify({ check_below: 10 }) }),
    );
    const batchId = (output.prepare as { batch_id: string }).batch_id;
    const before = outboxCsv(h, batchId, 'results.csv');
    const resultsBefore = h.objects.text(`outbox/${batchId}/results.csv`);
    expect(before.map((row) => [row.status, row.sim_code])).toEqual([
      ['resolved', ''],
      ['resolved', ''],
      ['resolved', ''],
      ['resolved', expect.any(String)],
    ]);
    expect(before[0]?.detail).toContain('SIM openings not yet confirmed by the official registry');
    expect((await h.simWatches.listOpen()).map((watch) => [watch.row, watch.ncm])).toEqual([
      [1, '03043100'],
      [2, '84139190'],
      [3, '09030090'],
    ]);

    // Act: the first day the registry is still verifying; that night the same products are sent
    // again and reuse the verdicts; a day later the registry has confirmed
    const firstDay = await sweep(h);
    const again = await h.runBatch(
      h.drop('sims-2', 'products.csv', CATALOGUE_AGAIN, {
        'batch.json': JSON.stringify({ check_below: 10 }),
      }),
    );
    const reusedId = (again.prepare as { batch_id: string }).batch_id;
    const watched = await h.simWatches.listOpen();
    h.sandbox.advanceClock(DAY_SECONDS);
    const nextDay = await sweep(h);

    // Assess: nothing moved the first day
    expect(firstDay).toMatchObject({ open: 3, asked: 3, waiting: 3, confirmed: 0, batches: [] });
    // the reusing rows are watched too, in their own batch: one watch per product, on its first row
    expect(outboxCsv(h, reusedId, 'results.csv').map((row) => row.status)).toEqual(Array(6).fill('reused'));
    expect(
      watched
        .filter((watch) => watch.batch_id === reusedId)
        .map((watch) => [watch.row, watch.followers ?? 0]),
    ).toEqual([
      [1, 1],
      [2, 1],
      [3, 0],
    ]);
    // the next day every row of both batches moved, asking once per NCM, and each batch has its first revision
    expect(nextDay).toMatchObject({ open: 6, asked: 3, waiting: 0, confirmed: 6, left: 0 });
    expect(nextDay.batches).toEqual(
      [batchId, reusedId].sort().map((id) => expect.objectContaining({ batch_id: id, revision: 1 })),
    );
    const reused = outboxCsv(h, reusedId, 'results.csv');
    expect(reused.map((row) => [row.status, row.sim_code, row.check])).toEqual([
      ['reused', '0304.31.00.00', ''],
      ['reused', '', 'to_check'],
      ['reused', '', ''],
      // the coffee's own SIM openings wait for a choice: marked at Prepare, not by the sweep
      ['reused', expect.any(String), 'to_check'],
      // the second rows of the rotor and the tilapia moved with their products' first rows
      ['reused', '', 'to_check'],
      ['reused', '0304.31.00.00', ''],
    ]);
    expect(reused[4]?.detail).toContain('SIM opening to be chosen among 8413.91.90.10, 8413.91.90.90');
    expect(reused[2]?.detail).toContain('the official registry confirmed there is no SIM opening');
    // one check item for the rotor, counting its second row: one decision settles both
    expect(await h.checks.get(reusedId, 2)).toMatchObject({
      reasons: ['sim_pending_choice'],
      state: 'to_check',
      followers: 1,
      followers_reuse: true,
    });
    expect(await h.checks.get(reusedId, 5)).toBeNull();
    expect(h.objects.text(`outbox/${batchId}/results.rev1.csv`)).toBe(resultsBefore);
    const after = outboxCsv(h, batchId, 'results.csv');
    expect(after[0]).toMatchObject({ sim_code: '0304.31.00.00', check: '' });
    expect(after[0]?.detail).not.toContain('not yet confirmed');
    expect(after[1]).toMatchObject({ sim_code: '', check: 'to_check' });
    expect(after[1]?.detail).toContain('SIM opening to be chosen among 8413.91.90.10, 8413.91.90.90');
    expect(after[2]?.detail).toContain(
      'the official registry confirmed there is no SIM opening under this NCM',
    );
    expect(after[3]).toEqual(before[3]);
    // the row with openings to choose waits for a person, with the openings as the registry describes them
    expect(await h.checks.get(batchId, 2)).toMatchObject({
      reasons: ['sim_pending_choice'],
      sim_options: [
        { code: '8413919010', description: 'Rotores (impulsores) de bombas' },
        { code: '8413919090', description: 'Outras partes de bombas' },
      ],
      state: 'to_check',
    });
    // its candidates described (the others than the service's chosen one from the NCM table in force)
    const candidates = (await h.checks.get(batchId, 2))?.candidates ?? [];
    expect(candidates.map((candidate) => [candidate.ncm, candidate.chosen])).toEqual([['84139190', true]]);
    expect(candidates.filter((candidate) => candidate.description === '')).toEqual([]);
    // one sim_confirmed event per row, by the pipeline
    const events = h.audit.all(batchId).filter((event) => event.event === 'sim_confirmed');
    expect(events.map((event) => [event.row, event.who, event.detail])).toEqual([
      [1, '', 'SIM 0304.31.00.00'],
      [2, '', 'SIM to choose: 8413.91.90.10, 8413.91.90.90'],
      [3, '', 'no SIM opening'],
    ]);
    // the product cache's verdict is this classification's, confirmed: a later batch reuses it so
    const rows = await h.rowsOf(batchId);
    const cached = await h.cache.getMany(
      reuseKeysOf(rows[0] as { product_key: string; fingerprint: string }),
    );
    expect([...cached.values()].map((verdict) => verdict.result.sim_code)).toContain('0304.31.00.00');
    expect(await h.simWatches.listOpen()).toEqual([]);

    // Act again: the day after, nothing is left to do
    const dayAfter = await sweep(h);

    // Assess
    expect(dayAfter).toMatchObject({ open: 0, asked: 0, confirmed: 0, batches: [] });
    expect(outboxCsv(h, batchId, 'results.csv')).toEqual(after);
    expect(h.objects.text(`outbox/${batchId}/results.rev2.csv`)).toBeUndefined();
  }, 120_000);
});
