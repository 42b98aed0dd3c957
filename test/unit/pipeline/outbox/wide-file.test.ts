/**
 * A catalogue of 20,000 columns, wider than a worksheet (16,384): Prepare keeps it, results.csv
 * keeps every column, and results.xlsx, its partial copy and review.xlsx open in a spreadsheet
 * program with as many input columns as a sheet holds and a line on the summary sheet saying how
 * many were left out.
 */
import ExcelJS from 'exceljs';
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { batchCompletedDetail } from '../../../../shared/aws/eventbridge-batch-events.js';
import { RESULT_COLUMNS, type RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { resultNow } from '../../../../shared/pipeline/core/row-life.js';
import { awaitRows } from '../../../../shared/pipeline/finalize/await-rows.js';
import { finalizeBatch } from '../../../../shared/pipeline/finalize/finalize-batch.js';
import { writePartialResults } from '../../../../shared/pipeline/finalize/partial-results.js';
import { buildSummary } from '../../../../shared/pipeline/finalize/summary-tally.js';
import { BatchSummary } from '../../../../shared/pipeline/outbox/results-files.js';
import { WORKBOOK_INPUT_COLUMNS } from '../../../../shared/pipeline/outbox/results-sheet-xml.js';
import { summaryTime } from '../../../../shared/pipeline/outbox/results-workbook.js';
import {
  openResultsWorkbook,
  ResultsWorkbookProgress,
  resumeResultsWorkbook,
} from '../../../../shared/pipeline/outbox/results-workbook-writer.js';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import { columnLetter } from '../../../../shared/spreadsheet/column-letters.js';
import { memoryPipelinePorts, outboxFile } from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { ACCEPTED_COUNTRIES } from '../../spreadsheet/fixtures.js';

const FILE_KEY = 'inbox/largo/produtos.csv';
const COLUMNS = 20_000;
const LEFT_OUT = COLUMNS - WORKBOOK_INPUT_COLUMNS;
const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAf1Zsecret-task-token-value==';
const PENDING = 'cls_H3N8P2QVZ6MA';

/** The fields the pipeline reads, then attributes `A5` … up to column 20,000. */
const HEADER = [
  'SKU',
  'Descrição',
  'País',
  'Operação',
  ...Array.from({ length: COLUMNS - 4 }, (_, i) => `A${i + 5}`),
];
const DESCRIPTIONS = [
  'Rolamento de esferas de aço, diâmetro 22 mm',
  'Válvula de esfera de latão para gás, 1/2 polegada',
  'Café',
];
/** Row r's cell in column c (1-based): unique, so a cell out of place is seen. */
const cellOf = (r: number, c: number) => `r${r}c${c}`;
const line = (r: number) =>
  [`SKU-${r}`, DESCRIPTIONS[r - 1], 'BR', 'import', ...HEADER.slice(4).map((_, i) => cellOf(r, i + 5))].join(
    ';',
  );
const INPUT = [HEADER.join(';'), line(1), line(2), line(3)].join('\r\n');

const world = () => {
  const ports = memoryPipelinePorts({ [FILE_KEY]: INPUT }, ACCEPTED_COUNTRIES);
  const event = objectCreatedEvent('catalogue-bucket', FILE_KEY);
  const batchId = batchSourceFromEvent(event)!.batchId;
  return { ports, clock: ports.clock, event, batchId, bytes: outboxFile(ports.objects, batchId) };
};
type World = ReturnType<typeof world>;

const finishRow = async (w: World, row: number, result: RowResult) => {
  w.ports.batches.placeRow(w.batchId, row, { status: result.status, result });
  await w.ports.batches.markRowDone(w.batchId, row, {
    status: result.status,
    billed_cents: result.status === 'resolved' ? 200 : 0,
    at: w.clock.now().toISOString(),
  });
};

const loadWorkbook = async (bytes: Buffer) => {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return workbook;
};

/** The summary sheet's lines as label → value. */
const summaryLines = (workbook: ExcelJS.Workbook) => {
  const lines = new Map<string, string>();
  workbook.worksheets[1]!.eachRow((row) => {
    lines.set(String(row.getCell(1).value ?? ''), String(row.getCell(2).value ?? ''));
  });
  return lines;
};

/** The results sheet as the reader sees it: its width, the header, and the cells of row 2. */
const resultsSheetOf = (workbook: ExcelJS.Workbook) => {
  const sheet = workbook.worksheets[0]!;
  const header = (sheet.getRow(1).values as unknown[]).slice(1).map(String);
  return { sheet, header };
};

const expectCappedResultsSheet = (workbook: ExcelJS.Workbook) => {
  const { sheet, header } = resultsSheetOf(workbook);
  expect(sheet.actualColumnCount).toBe(16_384);
  expect(header).toHaveLength(16_384);
  // The input's columns up to what a sheet holds beside the results, then the results.
  expect(header.slice(0, 4)).toEqual(['SKU', 'Descrição', 'País', 'Operação']);
  expect(header[WORKBOOK_INPUT_COLUMNS - 1]).toBe(HEADER[WORKBOOK_INPUT_COLUMNS - 1]);
  expect(header[WORKBOOK_INPUT_COLUMNS]).toBe('Linha');
  expect(sheet.getRow(2).getCell(WORKBOOK_INPUT_COLUMNS).value).toBe(cellOf(1, WORKBOOK_INPUT_COLUMNS));
  expect(sheet.getRow(2).getCell(WORKBOOK_INPUT_COLUMNS + 1).value).toBe(1);
  const lines = summaryLines(workbook);
  expect(lines.get('Colunas deixadas de fora')).toBe(
    `As últimas 3.649 colunas do arquivo (depois da coluna ${columnLetter(WORKBOOK_INPUT_COLUMNS - 1)}) ` +
      'não estão nesta pasta de trabalho: uma planilha comporta no máximo 16.384 colunas, contando as dos ' +
      'resultados. O results.csv tem todas as colunas.',
  );
};

describe('a catalogue of 20,000 columns', () => {
  const runOnce = async () => {
    const w = world();
    const prepared = await prepareBatch(w.ports, { event: w.event, execution_id: 'exec-1' });
    const state = { ...w.event, prepare: prepared };
    await awaitRows(w.ports, { batch_id: w.batchId, task_token: TOKEN });
    await finishRow(w, 1, {
      status: 'resolved',
      classification_id: 'cls_7KQ2M9XW4RTB',
      ncm: '8482.10.10',
      cost_usd: '2.00',
    });
    // While row 2 is still being classified, someone asks for partial results.
    await writePartialResults(w.ports, w.batchId);
    const partial = w.bytes('results.partial.xlsx');
    await finishRow(w, 2, {
      status: 'pending_data',
      classification_id: PENDING,
      questions: 'Qual o material? (Latão / Aço)',
      cost_usd: '0.00',
    });
    await w.ports.reviews.put({
      classification_id: PENDING,
      batch_id: w.batchId,
      row: 2,
      sku: 'SKU-2',
      external_reference: null,
      description: DESCRIPTIONS[1]!,
      questions: [{ id: 'q1', text: 'Qual o material?', options: ['Latão', 'Aço'] }],
      provisional_ncm: '84818099',
      provisional_confidence: 52,
      abandons_at: '2026-12-21T12:00:00Z',
      state: 'pending',
      created_at: '2026-11-21T12:01:00.000Z',
    });
    w.clock.advance(10 * 60_000);
    await finalizeBatch(w.ports, state);
    return { w, partial };
  };
  // One batch for every assertion below: each only reads what it left.
  let ran: ReturnType<typeof runOnce> | undefined;
  const run = () => {
    ran ??= runOnce();
    return ran;
  };

  it('keeps the batch item small and says how every column was understood in summary.json', async () => {
    const { w } = await run();
    const batch = (await w.ports.batches.getBatch(w.batchId))!;
    expect(batch.header).toHaveLength(COLUMNS);
    // Only the columns read as fields: the passthrough ones follow from the header.
    expect(batch.columns?.map((use) => use.understood_as)).toEqual([
      'sku',
      'description',
      'country',
      'operation',
    ]);
    // A DynamoDB item holds 400 KB: the record's JSON is a fair upper bound of its size there.
    expect(Buffer.byteLength(JSON.stringify(batch))).toBeLessThan(300 * 1024);

    const summary = BatchSummary.parse(JSON.parse(w.bytes('summary.json').toString('utf8')));
    expect(summary.columns).toHaveLength(COLUMNS);
    expect(summary.columns[1]).toEqual({ column: 'B', header: 'Descrição', understood_as: 'description' });
    expect(summary.columns.at(-1)).toEqual({ column: 'ACOF', header: 'A20000', understood_as: null });
    expect(summary.by_status).toMatchObject({ resolved: 1, pending_data: 1, rejected: 1 });
  });

  it('writes every column of every row to results.csv', async () => {
    const { w } = await run();
    const records = Papa.parse<string[]>(
      w
        .bytes('results.csv')
        .toString('utf8')
        .replace(/^\uFEFF/, ''),
      {
        delimiter: ';',
        newline: '\r\n',
        skipEmptyLines: true,
      },
    ).data;

    expect(records).toHaveLength(4);
    for (const record of records) expect(record).toHaveLength(COLUMNS + RESULT_COLUMNS.length);
    expect(records[0]!.slice(0, COLUMNS)).toEqual(HEADER);
    expect(records[0]![COLUMNS]).toBe('row');
    for (const r of [1, 2, 3]) {
      expect(records[r]![COLUMNS - 1]).toBe(cellOf(r, COLUMNS));
      expect(records[r]![COLUMNS]).toBe(String(r));
    }
    expect(records[3]![COLUMNS + 1]).toBe('rejected');
  });

  it('writes a results.xlsx that opens, with the columns a sheet holds and a line saying how many were left out', async () => {
    const { w } = await run();
    const workbook = await loadWorkbook(w.bytes('results.xlsx'));

    expectCappedResultsSheet(workbook);
    const { sheet } = resultsSheetOf(workbook);
    expect(sheet.actualRowCount).toBe(4);
    expect(sheet.getRow(3).getCell(WORKBOOK_INPUT_COLUMNS + 2).value).toBe('Aguardando respostas');
    expect(LEFT_OUT).toBe(3_649);
  });

  it('writes the partial results.xlsx the same way while the batch runs', async () => {
    const { partial } = await run();
    const workbook = await loadWorkbook(partial);

    expectCappedResultsSheet(workbook);
  });

  it('writes a review.xlsx that opens, with the question of the row waiting for answers', async () => {
    const { w } = await run();
    const workbook = await loadWorkbook(w.bytes('review.xlsx'));
    const sheet = workbook.worksheets[0]!;

    expect(sheet.actualColumnCount).toBeLessThan(30);
    expect(sheet.getRow(2).getCell(1).value).toBe(2);
    expect(sheet.getRow(2).getCell(2).value).toBe('SKU-2');
  });

  it('publishes a Batch Completed event an event bus takes: the columns read as fields, and how many there are', async () => {
    const { w } = await run();
    const [summary] = w.ports.events.published;
    expect(Buffer.byteLength(JSON.stringify(summary))).toBeGreaterThan(256 * 1024);

    const detail = batchCompletedDetail(summary!);

    expect(Buffer.byteLength(detail)).toBeLessThan(256 * 1024);
    expect(JSON.parse(detail)).toMatchObject({
      batch_id: w.batchId,
      columns_total: COLUMNS,
      columns: [
        { column: 'A', understood_as: 'sku' },
        { column: 'B', understood_as: 'description' },
        { column: 'C', understood_as: 'country' },
        { column: 'D', understood_as: 'operation' },
      ],
    });
  });
});

describe('a wide results.xlsx written in legs', () => {
  it('hands on the file’s own width, and reads back as one leg writes it, the note included', async () => {
    const w = world();
    await prepareBatch(w.ports, { event: w.event, execution_id: 'exec-1' });
    const batch = (await w.ports.batches.getBatch(w.batchId))!;
    const rows = (await Promise.all([1, 2, 3].map((row) => w.ports.batches.getRow(w.batchId, row)))).map(
      (row) => ({ row: row!, result: resultNow(row!) }),
    );
    const summary = buildSummary(
      batch,
      rows.map(({ row }) => row),
      w.clock.now(),
    );
    const open = () =>
      openResultsWorkbook({ batch, width: COLUMNS, measured: rows, at: summaryTime(summary) });

    const oneLeg = open();
    const whole = Buffer.concat([...rows.map((row) => oneLeg.add(row)), oneLeg.finish(summary)]);
    const parts: Uint8Array[] = [];
    let writer = open();
    const widths: number[] = [];
    for (const row of rows) {
      parts.push(writer.add(row));
      const paused = writer.pause();
      parts.push(paused.bytes);
      const handed = ResultsWorkbookProgress.parse(JSON.parse(JSON.stringify(paused.progress)));
      widths.push(handed.width);
      writer = resumeResultsWorkbook(batch, handed);
    }
    parts.push(writer.finish(summary));

    expect(widths).toEqual([COLUMNS, COLUMNS, COLUMNS]);
    const inLegs = Buffer.concat(parts);
    const workbook = await loadWorkbook(inLegs);
    expect(workbook.worksheets[0]!.actualColumnCount).toBe(16_384);
    expect(summaryLines(workbook).get('Colunas deixadas de fora')).toMatch(/^As últimas 3\.649 colunas/);
    // Each pause here ends a deflate chunk one leg would not: the same parts, not the same bytes.
    const sheetOf = async (bytes: Buffer) => (await loadWorkbook(bytes)).worksheets[0]!.getRow(4).values;
    expect(await sheetOf(inLegs)).toEqual(await sheetOf(whole));
  });
});

describe('a catalogue whose 20,000 column names are long', () => {
  it('is refused in one line naming the file, the header line and how much its names hold', async () => {
    const w = world();
    const header = [
      'SKU',
      'Descrição',
      'País',
      'Operação',
      ...HEADER.slice(4).map((name) => `Atributo do fornecedor ${name}`),
    ];
    w.ports.objects.set(FILE_KEY, [header.join(';'), line(1)].join('\r\n'));

    const prepared = await prepareBatch(w.ports, { event: w.event, execution_id: 'exec-1' });

    const batch = (await w.ports.batches.getBatch(w.batchId))!;
    expect(prepared.next).toBe('finalize');
    expect(batch.state).toBe('failed');
    expect(JSON.stringify(batch.problems)).toContain(
      "produtos.csv, line 1: the header's 20,000 column names hold 556 KB of text in all; a batch keeps at " +
        'most 300 KB of them. Shorten the names or leave out columns the classification does not need',
    );
    expect(await w.ports.batches.getRow(w.batchId, 1)).toBeNull();
  });
});
