/**
 * Prepare on files that are text but hostile or careless: a cell of megabytes, stray NUL bytes,
 * bytes that are not UTF-8, Excel's "Unicode Text". Every row ends in one row record, written to
 * a batch table that refuses an item over DynamoDB's 400 KB as DynamoDB does.
 */
import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import { PREPARE_SETTINGS } from '../../../../shared/pipeline/prepare/prepare-passes.js';
import { wordMessage } from '../../../../shared/wording/index.js';
import type { Message } from '../../../../shared/wording/message.js';
import { DYNAMODB_ITEM_MAX_BYTES, memoryBatchStore } from '../../../helpers/memory-ports.js';
import { prepareWorld } from '../../../helpers/prepare-world.js';
import { ACCEPTED_COUNTRIES, crlf, utf8 } from '../../spreadsheet/fixtures.js';

const world = (key: string, bytes: Uint8Array) =>
  prepareWorld(key, { [key]: bytes }, ACCEPTED_COUNTRIES, { ...PREPARE_SETTINGS, rowsPerChunk: 4 });

const DESCRIPTIONS = [
  'Parafuso sextavado de aço inoxidável M8',
  'Café torrado em grãos, pacote de 1 kg',
  'Rolamento de esferas de aço, 22 mm',
  'Vinho tinto seco, garrafa de 750 ml',
  'Bomba centrífuga de água, motor 1 CV',
  'Frango congelado em pedaços, sem osso',
  'Pneu radial para automóvel 185/65 R15',
  'Cabo de cobre isolado, 2,5 mm², rolo',
  'Luva de borracha nitrílica, caixa com 100',
  'Azulejo cerâmico esmaltado 30 x 30 cm',
  'Garrafa térmica de aço inoxidável 1 l',
];

const HEADER = 'SKU;Descrição;País;Operação;Observação';
const lineOf = (n: number, notes = '') => `P-${n};${DESCRIPTIONS[n - 1]};BR;import;${notes}`;
const itemBytes = (record: RowRecord) => Buffer.byteLength(JSON.stringify(record), 'utf8');
/** A batch's warning as its sentence, whether kept as a sentence or as a message of one. */
const sentence = (warning: string | Message): string =>
  typeof warning === 'string' ? warning : wordMessage(warning, 'en');

describe('a cell of megabytes rejects its row, and every other row goes on', () => {
  it('the batch table in memory refuses an item over 400 KB, as DynamoDB does', async () => {
    const batches = memoryBatchStore();
    const record = {
      batch_id: 'b',
      row: 1,
      line: 2,
      cells: ['x'.repeat(500_000)],
      status: 'rejected',
      attempt: 1,
      dispatch: 1,
      updated_at: '2026-11-21T12:00:00.000Z',
    } as RowRecord;

    await expect(batches.putRows([record])).rejects.toMatchObject({ name: 'ValidationException' });
    expect(batches.rows.size).toBe(0);
  });

  // Larger cells, 30 MB among them, go through the whole pipeline in test/e2e/hostile-files.test.ts.
  it.each([
    ['500 KB', 500_000],
    ['3 MB', 3_000_000],
  ])(
    'a cell of %s: that row rejected naming the column and the limit, the ten others queued',
    async (_size, characters) => {
      const lines = DESCRIPTIONS.map((_, i) => lineOf(i + 1, i === 4 ? `"${'ç'.repeat(characters)}"` : 'ok'));
      const w = world('inbox/grande/catalogo.csv', utf8(crlf(HEADER, ...lines)));

      expect(await w.run()).toMatchObject({ next: 'wait' });

      const rows = w.rows();
      expect(rows.map((row) => row.status)).toEqual([
        ...Array(4).fill('queued'),
        'rejected',
        ...Array(6).fill('queued'),
      ]);
      expect(w.batch()).toMatchObject({ state: 'running', rows_total: 11, rows_dispatched: 10 });
      const rejected = rows[4]!;
      const detail =
        `Column "Observação" (column E) holds ${characters.toLocaleString('en-US')} characters; ` +
        'a cell may hold at most 32,767.';
      expect(rejected.result).toMatchObject({ status: 'rejected', reason: 'cell_too_long', detail });
      // Its cells kept for results.csv: the others whole, the long one cut to what a workbook holds.
      expect(rejected.cells.slice(0, 4)).toEqual(['P-5', DESCRIPTIONS[4], 'BR', 'import']);
      expect(rejected.cells[4]).toMatch(new RegExp(`^ç+…\\[cut: ${characters} characters\\]$`));
      expect(rejected.cells[4]!.length).toBe(32_767);
      expect(itemBytes(rejected)).toBeLessThan(DYNAMODB_ITEM_MAX_BYTES);
    },
  );
});

