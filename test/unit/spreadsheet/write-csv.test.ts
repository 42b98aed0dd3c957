/** Excel-safe CSV output, checked byte by byte and by reading it back. */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import {
  formatCsvRecord,
  formatNcm,
  neutraliseFormula,
  outputDelimiterFor,
  restoreNeutralisedField,
  streamCsv,
  writeCsv,
} from '../../../shared/spreadsheet/write-csv.js';
import { crlf, utf8, xlsx } from './fixtures.js';

const BOM = Buffer.from([0xef, 0xbb, 0xbf]);

describe('writeCsv', () => {
  it('writes UTF-8 with a BOM, the chosen delimiter and CRLF after every record', () => {
    const bytes = writeCsv(['Descrição', 'País'], [['Café torrado', 'BR']], { delimiter: ';' });

    expect(bytes.subarray(0, 3)).toEqual(BOM);
    expect(bytes.subarray(3).toString('utf8')).toBe('Descrição;País\r\nCafé torrado;BR\r\n');
  });

  it('can leave the BOM out when asked', () => {
    expect(writeCsv(['a'], [['b']], { delimiter: ',', bom: false }).toString('utf8')).toBe('a\r\nb\r\n');
  });

  it('quotes per RFC 4180 only what needs it', () => {
    expect(formatCsvRecord(['a;b', 'a,b', 'diz "olá"', 'linha 1\nlinha 2', 'cr\rlf', 'simples'], ';')).toBe(
      '"a;b";a,b;"diz ""olá""";"linha 1\nlinha 2";"cr\rlf";simples\r\n',
    );
    expect(formatCsvRecord(['a,b', 'a;b', 'a\tb'], '\t')).toBe('a,b\ta;b\t"a\tb"\r\n');
  });

  it('neutralises formulas: a field starting with = + - @ tab or CR gets a leading quote', () => {
    expect(
      ['=HYPERLINK("http://x","y")', '+55 11 4000', '-20 °C', '@SUM(A1)', '\tcmd', '\rcmd', 'a=b', "'já"].map(
        neutraliseFormula,
      ),
    ).toEqual([
      '\'=HYPERLINK("http://x","y")',
      "'+55 11 4000",
      "'-20 °C",
      "'@SUM(A1)",
      "'\tcmd",
      "'\rcmd",
      'a=b',
      "'já",
    ]);
    expect(formatCsvRecord(['=1+1', '-2;3'], ';')).toBe('\'=1+1;"\'-2;3"\r\n');
  });

  it('restores neutralised fields read back from our own files, and only those', () => {
    expect(["'=1+1", "'-20 °C", "'@x", "'já", 'normal', "'"].map(restoreNeutralisedField)).toEqual([
      '=1+1',
      '-20 °C',
      '@x',
      "'já",
      'normal',
      "'",
    ]);
  });
});

describe('streamCsv', () => {
  it('yields the same bytes as writeCsv, from sync or async rows', async () => {
    const header = ['Descrição', 'NCM'];
    const rows = [
      ['Café; torrado', formatNcm('09012100')],
      ['=perigo', ''],
    ];
    async function* asyncRows() {
      yield* rows;
    }

    const fromSync = Buffer.concat(
      await Readable.from(streamCsv(header, rows, { delimiter: ';' })).toArray(),
    );
    const fromAsync = Buffer.concat(
      await Readable.from(streamCsv(header, asyncRows(), { delimiter: ';' })).toArray(),
    );

    expect(fromSync).toEqual(writeCsv(header, rows, { delimiter: ';' }));
    expect(fromAsync).toEqual(fromSync);
  });

  it('yields many records a chunk, not one, with the bytes unchanged', async () => {
    const header = ['Descrição', 'NCM'];
    const rows = Array.from({ length: 5_000 }, (_, i) => [
      `Café torrado, lote ${i}; ção`,
      formatNcm('09012100'),
    ]);
    const chunks = (await Readable.from(streamCsv(header, rows, { delimiter: ';' })).toArray()) as Buffer[];
    expect(Buffer.concat(chunks)).toEqual(writeCsv(header, rows, { delimiter: ';' }));
    // About 200 KB of records: a handful of chunks of at least 32 K characters, the last one less.
    expect(chunks.length).toBeGreaterThan(1);
    expect(chunks.length).toBeLessThan(20);
    for (const chunk of chunks.slice(0, -1))
      expect(chunk.toString('utf8').length).toBeGreaterThanOrEqual(32 * 1024);
  });
});

