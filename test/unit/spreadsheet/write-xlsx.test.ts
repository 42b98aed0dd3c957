/**
 * The streamed workbook writer (shared/spreadsheet/write-xlsx.ts): a workbook whose sheets' XML is
 * made as the stream is read, never ahead of its reader, read back by fflate and by the project's
 * own XLSX reader; the same sheets at the same moment give the same bytes; each style asked for is
 * listed once in styles.xml; and a failure while laying out or writing fails the stream.
 */
import { unzipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { readXlsxRecords } from '../../../shared/spreadsheet/read-xlsx.js';
import { type StreamedSheet, streamWorkbook } from '../../../shared/spreadsheet/write-xlsx.js';
import {
  HEADER_CELL_STYLE,
  inlineStringCell,
  rowXml,
  sheetEnd,
  sheetHead,
  sheetTail,
} from '../../../shared/spreadsheet/xlsx-parts.js';
import { streamBytes } from '../../helpers/workbook-records.js';
import { elementsNamed, partXml, sheetCells, workbookSheets } from '../../helpers/xlsx-xml.js';

const AT = new Date('2026-11-21T13:00:00.000Z');

/** A sheet of `rows` rows of text, counting in `made` the rows it has made so far. */
const countedSheet = (name: string, rows: number, made: { rows: number } = { rows: 0 }): StreamedSheet => ({
  name,
  autoFilter: `A1:B${rows + 1}`,
  printTitleRow: true,
  *xml(style) {
    const header = style(HEADER_CELL_STYLE);
    yield sheetHead({ frozenRows: 1, columns: [{ width: 12 }, { width: 40 }] });
    yield rowXml(1, inlineStringCell('A1', 'Linha', header) + inlineStringCell('B1', 'Texto', header));
    for (let line = 2; line <= rows + 1; line += 1) {
      made.rows += 1;
      // Text that varies, so that it does not deflate to nothing.
      const text = `Produto ${line} — ${((line * 7919) % 104_729).toString(36)} aço inox`.repeat(6);
      yield rowXml(line, inlineStringCell(`A${line}`, String(line)) + inlineStringCell(`B${line}`, text));
    }
    yield sheetTail({ autoFilter: `A1:B${rows + 1}`, orientation: 'landscape' });
  },
});

const hiddenSheet: StreamedSheet = {
  name: "Opções d'aqui",
  hidden: true,
  *xml() {
    yield sheetHead({ frozenRows: 0, columns: [] });
    yield rowXml(1, inlineStringCell('A1', 'Rolamento'));
    yield `</sheetData>${sheetEnd('portrait')}`;
  },
};

describe('streamWorkbook', () => {
  it('writes a workbook its readers open: the sheets in order, the hidden one hidden, every row', async () => {
    const bytes = await streamBytes(streamWorkbook(() => [countedSheet('Perguntas', 300), hiddenSheet], AT));
    const files = unzipSync(bytes);
    expect(workbookSheets(files).map(({ name, state }) => [name, state])).toEqual([
      ['Perguntas', 'visible'],
      ["Opções d'aqui", 'hidden'],
    ]);
    const { records } = await readXlsxRecords(bytes, 'workbook.xlsx');
    expect(records).toHaveLength(301);
    expect(records[300]?.cells[0]).toBe('301');
    expect(sheetCells(files, "Opções d'aqui").get('A1')?.text).toBe('Rolamento');
    const names = elementsNamed(partXml(files, 'xl/workbook.xml'), 'definedName');
    expect(names.map(({ attributes, inner }) => [attributes.name, attributes.localSheetId, inner])).toEqual([
      ['_xlnm._FilterDatabase', '0', "'Perguntas'!$A$1:$B$301"],
      ['_xlnm.Print_Titles', '0', "'Perguntas'!$1:$1"],
    ]);
  });

  it('lists each style asked for once, in the order first asked, the unstyled one first', async () => {
    const styled: StreamedSheet = {
      name: 'Estilos',
      *xml(style) {
        const asked = [
          style({ font: {}, alignment: { vertical: 'top' } }),
          style({ font: {}, alignment: { vertical: 'top' }, unlocked: true, fill: 'FFFFF2CC' }),
          style({ font: {}, alignment: { vertical: 'top' } }),
          style({}),
        ];
        yield sheetHead({ frozenRows: 0, columns: [] });
        yield rowXml(1, asked.map((s, i) => inlineStringCell(`${'ABCD'[i]}1`, String(s), s)).join(''));
        yield sheetTail({ orientation: 'portrait' });
      },
    };
    const files = unzipSync(await streamBytes(streamWorkbook(() => [styled], AT)));
    expect([...sheetCells(files, 'Estilos').values()].map((cell) => cell.text)).toEqual(['1', '2', '1', '0']);
    const styles = partXml(files, 'xl/styles.xml');
    const xfs = elementsNamed(elementsNamed(styles, 'cellXfs')[0]!.inner, 'xf');
    expect(xfs).toHaveLength(3);
    expect(elementsNamed(xfs[2]!.inner, 'protection')[0]?.attributes.locked).toBe('0');
    expect(xfs[1]!.inner).not.toContain('protection');
  });

  it('makes the same bytes from the same sheets at the same moment', async () => {
    const once = await streamBytes(streamWorkbook(() => [countedSheet('Perguntas', 2_000), hiddenSheet], AT));
    const again = await streamBytes(
      streamWorkbook(() => [countedSheet('Perguntas', 2_000), hiddenSheet], AT),
    );
    expect(Buffer.from(again).equals(Buffer.from(once))).toBe(true);
  });

  it('makes rows only as the reader takes the bytes, not the whole sheet ahead of it', async () => {
    const made = { rows: 0 };
    const rows = 40_000;
    let laidOut = false;
    const stream = streamWorkbook(() => {
      laidOut = true;
      return [countedSheet('Perguntas', rows, made)];
    }, AT);
    // Nothing is made before the stream is read.
    expect(laidOut).toBe(false);
    const chunks = stream[Symbol.asyncIterator]();
    let read = 0;
    while (made.rows === 0 || read < 4) {
      const next = await chunks.next();
      expect(next.done).toBe(false);
      read += 1;
    }
    // Four chunks in: a few hundred KB of the sheet's text, far from its 40,000 rows.
    expect(made.rows).toBeGreaterThan(0);
    expect(made.rows).toBeLessThan(rows / 4);
    await chunks.return?.();
  });

  it('fails the stream when laying out or writing a sheet fails', async () => {
    await expect(
      streamBytes(
        streamWorkbook(() => {
          throw new Error('no items to lay out');
        }, AT),
      ),
    ).rejects.toThrow('no items to lay out');
    const failing: StreamedSheet = {
      name: 'Perguntas',
      *xml() {
        yield sheetHead({ frozenRows: 0, columns: [] });
        throw new Error('a row could not be written');
      },
    };
    await expect(streamBytes(streamWorkbook(() => [failing], AT))).rejects.toThrow(
      'a row could not be written',
    );
  });
});