describe('a stray NUL byte rejects its row, not the file', () => {
  it('one NUL byte in an 11-row CSV: ten rows queued, one rejected naming the column', async () => {
    const bytes = utf8(crlf(HEADER, ...DESCRIPTIONS.map((_, i) => lineOf(i + 1))));
    const at = bytes.indexOf(Buffer.from('tinto'));
    const w = world(
      'inbox/nul/catalogo.csv',
      Buffer.concat([bytes.subarray(0, at), Buffer.from([0]), bytes.subarray(at)]),
    );

    expect(await w.run()).toMatchObject({ next: 'wait' });

    expect(w.batch()).toMatchObject({ state: 'running', rows_total: 11, rows_dispatched: 10 });
    const rows = w.rows();
    expect(rows.filter((row) => row.status === 'queued')).toHaveLength(10);
    expect(rows[3]!.result).toMatchObject({
      status: 'rejected',
      reason: 'control_character',
      detail: 'Column "Descrição" (column B) holds a NUL character (byte 0), which is not text; remove it.',
    });
  });
});

describe('text that is not UTF-8 is read, and the batch warns which rows and columns to check', () => {
  it('a Latin-1 file: the warning names the encoding, the first byte and the rows', async () => {
    const text = crlf(HEADER, ...DESCRIPTIONS.map((_, i) => lineOf(i + 1)));
    const w = world('inbox/latin1/catalogo.csv', Buffer.from(text, 'latin1'));

    expect(await w.run()).toMatchObject({ next: 'wait' });

    expect(w.rows().map((row) => row.product?.description)).toEqual(DESCRIPTIONS);
    const warnings = (w.batch().warnings ?? []).map(sentence);
    expect(warnings[0]).toBe(
      'catalogo.csv is not UTF-8 text: line 1 holds the byte 0xE7 (byte 10 of the file), which UTF-8 ' +
        'does not allow, so such bytes were read as Windows-1252, what Excel\'s plain "CSV" writes. ' +
        'Check the accented letters of the header row and rows 1, 2, 3, 5, 6, 7, 8, 9, 10 and 11 in ' +
        'column "Descrição" (column B); if any look wrong, save the file as "CSV UTF-8" and upload it again.',
    );
  });

  it('a CESU-8 description: the row and column named, the lone surrogate shown as U+FFFD', async () => {
    const lines = DESCRIPTIONS.slice(0, 4).map((_, i) => lineOf(i + 1));
    const cesu = Buffer.concat([
      Buffer.from('P-5;Motor el'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('trico trifásico 1 CV;BR;import;\r\n'),
    ]);
    const w = world('inbox/java/catalogo.csv', Buffer.concat([utf8(crlf(HEADER, ...lines)), cesu]));

    expect(await w.run()).toMatchObject({ next: 'wait' });

    expect(w.rows()[4]!.product?.description).toBe('Motor el\uFFFDtrico trifásico 1 CV');
    const [warning] = (w.batch().warnings ?? []).map(sentence);
    expect(warning).toMatch(/^catalogo\.csv is not valid UTF-8: line 6 holds the bytes 0xED 0xA0 0x80 /);
    expect(warning).toContain('Check row 5 in column "Descrição" (column B), and save the file as UTF-8.');
  });
});

describe('Excel\'s "Unicode Text" (.txt) starts a batch read by its content', () => {
  it('UTF-16LE with a BOM and tabs, dropped as inbox/<name>/catalogo.txt', async () => {
    const text = crlf(
      'SKU\tDescrição\tPaís\tOperação',
      ...DESCRIPTIONS.slice(0, 3).map((description, i) => `P-${i + 1}\t${description}\tBR\timportação`),
    );
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const w = world('inbox/unicode/catalogo.txt', bytes);

    expect(await w.run()).toMatchObject({ next: 'wait' });

    expect(w.batch()).toMatchObject({ state: 'running', rows_total: 3, rows_dispatched: 3, delimiter: '\t' });
    expect(w.rows().map((row) => row.product?.description)).toEqual(DESCRIPTIONS.slice(0, 3));
    expect(w.batch().warnings ?? []).toEqual([]);
  });
});
