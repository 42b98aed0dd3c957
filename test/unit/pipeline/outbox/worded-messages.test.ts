/**
 * A Portuguese catalogue's batch says what it says in Portuguese: results.xlsx's detail column
 * and its summary sheet's warnings, read back from the workbook, and summary.json's sentences;
 * results.csv keeps its English detail, and summary.json each message's code and parameters.
 */
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { awaitRows } from '../../../../shared/pipeline/finalize/await-rows.js';
import { finalizeBatch } from '../../../../shared/pipeline/finalize/finalize-batch.js';
import { BatchSummary } from '../../../../shared/pipeline/outbox/results-files.js';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import { memoryPipelinePorts, outboxFile } from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { ACCEPTED_COUNTRIES } from '../../spreadsheet/fixtures.js';

const FILE_KEY = 'inbox/pecas/produtos.csv';
const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAf1Zsecret-task-token-value==';

/**
 * Row 1 declares an NCM without its leading zero, row 2's description is too short, row 3's vague;
 * row 4 is row 1's product again, classified once with it.
 */
const INPUT = [
  'SKU;Descrição;País;Operação;NCM atual',
  'A-1;Rolamento de esferas de aço, diâmetro 22 mm;BR;importação;9012100',
  'A-2;Café;BR;importação;',
  'A-3;Peças diversas de reposição para manutenção;BR;importação;',
  'A-4;Rolamento de esferas de aço, diâmetro 22 mm;BR;importação;',
].join('\r\n');

const world = () => {
  const ports = memoryPipelinePorts({ [FILE_KEY]: INPUT }, ACCEPTED_COUNTRIES);
  const event = objectCreatedEvent('catalogue-bucket', FILE_KEY);
  const batchId = batchSourceFromEvent(event)!.batchId;
  return { ports, clock: ports.clock, event, batchId, bytes: outboxFile(ports.objects, batchId) };
};

const RESOLVED: RowResult = {
  status: 'resolved',
  classification_id: 'cls_7KQ2M9XW4RTB',
  ncm: '8482.10.10',
  cost_usd: '2.00',
};

const runBatch = async () => {
  const w = world();
  const prepared = await prepareBatch(w.ports, { event: w.event, execution_id: 'exec-1' });
  await awaitRows(w.ports, { batch_id: w.batchId, task_token: TOKEN });
  for (const row of [1, 3]) {
    w.ports.batches.placeRow(w.batchId, row, { status: 'resolved', result: RESOLVED });
    await w.ports.batches.markRowDone(w.batchId, row, {
      status: 'resolved',
      billed_cents: 200,
      at: w.clock.now().toISOString(),
    });
  }
  w.clock.advance(60_000);
  await finalizeBatch(w.ports, { ...w.event, prepare: prepared });
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(w.bytes('results.xlsx') as unknown as ArrayBuffer);
  return { w, workbook };
};

/** A sheet's rows as text, header first. */
const rowsOf = (sheet: ExcelJS.Worksheet): string[][] => {
  const rows: string[][] = [];
  sheet.eachRow((row) => {
    rows.push(
      (row.values as unknown[])
        .slice(1)
        .map((value) => (value === null || value === undefined ? '' : String(value))),
    );
  });
  return rows;
};

describe('a Portuguese catalogue', () => {
  let ran: ReturnType<typeof runBatch> | undefined;
  const run = () => {
    ran ??= runBatch();
    return ran;
  };

  it("shows a rejected row's detail in Portuguese in results.xlsx, and in English in results.csv", async () => {
    const { w, workbook } = await run();
    const [header, ...rows] = rowsOf(workbook.worksheets[0]!);
    const detail = header!.indexOf('Detalhe');
    const reason = header!.indexOf('Motivo');
    expect(detail).toBeGreaterThan(0);
    const rejected = rows.find((row) => row[0] === 'A-2')!;
    expect(rejected[reason]).toBe('description_too_short');
    expect(rejected[detail]).toBe(
      'A coluna "Descrição" tem 4 caracteres; uma descrição precisa de pelo menos 10.',
    );

    // A row of the same product says so in Portuguese too.
    expect(rows.find((row) => row[0] === 'A-4')![detail]).toBe(
      'Mesmo produto da linha 1 (mesma descrição e ficha técnica): classificado uma vez, lá; sem cobrança nesta linha.',
    );

    const csv = Papa.parse<Record<string, string>>(
      w
        .bytes('results.csv')
        .toString('utf8')
        .replace(/^\uFEFF/, ''),
      {
        header: true,
        skipEmptyLines: true,
      },
    ).data;
    expect(csv.find((row) => row.SKU === 'A-2')?.detail).toBe(
      'Column "Descrição" has 4 characters; a description needs at least 10.',
    );
  });

  it("lists the warnings on results.xlsx's summary sheet in Portuguese", async () => {
    const { workbook } = await run();
    const lines = rowsOf(workbook.worksheets[1]!);
    const first = lines.findIndex(([label]) => label === 'Avisos');
    expect(first).toBeGreaterThan(0);
    const warnings = lines.slice(first, first + 2).map(([, value]) => value);
    expect(warnings).toEqual([
      expect.stringMatching(
        /^A linha 1 declara uma NCM de 7 dígitos \(9012100\) na coluna "NCM atual" \(coluna E\)/,
      ),
      expect.stringMatching(
        /^Coluna "Descrição", linha 3: a descrição nomeia um grupo de coisas, não um produto/,
      ),
    ]);
    // What was saved, by where it came from: row 4 shared row 1's classification.
    expect(lines.find(([label]) => label === 'De onde veio a economia')?.[1]).toMatch(
      /^US\$\s2,00 classificando uma só vez as linhas idênticas$/,
    );
    // No English sentence on the sheet.
    expect(lines.map(([, value]) => value).join(' ')).not.toMatch(/\b(the|column|rows?)\b/i);
  });

  it('gives summary.json each message with its code and parameters and its sentence in Portuguese', async () => {
    const { w } = await run();
    const summary = BatchSummary.parse(JSON.parse(w.bytes('summary.json').toString('utf8')));
    expect(summary.warnings.map((warning) => warning.code)).toEqual([
      'leading_zero_lost',
      'vague_descriptions',
    ]);
    expect(summary.warnings[0]).toMatchObject({
      params: { header: 'NCM atual', letter: 'E', count: 1, first_row: 1, example: '9012100' },
      text: expect.stringMatching(/^A linha 1 declara uma NCM de 7 dígitos/),
    });
    expect(summary.warnings[1]?.params).toMatchObject({ header: 'Descrição', rows: [3], total: 1 });
  });
});