describe('formatNcm', () => {
  it('writes an NCM in its dotted text form so Excel keeps the leading zero', () => {
    expect(formatNcm('09012100')).toBe('0901.21.00');
    expect(formatNcm('84713012')).toBe('8471.30.12');
  });

  it('writes a 10-digit SIM code as the NCM plus a fourth group', () => {
    expect(formatNcm('0901210010')).toBe('0901.21.00.10');
  });

  it('leaves anything else as the user wrote it', () => {
    expect(formatNcm('2071400')).toBe('2071400');
    expect(formatNcm('a definir')).toBe('a definir');
  });
});

describe('outputDelimiterFor', () => {
  it('keeps the input delimiter and uses `;` for XLSX input', () => {
    expect(outputDelimiterFor({ delimiter: ',' })).toBe(',');
    expect(outputDelimiterFor({ delimiter: '\t' })).toBe('\t');
    expect(outputDelimiterFor({})).toBe(';');
  });
});

describe('round trip: write → read', () => {
  it('reads back exactly what was written, with every delimiter', async () => {
    const header = ['Descrição', 'Operação', 'País', 'NCM sugerida', 'Observações'];
    const rows = [
      ['Café torrado; em grãos, "premium"', 'importação', 'BR', formatNcm('09012100'), 'linha 1\r\nlinha 2'],
      ['Filé de frango congelado', 'exportación', 'AR', formatNcm('0207140010'), ''],
      ['Filé de frango congelado', 'exportación', 'AR', formatNcm('0207140010'), ''],
      ['Chá verde\tem folhas', 'import', 'CN', '', '  espaços  '],
    ];

    for (const delimiter of [';', ',', '\t'] as const) {
      const read = await readSpreadsheet(writeCsv(header, rows, { delimiter }), 'saida.csv');

      expect(read.encoding).toBe('utf-8');
      expect(read.delimiter).toBe(delimiter);
      expect(read.header).toEqual(header);
      expect(read.rows.map((row) => row.cells)).toEqual(rows);
      expect(read.problems).toEqual([]);
    }
  });

  it('brings neutralised answers back to what the reviewer typed', async () => {
    const rows = [['Sensor de temperatura industrial', '-20 °C a +80 °C']];

    const read = await readSpreadsheet(
      writeCsv(['Descrição', 'Resposta'], rows, { delimiter: ';' }),
      'r.csv',
    );

    expect(read.rows[0]?.cells).toEqual(['Sensor de temperatura industrial', "'-20 °C a +80 °C"]);
    expect(read.rows[0]?.cells.map(restoreNeutralisedField)).toEqual(rows[0]);
  });

  it('turns an XLSX upload into a CSV that reads back with the same cells', async () => {
    const source = await readSpreadsheet(
      await xlsx([
        ['Descrição', 'NCM', 'Peso'],
        ['Filé de frango congelado', 2071400, 1.25],
      ]),
      'entrada.xlsx',
    );

    const output = writeCsv(
      source.header,
      source.rows.map((row) => row.cells),
      { delimiter: outputDelimiterFor(source) },
    );
    const reread = await readSpreadsheet(output, 'saida.csv');

    expect(reread.delimiter).toBe(';');
    expect(reread.rows.map((row) => row.cells)).toEqual([['Filé de frango congelado', '2071400', '1.25']]);
  });

  it('reads a UTF-8 file written by another tool the same as ours', async () => {
    const ours = await readSpreadsheet(
      writeCsv(['Descrição', 'País'], [['Café', 'BR']], { delimiter: ';' }),
      'a.csv',
    );
    const theirs = await readSpreadsheet(utf8(crlf('Descrição;País', 'Café;BR')), 'a.csv');

    expect(ours).toEqual(theirs);
  });
});
