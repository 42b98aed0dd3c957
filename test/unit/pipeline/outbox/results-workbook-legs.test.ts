/**
 * results.xlsx written in legs (shared/pipeline/outbox/results-workbook.ts), as Finalize writes it
 * when a batch does not fit one invocation: rows added, a pause whose progress goes through JSON
 * (the workflow's state), a resume in a fresh writer, and so on to the finish. The file is compared
 * with one written in one leg, byte for byte, and read back by ExcelJS's reader and the project's.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ExcelJS from 'exceljs';
import { strFromU8, unzipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import { RESULT_COLUMNS } from '../../../../shared/pipeline/core/result-columns.js';
import { resultNow } from '../../../../shared/pipeline/core/row-life.js';
import { buildSummary } from '../../../../shared/pipeline/finalize/summary-tally.js';
import { resultsInputWidth, type ShownRow } from '../../../../shared/pipeline/outbox/results-files.js';
import { resultsWorkbook, summaryTime } from '../../../../shared/pipeline/outbox/results-workbook.js';
import {
  openResultsWorkbook,
  ResultsWorkbookProgress,
  type ResultsWorkbookWriter,
  ROWS_MEASURED_FOR_WIDTH,
  resumeResultsWorkbook,
} from '../../../../shared/pipeline/outbox/results-workbook-writer.js';
import { WORKBOOK_WORDS } from '../../../../shared/pipeline/outbox/workbook-labels.js';
import { readXlsxRecords } from '../../../../shared/spreadsheet/read-xlsx.js';
import { NOW, ROWS, streamBytes, workbookBatch } from '../../../helpers/workbook-records.js';
import { elementsNamed, partXml, sheetCells } from '../../../helpers/xlsx-xml.js';

const BATCH = workbookBatch();
/** The control character one of the rows carries: a workbook cannot hold it, so it is dropped. */
const BELL = String.fromCharCode(7);
const WORDS = WORKBOOK_WORDS.pt;

/** Row `n`, made from one of the eight rows of every status, with a description of its own. */
const generatedRow = (n: number): RowRecord => {
  const template = ROWS[n % ROWS.length]!;
  const cells = [...template.cells];
  cells[0] = `SKU-${n}`;
  cells[1] = `${cells[1]} n.º ${n}${n % 97 === 0 ? ' & <mais> _x0041_' : ''}`;
  return { ...template, row: n, cells };
};

const generatedRows = (count: number): ShownRow[] =>
  Array.from({ length: count }, (_, i) => {
    const row = generatedRow(i + 1);
    return { row, result: resultNow(row) };
  });

const summaryOf = (shown: readonly ShownRow[]) =>
  buildSummary(
    BATCH,
    shown.map(({ row }) => row),
    NOW,
  );

const opened = (shown: readonly ShownRow[]): ResultsWorkbookWriter =>
  openResultsWorkbook({
    batch: BATCH,
    width: resultsInputWidth(
      BATCH,
      shown.map(({ row }) => row),
    ),
    measured: shown.slice(0, ROWS_MEASURED_FOR_WIDTH),
    at: summaryTime(summaryOf(shown)),
  });

/** Every progress handed on, as JSON: what the workflow's state carries. */
type Legs = { bytes: Buffer; handed: string[] };

/** The progresses handed on while the results sheet was written, and while the rows were read again. */
const byReading = (handed: readonly string[]) => ({
  results: handed.filter((json) => !ResultsWorkbookProgress.parse(JSON.parse(json)).listing),
  again: handed.filter((json) => ResultsWorkbookProgress.parse(JSON.parse(json)).listing),
});

/**
 * The workbook in legs: a leg ends once `shouldPause(rowsAddedInLeg, writer)` says so, its
 * progress passed through JSON to a writer resumed from it.
 */
