/**
 * End to end: rows sent again, through the local runtime against the sandbox. The sample ends with
 * row 20 (VAL-ESF: no description, a scanned sheet) `failed` for `unreadable_pdf` and row 30
 * (PAS-TRA: operation "Devolução") `rejected`. The sample's `resend/resend.csv` sends row 20 again
 * with the supplier's text sheet and row 30 with its operation corrected, as a round of the same
 * batch: both resolve, each billed once (USD 2.00 apiece, nothing more), results.csv is revised with
 * the new outcomes and the corrected cell, and audit.csv names the person who sent them again. The
 * same file dropped again sends nothing and bills nothing.
 */
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../sample-data/', import.meta.url));
const RESEND = join(SAMPLE, 'resend');
const temp = makeTempDir('resend');
const BY = 'bia.fiscal';

let pipeline: LocalPipeline;

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-resend' },
  });
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

type Row = Record<string, string>;
const records = (text: string): Row[] =>
  Papa.parse<Row>(text.replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true }).data;
const outboxRecords = async (batchId: string, name: string): Promise<Row[]> =>
  records(Buffer.from((await pipeline.outboxFile(batchId, name)) ?? '').toString('utf8'));
const byRow = (rows: readonly Row[]) => new Map(rows.map((row) => [Number(row.row), row]));
const billed = () => pipeline.sandbox?.stats().billed_usd ?? Number.NaN;

describe('rows sent again as a round of the same batch', () => {
  let batchId = '';

  it('sends the failed row with a new sheet and the rejected row corrected; each resolves, billed once', async () => {
    ({ batchId } = await pipeline.submit({
      file: join(SAMPLE, 'products.csv'),
      optionsFile: join(SAMPLE, 'batch.json'),
      sheetsDir: SAMPLE,
    }));
    expect((await pipeline.waitForBatch(batchId)).state).toBe('completed');
    const first = byRow(await outboxRecords(batchId, 'results.csv'));
    expect(first.get(20)).toMatchObject({ status: 'failed', reason: 'unreadable_pdf', cost_usd: '0.00' });
    expect(first.get(30)).toMatchObject({ status: 'rejected', reason: 'operation_invalid' });
    const before = billed();

    const { roundId, missingSheets } = await pipeline.submitAnswers({
      file: join(RESEND, 'resend.csv'),
      batchId,
      answeredBy: BY,
      sheets: ['valvula-esfera.pdf'],
      sheetsDir: RESEND,
    });
    expect(missingSheets).toEqual([]);
    expect((await pipeline.waitForBatch(roundId)).state).toBe('completed');

    const report = await outboxRecords(batchId, 'answers-report.csv');
    expect(report.map((line) => [line.row, line.outcome])).toEqual([
      ['20', 'resent'],
      ['30', 'resent'],
    ]);
    const after = byRow(await outboxRecords(batchId, 'results.csv'));
    expect(after.size).toBe(first.size);
    expect(after.get(20)).toMatchObject({ status: 'resolved', ncm: '8481.80.95', cost_usd: '2.00' });
    // The corrected cell is the row's now: results.csv shows what was sent.
    expect(after.get(30)).toMatchObject({ status: 'resolved', cost_usd: '2.00', Operação: 'export' });
    expect(after.get(20)?.classification_id).not.toBe(first.get(20)?.classification_id);
    // Every other row as it was.
    for (const [row, line] of first) {
      if (row === 20 || row === 30) continue;
      expect([row, after.get(row)?.status]).toEqual([row, line.status]);
    }
    expect(billed() - before).toBe(4);
    // The batch's first results are kept beside the new ones.
    expect(await pipeline.outboxFile(batchId, 'results.rev1.csv')).not.toBeNull();

    const audit = (await outboxRecords(batchId, 'audit.csv')).filter((line) =>
      ['20', '30'].includes(line.row ?? ''),
    );
    const resent = audit.filter((line) => line.event === 'resent');
    expect(resent.map((line) => [line.row, line.who, line.known_by])).toEqual([
      ['20', BY, 'cli'],
      ['30', BY, 'cli'],
    ]);
    expect(resent.find((line) => line.row === '20')?.detail).toContain('sheet valvula-esfera.pdf');
    expect(resent.find((line) => line.row === '30')?.detail).toContain('operation export');
    // The new classification is submitted in the name of who sent it again.
    const submitted = audit.filter((line) => line.event === 'submitted' && line.who === BY);
    expect(submitted.map((line) => line.row).sort()).toEqual(['20', '30']);
  }, 360_000);

  it('sends nothing and bills nothing when the same file is dropped again', async () => {
    const before = billed();
    const { roundId } = await pipeline.submitAnswers({
      file: join(RESEND, 'resend.csv'),
      batchId,
      answeredBy: BY,
      sheets: ['valvula-esfera.pdf'],
      sheetsDir: RESEND,
    });
    expect((await pipeline.waitForBatch(roundId)).state).toBe('completed');
    const report = await outboxRecords(batchId, 'answers-report.csv');
    expect(report.map((line) => [line.row, line.outcome])).toEqual([
      ['20', 'not_resendable'],
      ['30', 'not_resendable'],
    ]);
    expect(report[0]?.detail).toContain('only a rejected or failed row is sent again');
    expect(billed()).toBe(before);
  }, 180_000);
});
