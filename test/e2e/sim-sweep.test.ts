/**
 * End to end: SIM openings still being verified, through the local runtime against the sandbox.
 * A batch resolves verdicts whose SIM openings the sandbox's registry is verifying; a later batch
 * reuses them; the daily sweep (invoked as an operator would run the schedule now) finds them still
 * verifying, then, a day later on the service's clock, confirmed: each batch's results move forward
 * with the SIM code, the openings to choose (to check under check_below), or none, and its audit
 * says so; the next day's sweep does nothing.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, writeCsv } from './helpers.js';

const temp = makeTempDir('sim-sweep');
let pipeline: LocalPipeline | undefined;

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

/**
 * Rows 1 to 3 resolve to NCMs whose SIM openings the sandbox's registry is still verifying; row 2
 * under check_below too, so it already waits for a person when its openings are confirmed.
 */
const CATALOGUE = [
  ['TIL-1', 'Filé de tilápia fresco, bandeja 500 g [sandbox:confidence=high]', 'import', 'BR'],
  ['ROT-2', 'Rotor de bomba em bronze, pump impeller [sandbox:confidence=low]', 'import', 'BR'],
  ['MAT-3', 'Erva mate para chimarrão, pacote 1 kg [sandbox:confidence=high]', 'export', 'AR'],
];

const DAY_SECONDS = 24 * 60 * 60;

const csvRecords = (path: string): Record<string, string>[] =>
  Papa.parse<Record<string, string>>(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;

describe('the daily SIM sweep through the local runtime', () => {
  it('moves each batch forward once the registry confirms, and does nothing the day after', async () => {
    pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-sim-sweep' },
    });
    const p = pipeline;
    const file = writeCsv(
      join(temp.dir, 'products.csv'),
      ['sku', 'description', 'operation', 'country'],
      CATALOGUE,
    );
    const optionsFile = join(temp.dir, 'batch.json');
    writeFileSync(optionsFile, JSON.stringify({ check_below: 50 }));
    const { batchId } = await p.submit({ file, optionsFile });
    expect((await p.waitForBatch(batchId)).summary.by_status).toMatchObject({ resolved: 3 });

    // Act: the first day the registry is still verifying; that night the same products come
    // again and reuse the verdicts; a day later on the service's clock the registry has confirmed
    const firstDay = (await p.invoke('sweep-reviews', { source: 'schedule' })) as { sims: unknown };
    const { batchId: reusedId } = await p.submit({ file, optionsFile, batchName: 'products-again' });
    expect((await p.waitForBatch(reusedId)).summary.by_status).toMatchObject({ reused: 3 });
    p.sandbox?.advanceClock(DAY_SECONDS);
    const nextDay = (await p.invoke('sweep-reviews', { source: 'schedule' })) as { sims: unknown };
    const dayAfter = (await p.invoke('sweep-reviews', { source: 'schedule' })) as { sims: unknown };

    // Assess: nothing moved the first day; the next, all six rows, asking once per NCM
    expect(firstDay.sims).toMatchObject({ open: 3, asked: 3, waiting: 3, confirmed: 0, batches: [] });
    expect(nextDay.sims).toMatchObject({ open: 6, asked: 3, waiting: 0, confirmed: 6 });
    expect(dayAfter.sims).toMatchObject({ open: 0, asked: 0, confirmed: 0, batches: [] });
    for (const id of [batchId, reusedId]) {
      const out = join(temp.dir, id);
      const keys = await p.copyOutbox(id, out);
      expect(keys.map((key) => key.replace(/^.*[\\/]/, ''))).toEqual(
        expect.arrayContaining(['results.csv', 'results.rev1.csv', 'summary.rev1.json']),
      );
      expect(keys.some((key) => key.endsWith('results.rev2.csv'))).toBe(false);
      const results = csvRecords(join(out, 'results.csv'));
      expect(results.map((row) => [row.sku, row.sim_code, row.check])).toEqual([
        ['TIL-1', '0304.31.00.00', ''],
        ['ROT-2', '', 'to_check'],
        ['MAT-3', '', ''],
      ]);
      expect(results[1]?.detail).toContain('SIM opening to be chosen among 8413.91.90.10, 8413.91.90.90');
      expect(results[2]?.detail).toContain('the official registry confirmed there is no SIM opening');
      const before = csvRecords(join(out, 'results.rev1.csv'));
      expect(before.map((row) => [row.sim_code, row.check])).toEqual([
        ['', ''],
        ['', 'to_check'],
        ['', ''],
      ]);
      // it waited for its low confidence already: its check item now offers the openings too
      const toCheck = csvRecords(join(out, 'to-check.csv'));
      expect(toCheck.map((line) => line.sku)).toEqual(['ROT-2']);
      expect(toCheck[0]?.reasons).toMatch(/low_confidence.*sim_pending_choice/);
      expect(toCheck[0]?.sim_options).toContain('8413.91.90.10 Rotores (impulsores) de bombas');
      // In the order they happened: the sweep moves a batch's rows a few at once, so by row here.
      const audit = csvRecords(join(out, 'audit.csv'))
        .filter((event) => event.event === 'sim_confirmed')
        .sort((a, b) => Number(a.row) - Number(b.row));
      expect(audit.map((event) => [event.row, event.detail])).toEqual([
        ['1', 'SIM 0304.31.00.00'],
        ['2', 'SIM to choose: 8413.91.90.10, 8413.91.90.90'],
        ['3', 'no SIM opening'],
      ]);
    }
    // GET /sim-openings is free: nothing more was billed than the first batch's three verdicts
    expect(p.sandbox?.stats().billed_usd).toBe(6);
  }, 240_000);
});