const writtenInLegs = (
  shown: readonly ShownRow[],
  shouldPause: (added: number, writer: ResultsWorkbookWriter) => boolean,
): Legs => {
  const parts: Uint8Array[] = [];
  const handed: string[] = [];
  let writer = opened(shown);
  let added = 0;
  const readThrough = () => {
    for (const row of shown) {
      parts.push(writer.add(row));
      added += 1;
      if (!shouldPause(added, writer)) continue;
      const paused = writer.pause();
      parts.push(paused.bytes);
      handed.push(JSON.stringify(paused.progress));
      writer = resumeResultsWorkbook(BATCH, ResultsWorkbookProgress.parse(JSON.parse(handed.at(-1)!)));
      added = 0;
    }
  };
  readThrough();
  // The rows read again for the divergence sheet, as the results pass does.
  if (writer.divergent > 0) {
    parts.push(writer.listDivergences());
    readThrough();
  }
  parts.push(writer.finish(summaryOf(shown)));
  return { bytes: Buffer.concat(parts), handed };
};

const work = mkdtempSync(join(tmpdir(), 'results-workbook-legs-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** `unzip -t` finds every entry sound (skipped where the machine has no unzip). */
const passesUnzipTest = (bytes: Uint8Array): boolean => {
  try {
    execFileSync('unzip', ['-v'], { stdio: 'ignore' });
  } catch {
    return true;
  }
  const path = join(work, `legs-${Math.random().toString(36).slice(2)}.xlsx`);
  writeFileSync(path, bytes);
  return execFileSync('unzip', ['-t', path], { encoding: 'utf8' }).includes('No errors detected');
};

describe('results.xlsx written in three legs', async () => {
  const shown = generatedRows(3_000);
  const once = writtenInLegs(shown, () => false);
  // Each leg pauses once it has added a thousand rows and the last add sent its chunk out.
  const inLegs = writtenInLegs(shown, (added, writer) => added >= 1_000 && writer.betweenChunks);
  const width = resultsInputWidth(
    BATCH,
    shown.map(({ row }) => row),
  );
  const at = (column: (typeof RESULT_COLUMNS)[number]) => width + RESULT_COLUMNS.indexOf(column);

  it('hands on between its legs a small progress, and is byte for byte the file one leg writes', () => {
    const { results, again } = byReading(inLegs.handed);
    expect(results).toHaveLength(2);
    // The second reading hands on too: after its first 1,000 rows read, and its 2,000th.
    expect(again).toHaveLength(2);
    for (const handed of inLegs.handed) expect(handed.length).toBeLessThan(512);
    expect(inLegs.bytes.equals(once.bytes)).toBe(true);
    expect(passesUnzipTest(inLegs.bytes)).toBe(true);
  });

  it('is the same bytes as resultsWorkbook streams for the same rows', async () => {
    async function* rows() {
      yield* shown;
    }
    const streamed = await streamBytes(
      resultsWorkbook({ batch: BATCH, summary: summaryOf(shown), width, shownRows: rows }),
    );
    expect(Buffer.from(streamed).equals(once.bytes)).toBe(true);
  });

  it('reads back with ExcelJS to every row, its text, numbers, formats and links', async () => {
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(inLegs.bytes as unknown as ExcelJS.Buffer);
    expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([
      WORDS.sheets.results,
      WORDS.sheets.summary,
      'Divergências de NCM',
    ]);
    const sheet = workbook.worksheets[0]!;
    expect(sheet.rowCount).toBe(shown.length + 1);
    expect(sheet.getRow(1).getCell(at('status') + 1).value).toBe(WORDS.results.status);
    for (const n of [1, 2, 999, 1_000, 1_001, 2_000, 2_001, 2_500, 3_000]) {
      const row = sheet.getRow(n + 1);
      const { row: record, result } = shown[n - 1]!;
      expect(row.getCell(1).value, `row ${n}`).toBe(`SKU-${n}`);
      expect(row.getCell(at('row') + 1).value).toBe(n);
      expect(row.getCell(at('status') + 1).value).toBe(WORDS.status[result.status]);
      const cost = row.getCell(at('cost_usd') + 1);
      expect(cost.value).toBe(result.cost_usd === undefined ? null : Number(result.cost_usd));
      expect(cost.numFmt).toBe('"US$" #,##0.00');
      if (result.verdict_pdf)
        expect(row.getCell(at('verdict_pdf') + 1).value).toEqual({
          formula: `HYPERLINK("${result.verdict_pdf}","${result.verdict_pdf}")`,
          result: result.verdict_pdf,
        });
      expect(record.row).toBe(n);
    }
    expect(sheet.getRow(1001).getCell(at('confidence') + 1).numFmt).toBe('0%');
    expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  it('reads back with the project’s reader to the same cells as the rows, the last row’s filter included', async () => {
    const { records } = await readXlsxRecords(inLegs.bytes, 'results.xlsx');
    expect(records).toHaveLength(shown.length + 1);
    records.slice(1).forEach((record, i) => {
      const { row } = shown[i]!;
      expect(record.cells.slice(0, row.cells.length)).toEqual(
        row.cells.map((cell) => cell.replaceAll(BELL, '')),
      );
      expect(record.cells[at('row')]).toBe(String(row.row));
    });
    const files = unzipSync(inLegs.bytes, { filter: (file) => file.name === 'xl/workbook.xml' });
    const filter = elementsNamed(partXml(files, 'xl/workbook.xml'), 'definedName')[0]!;
    expect(filter.attributes.name).toBe('_xlnm._FilterDatabase');
    expect(filter.inner).toBe(`'Resultados'!$A$1:$AN$${shown.length + 1}`);
  });
});

describe('results.xlsx paused anywhere', () => {
  const shown = generatedRows(2_600);
  const once = writtenInLegs(shown, () => false);
  // Pauses mid-chunk: after the first row, then every 1,234 rows.
  let leg = 0;
  const inLegs = writtenInLegs(shown, (added) => {
    const pause = added >= (leg === 0 ? 1 : 1_234);
    if (pause) leg += 1;
    return pause;
  });

  it('is as valid a file, with every part the same once unzipped', () => {
    expect(byReading(inLegs.handed).results).toHaveLength(3);
    expect(passesUnzipTest(inLegs.bytes)).toBe(true);
    const legs = unzipSync(inLegs.bytes);
    const single = unzipSync(once.bytes);
    expect(Object.keys(legs)).toEqual(Object.keys(single));
    for (const [name, content] of Object.entries(single))
      expect(Buffer.from(legs[name]!).equals(Buffer.from(content)), name).toBe(true);
    const cells = sheetCells(legs, WORDS.sheets.results);
    expect(cells.get('A2601')?.text).toBe('SKU-2600');
    expect(strFromU8(legs['xl/worksheets/sheet1.xml']!)).toContain('<autoFilter ref="A1:AN2601"/>');
  });

  it('refuses to go on once finished, and to resume a progress with no results sheet open', () => {
    const writer = opened(shown.slice(0, 3));
    const paused = writer.pause();
    writer.finish(summaryOf(shown.slice(0, 3)));
    expect(() => writer.add(shown[3]!)).toThrow(/already finished/);
    expect(() =>
      resumeResultsWorkbook(BATCH, { ...paused.progress, zip: { ...paused.progress.zip, open: null } }),
    ).toThrow(/no results sheet open/);
  });
});

describe('results.xlsx of 100,000 rows in legs', () => {
  it('keeps its progress a few hundred bytes however many rows are written', () => {
    const shown = generatedRows(100_000);
    const started = performance.now();
    const { bytes, handed } = writtenInLegs(shown, (added) => added === 25_000);
    const seconds = (performance.now() - started) / 1000;
    // The last leg pauses after the last row: the next only finishes.
    expect(byReading(handed).results).toHaveLength(4);
    const lengths = byReading(handed).results.map((json) => json.length);
    for (const length of lengths) expect(length).toBeLessThan(512);
    // The same size after 25,000 rows as after 75,000, bar a few digits.
    expect(Math.max(...lengths) - Math.min(...lengths)).toBeLessThan(16);
    expect(
      byReading(handed).results.map((json) => ResultsWorkbookProgress.parse(JSON.parse(json)).rows),
    ).toEqual([25_000, 50_000, 75_000, 100_000]);
    // Everything but the large sheet, unzipped: its filter reaches the last row.
    const files = unzipSync(bytes, { filter: (file) => file.name !== 'xl/worksheets/sheet1.xml' });
    expect(partXml(files, 'xl/workbook.xml')).toContain(`'Resultados'!$A$1:$AN$100001`);
    expect(bytes.length).toBeLessThan(20 * 1024 * 1024);
    expect(seconds).toBeLessThan(20);
  }, 60_000);
});
