/**
 * A cell longer than a workbook cell, a row too large to store, a control character: the row is
 * rejected naming the column and the limit, its cells kept cut to fit, and every other row goes on.
 * Real CSV and XLSX bytes, read through the one reader both formats share.
 */
import { describe, expect, it } from 'vitest';
import { fitRow, MAX_CELL_CHARACTERS, MAX_ROW_BYTES } from '../../../shared/spreadsheet/cell-limits.js';
import { normaliseRow } from '../../../shared/spreadsheet/normalise-row.js';
import { readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import { RowOutcome } from '../../../shared/spreadsheet/schemas.js';
import { ACCEPTED_COUNTRIES, crlf, thrown, utf8, xlsx } from './fixtures.js';

const utf8Bytes = (text: string) => Buffer.byteLength(text, 'utf8');
const rowBytes = (cells: readonly string[]) => cells.reduce((sum, cell) => sum + utf8Bytes(cell), 0);

const HEADER = 'SKU;Descrição;País;Operação;Notes';
const line = (n: number, notes = '') =>
  `P-${n};Parafuso sextavado de aço inoxidável M${n};BR;import;${notes}`;

describe('fitRow', () => {
  it('leaves an ordinary row alone', () => {
    expect(fitRow(['P-1', 'Parafuso sextavado', 'BR', 'x'.repeat(MAX_CELL_CHARACTERS)])).toBeNull();
  });

  it('cuts a cell over 32,767 characters to 32,767 with a mark saying how long it was', () => {
    const fitted = fitRow(['P-1', 'é'.repeat(40_000)])!;

    expect(fitted.flaws).toEqual([{ kind: 'cell_too_long', index: 1, characters: 40_000 }]);
    expect(fitted.cells[0]).toBe('P-1');
    expect(fitted.cells[1]!.length).toBe(MAX_CELL_CHARACTERS);
    expect(fitted.cells[1]!.endsWith('…[cut: 40000 characters]')).toBe(true);
  });

  it('cuts several long cells until the row fits its 256 KiB, never half a character', () => {
    // Ten cells of 32,767 three-byte characters: each fits a workbook, together ~960 KB.
    const cells = ['P-1', ...Array.from({ length: 10 }, () => '€'.repeat(MAX_CELL_CHARACTERS))];
    const fitted = fitRow(cells)!;

    expect(fitted.flaws).toEqual([
      { kind: 'row_too_large', bytes: rowBytes(cells), index: 1, characters: 32_767 },
    ]);
    expect(rowBytes(fitted.cells)).toBeLessThanOrEqual(MAX_ROW_BYTES);
    expect(rowBytes(fitted.cells)).toBeGreaterThan(MAX_ROW_BYTES - 1000);
    expect(fitted.cells[0]).toBe('P-1');
    for (const cell of fitted.cells.slice(1)) expect(cell).toMatch(/^€+…\[cut: 32767 characters\]$/);
    // A surrogate pair is never split: emoji cut keep whole emoji.
    const emoji = fitRow(Array.from({ length: 12 }, () => '🔩'.repeat(16_000)))!;
    for (const cell of emoji.cells) expect(cell).toMatch(/^(🔩)+…\[cut: 32000 characters\]$/u);
  });

  it('cuts a row of 600,000 short cells (a line of delimiters) without overflowing the call stack', () => {
    const cells = ['P-1', 'Parafuso sextavado M8', ...Array.from({ length: 600_000 }, () => 'ab')];

    const fitted = fitRow(cells)!;

    expect(fitted.flaws).toEqual([
      { kind: 'row_too_large', bytes: rowBytes(cells), index: 1, characters: 'Parafuso sextavado M8'.length },
    ]);
    // Its record keeps the first cells and a mark saying how many there were, and fits an item.
    expect(fitted.cells.slice(0, 3)).toEqual(['P-1', 'Parafuso sextavado M8', 'ab']);
    expect(fitted.cells.at(-1)).toBe('…[cut: 600002 cells]');
    expect(Buffer.byteLength(JSON.stringify(fitted.cells))).toBeLessThanOrEqual(MAX_ROW_BYTES);
  });

  it('rejects a row of 150,000 empty cells and one filled, whose record would not fit an item for their places alone', () => {
    const cells = ['P-1', 'Parafuso sextavado M8', ...Array.from({ length: 150_000 }, () => ''), 'x'];

    const fitted = fitRow(cells)!;

    expect(fitted.flaws).toMatchObject([{ kind: 'row_too_large', index: 1 }]);
    expect(fitted.flaws[0]).toHaveProperty('bytes', expect.any(Number));
    expect((fitted.flaws[0] as { bytes: number }).bytes).toBeGreaterThan(MAX_ROW_BYTES);
    expect(Buffer.byteLength(JSON.stringify(fitted.cells))).toBeLessThanOrEqual(MAX_ROW_BYTES);
    // An ordinary wide row, 20,000 short cells, is left alone; one of 50,000 with a NUL keeps them all.
    expect(fitRow(Array.from({ length: 20_000 }, (_, i) => `v${i}`))).toBeNull();
    expect(fitRow(['\u0000', ...Array.from({ length: 50_000 }, () => 'v')])!.cells).toHaveLength(50_001);
  });

  it('names the first control character of each cell and shows it as U+FFFD', () => {
    const fitted = fitRow(['P-1', 'Parafuso\u0000 sextavado\u0001', 'BR\u001B'])!;

    expect(fitted.flaws).toEqual([
      { kind: 'control_character', index: 1, code: 0 },
      { kind: 'control_character', index: 2, code: 0x1b },
    ]);
    expect(fitted.cells).toEqual(['P-1', 'Parafuso\uFFFD sextavado\uFFFD', 'BR\uFFFD']);
    // Tabs, line breaks, form feeds and the VT or SUB ERPs write for a line break are what cells hold: not flaws.
    expect(fitRow(['a\tb', 'linha 1\r\nlinha 2', 'x\u000Bx\u000Cx', 'linha 1\u001Alinha 2'])).toBeNull();
  });
});

describe('oversized cells in a file', () => {
  const rejected = async (bytes: Uint8Array, fileName: string) => {
    const read = await readSpreadsheet(bytes, fileName);
    const outcomes = read.rows.map((row) => normaliseRow(row, {}, ACCEPTED_COUNTRIES, read.columns));
    for (const outcome of outcomes) expect(RowOutcome.parse(outcome)).toEqual(outcome);
    return { read, outcomes };
  };

  it('a CSV cell of 512,000 characters rejects its row naming the column and the limit; the others are valid', async () => {
    const bytes = utf8(crlf(HEADER, line(1), line(2, 'n'.repeat(512_000)), line(3)));

    const { read, outcomes } = await rejected(bytes, 'catalogo.csv');

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['valid', 'rejected', 'valid']);
    const rejection = outcomes[1]!.status === 'rejected' ? outcomes[1]!.rejection : null;
    expect(rejection).toMatchObject({
      row: 2,
      reason: 'cell_too_long',
      column: null,
      detail: 'Column "Notes" (column E) holds 512,000 characters; a cell may hold at most 32,767.',
    });
    expect(rejection?.issues).toHaveLength(1);
    // The row is kept, its cell cut to what a workbook holds.
    expect(read.rows[1]!.cells.slice(0, 4)).toEqual([
      'P-2',
      'Parafuso sextavado de aço inoxidável M2',
      'BR',
      'import',
    ]);
    expect(read.rows[1]!.cells[4]!.length).toBe(MAX_CELL_CHARACTERS);
  });

  it('an XLSX cell over the limit is rejected the same way, in a pipeline column', async () => {
    const long = 'Motor elétrico trifásico '.repeat(2_000);
    const bytes = await xlsx([
      [{ value: 'Descrição' }, { value: 'País' }, { value: 'Operação' }],
      [{ value: 'Bomba centrífuga de água 1 CV' }, { value: 'BR' }, { value: 'import' }],
      [{ value: long }, { value: 'BR' }, { value: 'import' }],
    ]);

    const { outcomes } = await rejected(bytes, 'catalogo.xlsx');

    expect(outcomes[0]!.status).toBe('valid');
    expect(outcomes[1]).toMatchObject({
      status: 'rejected',
      rejection: {
        reason: 'cell_too_long',
        column: 'description',
        detail: `Column "Descrição" (column A) holds ${long.length.toLocaleString('en-US')} characters; a cell may hold at most 32,767.`,
      },
    });
  });

  it('a row of many long cells is rejected as too large, naming its largest cell', async () => {
    const notes = Array.from({ length: 12 }, (_, i) => String.fromCharCode(0x61 + i).repeat(30_000));
    const header = `Descrição;País;Operação;${notes.map((_, i) => `Nota ${i + 1}`).join(';')}`;
    const big = `Parafuso sextavado M8;BR;import;${notes.join(';').replace('l'.repeat(30_000), 'l'.repeat(31_000))}`;
    const bytes = utf8(crlf(header, big, 'Parafuso sextavado M10;BR;import'));

    const { read, outcomes } = await rejected(bytes, 'notas.csv');

    expect(outcomes[1]!.status).toBe('valid');
    expect(outcomes[0]).toMatchObject({
      status: 'rejected',
      rejection: {
        reason: 'row_too_large',
        detail:
          "The row's cells hold 361,029 bytes of text in all; a row may hold at most 262,144 (256 KiB). " +
          'The largest is column "Nota 12" (column O), with 31,000 characters.',
      },
    });
    expect(rowBytes(read.rows[0]!.cells)).toBeLessThanOrEqual(MAX_ROW_BYTES);
    expect(read.rows[0]!.cells.slice(0, 3)).toEqual(['Parafuso sextavado M8', 'BR', 'import']);
  });

  it('a 30 MB cell in a CSV read in 64 KiB pieces: one row rejected, the others read', async () => {
    const bytes = utf8(crlf(HEADER, line(1), line(2, `"${'x'.repeat(30_000_000)}"`), line(3)));
    const before = process.memoryUsage().rss;

    const { read, outcomes } = await rejected(bytes, 'enorme.csv');

    expect(outcomes.map((outcome) => outcome.status)).toEqual(['valid', 'rejected', 'valid']);
    expect(outcomes[1]).toMatchObject({
      rejection: {
        reason: 'cell_too_long',
        detail: 'Column "Notes" (column E) holds 30,000,000 characters; a cell may hold at most 32,767.',
      },
    });
    expect(read.rows[1]!.cells[4]!.length).toBe(MAX_CELL_CHARACTERS);
    // A few copies of the 30 MB at most while it is read (the file, the cell), never one per piece.
    expect(process.memoryUsage().rss - before).toBeLessThan(400 * 1024 * 1024);
  });

  it('refuses a header cell too long to name a column, naming its line and column', async () => {
    const error = await thrown(() =>
      readSpreadsheet(utf8(crlf(`SKU;${'D'.repeat(5_000)}`, 'P-1;x')), 'c.csv'),
    );

    expect(error).toMatchObject({ code: 'header_too_long', line: 1 });
    expect((error as Error).message).toBe(
      "c.csv, line 1: the header's column B holds 5,000 characters; a column name may hold at most 1,000. " +
        'Check that the first row is the header row',
    );
  });
});
