/** CSV files as Excel, LibreOffice and ERPs write them, read through `readSpreadsheet`. */
import { describe, expect, it } from 'vitest';
import { bytesSource } from '../../../shared/spreadsheet/byte-source.js';
import { SpreadsheetError } from '../../../shared/spreadsheet/errors.js';
import { detectDelimiter, openCsv } from '../../../shared/spreadsheet/read-csv.js';
import { readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';
import { SpreadsheetRead } from '../../../shared/spreadsheet/schemas.js';
import { crlf, thrown, utf8, windows1252 } from './fixtures.js';

const cellsOf = (read: SpreadsheetRead) => read.rows.map((row) => row.cells);

describe('readSpreadsheet on CSV: delimiters and encodings', () => {
  it('reads a pt-BR Excel "CSV" file: `;` and Windows-1252, accents intact', async () => {
    const bytes = windows1252(
      crlf(
        'Descrição;Operação;País;NCM',
        'Café torrado em grãos, pacote 1 kg;importação;br;0901.21.00',
        'Filé de frango congelado;Exportação;AR;2071400',
      ),
    );

    const read = await readSpreadsheet(bytes, 'catalogo.csv');

    expect(SpreadsheetRead.parse(read)).toEqual(read);
    expect(read.format).toBe('csv');
    expect(read.encoding).toBe('windows-1252');
    expect(read.delimiter).toBe(';');
    expect(read.header).toEqual(['Descrição', 'Operação', 'País', 'NCM']);
    expect(read.rows[0]?.fields).toEqual({
      description: 'Café torrado em grãos, pacote 1 kg',
      operation: 'importação',
      country: 'br',
      current_ncm: '0901.21.00',
    });
    expect(read.rows[1]?.fields.operation).toBe('Exportação');
    expect(read.problems).toEqual([]);
  });

  it('reads an en file: `,` and UTF-8 with a BOM', async () => {
    const bytes = utf8(crlf('Description,Operation,Country', '"Roasted coffee beans, 1 kg bag",import,CN'), {
      bom: true,
    });

    const read = await readSpreadsheet(bytes, 'catalogue.csv');

    expect(read.encoding).toBe('utf-8');
    expect(read.delimiter).toBe(',');
    expect(read.header).toEqual(['Description', 'Operation', 'Country']);
    expect(cellsOf(read)).toEqual([['Roasted coffee beans, 1 kg bag', 'import', 'CN']]);
  });

  it('reads an es tab-separated file in UTF-8 without a BOM', async () => {
    const bytes = utf8('Descripción\tOperación\tPaís\nCafé tostado en granos\timportación\tUY\n');

    const read = await readSpreadsheet(bytes, 'catalogo.txt');

    expect(read.delimiter).toBe('\t');
    expect(read.encoding).toBe('utf-8');
    expect(read.header).toEqual(['Descripción', 'Operación', 'País']);
    expect(cellsOf(read)).toEqual([['Café tostado en granos', 'importación', 'UY']]);
  });

  it('honours an Excel `sep=` first line and counts it in line numbers', async () => {
    const read = await readSpreadsheet(
      utf8(crlf('sep=,', 'Descrição,País', 'Café torrado; moído,BR')),
      'a.csv',
    );

    expect(read.delimiter).toBe(',');
    expect(read.header).toEqual(['Descrição', 'País']);
    expect(read.rows[0]).toMatchObject({ row: 1, line: 3, cells: ['Café torrado; moído', 'BR'] });
  });
});

describe('detectDelimiter', () => {
  it('follows the header, not the commas of descriptions', () => {
    expect(detectDelimiter('Descrição;País\nCafé, torrado, moído, 500 g;BR\n')).toBe(';');
  });

  it('ignores delimiters inside a quoted header cell', () => {
    expect(detectDelimiter('"Descrição; detalhada",País,NCM\nCafé,BR,09012100\n')).toBe(',');
  });

  it('breaks a tie in the header by how many rows repeat the count', () => {
    expect(detectDelimiter('Descrição;País,origem\nCafé;BR\nChá;AR\n')).toBe(';');
  });

  it('for a one-column header picks the delimiter absent from the data, `;` first', () => {
    expect(detectDelimiter('Descrição\nCafé torrado, moído, 500 g\nChá verde, folhas\n')).toBe(';');
    expect(detectDelimiter('Descrição\nCafé; torrado\n')).toBe(',');
  });
});

describe('readSpreadsheet on CSV: structure', () => {
  it('keeps quoted delimiters, quotes and line breaks in one cell and counts physical lines', async () => {
    const bytes = utf8(
      crlf(
        'Descrição;Ref',
        '"Café torrado; em grãos\r\nembalagem ""premium"" 1 kg";A-1',
        'Chá verde em folhas secas;A-2',
      ),
    );

    const read = await readSpreadsheet(bytes, 'a.csv');

    expect(read.rows.map(({ row, line, cells }) => ({ row, line, cells }))).toEqual([
      { row: 1, line: 2, cells: ['Café torrado; em grãos\r\nembalagem "premium" 1 kg', 'A-1'] },
      { row: 2, line: 4, cells: ['Chá verde em folhas secas', 'A-2'] },
    ]);
  });

  it('reads CRLF and LF files the same', async () => {
    const lines = ['Descrição;País', 'Café torrado em grãos;BR', 'Chá verde em folhas;AR'];

    const windows = await readSpreadsheet(utf8(crlf(...lines)), 'a.csv');
    const unix = await readSpreadsheet(utf8(`${lines.join('\n')}\n`), 'a.csv');

    expect(cellsOf(windows)).toEqual(cellsOf(unix));
    expect(cellsOf(windows)).toEqual([
      ['Café torrado em grãos', 'BR'],
      ['Chá verde em folhas', 'AR'],
    ]);
  });

  it('skips blank lines and delimiter-only lines; row counts data rows, line counts the file', async () => {
    const bytes = utf8(
      crlf('', 'Descrição;País', 'Café torrado em grãos;BR', '', ';', '  ;  ', 'Chá verde;AR', ''),
    );

    const read = await readSpreadsheet(bytes, 'a.csv');

    expect(read.rows.map(({ row, line }) => ({ row, line }))).toEqual([
      { row: 1, line: 3 },
      { row: 2, line: 7 },
    ]);
  });

  it('drops the unnamed empty last column of a trailing delimiter without a problem', async () => {
    const read = await readSpreadsheet(utf8(crlf('Descrição;País;', 'Café torrado em grãos;BR;')), 'a.csv');

    expect(read.header).toEqual(['Descrição', 'País']);
    expect(cellsOf(read)).toEqual([['Café torrado em grãos', 'BR']]);
    expect(read.problems).toEqual([]);
  });

  it('keeps duplicate rows, each with its own row number', async () => {
    const read = await readSpreadsheet(
      utf8(crlf('Descrição;País', 'Café torrado em grãos;BR', 'Café torrado em grãos;BR')),
      'a.csv',
    );

    expect(read.rows.map((row) => row.row)).toEqual([1, 2]);
    expect(read.rows[0]?.cells).toEqual(read.rows[1]?.cells);
  });

  it('pads short rows and keeps the extra cells of long rows, reporting them', async () => {
    const read = await readSpreadsheet(
      utf8(
        crlf('Descrição;País;SKU', 'Café torrado em grãos', 'Chá verde em folhas;AR;S-2;sobra;;', 'x;y;z;;;'),
      ),
      'a.csv',
    );

    expect(cellsOf(read)).toEqual([
      ['Café torrado em grãos', '', ''],
      ['Chá verde em folhas', 'AR', 'S-2', 'sobra'],
      ['x', 'y', 'z'],
    ]);
    expect(read.problems).toEqual([
      {
        code: 'row_longer_than_header',
        row: 2,
        line: 3,
        message: expect.stringMatching(/^a\.csv, line 3 \(row 2\): 4 cells for 3 columns.*"sobra"/),
        said: {
          code: 'row_longer_than_header',
          params: { file: 'a.csv', line: 3, row: 2, cells: 4, columns: 3, extra: ['sobra'], more: 0 },
        },
      },
    ]);
  });

  it('passes unknown columns through, untouched and in their original order', async () => {
    const read = await readSpreadsheet(
      utf8(
        crlf(
          'Fornecedor;Descrição;Peso (kg);País;Observações',
          'ACME Ltda.; Café torrado em grãos ;1,5;BR;  frágil ',
        ),
      ),
      'a.csv',
    );

    expect(read.columns.passthrough).toEqual([
      { index: 0, header: 'Fornecedor' },
      { index: 2, header: 'Peso (kg)' },
      { index: 4, header: 'Observações' },
    ]);
    expect(read.rows[0]?.passthrough).toEqual(['ACME Ltda.', '1,5', '  frágil ']);
    expect(read.rows[0]?.fields).toEqual({ description: ' Café torrado em grãos ', country: 'BR' });
  });

  it('reports a stray quote inside a quoted cell without losing the row', async () => {
    const read = await readSpreadsheet(
      utf8(crlf('Descrição;País', '"Tubo 3/4"" x 2" m";BR', 'Chá;AR')),
      'a.csv',
    );

    expect(cellsOf(read)).toEqual([
      ['Tubo 3/4" x 2" m', 'BR'],
      ['Chá', 'AR'],
    ]);
    expect(read.problems.map((problem) => [problem.code, problem.line])).toEqual([
      ['csv_malformed_quotes', 2],
    ]);
  });
});

describe('readSpreadsheet on CSV: files that cannot be read', () => {
  it('refuses an unclosed quote instead of swallowing the rows after it', async () => {
    const error = await thrown(() =>
      readSpreadsheet(utf8(crlf('Descrição;País', 'Café;BR', '"Tubo 3/4 polegada;BR', 'Chá;AR')), 'a.csv'),
    );

    expect(error).toBeInstanceOf(SpreadsheetError);
    expect(error).toMatchObject({ code: 'csv_unterminated_quote', fileName: 'a.csv', line: 3 });
    expect((error as Error).message).toMatch(/^a\.csv, line 3: a quoted cell is never closed/);
  });

  it('refuses a quote never closed as soon as what follows it passes the most a record may hold, naming its line', async () => {
    const rows = Array.from({ length: 2_000 }, (_, i) => `Café número ${i};BR`);
    const bytes = utf8(crlf('Descrição;País', 'Café;BR', '"Tubo 3/4 polegada;BR', ...rows));
    // Chunks of 64 bytes, counted: the limit is met long before the file's end.
    const chunks = bytesSource(bytes, 64);
    let bytesRead = 0;
    const counted = {
      size: chunks.size,
      async *read(start: number, end: number) {
        for await (const chunk of chunks.read(start, end)) {
          bytesRead += chunk.byteLength;
          yield chunk;
        }
      },
    };
    const file = await openCsv(counted, 'a.csv', 1_000);
    bytesRead = 0;
    const error = await thrown(async () => {
      for await (const _record of file.read().records);
    });

    expect(error).toBeInstanceOf(SpreadsheetError);
    expect(error).toMatchObject({ code: 'csv_unterminated_quote', fileName: 'a.csv', line: 3 });
    expect(bytesRead).toBeLessThan(bytes.byteLength / 4);
  });

  it('refuses a file that runs on past the most a record may hold without a line break, naming where', async () => {
    const bytes = utf8(crlf('Descrição;País', 'Café;BR', `Chá ${'mate '.repeat(1_000)};AR`, 'Erva;PY'));

    const error = await thrown(async () => {
      for await (const _record of (await openCsv(bytesSource(bytes, 64), 'b.csv', 1_000)).read().records);
    });

    expect(error).toMatchObject({ code: 'line_too_long', fileName: 'b.csv', line: 3 });
    expect((error as Error).message).toBe(
      'b.csv, line 3: runs on for more than 1,000 characters from here without a line break, which no row ' +
        'of a catalogue holds; save it again as CSV with one product per line',
    );
  });

  it('refuses an empty file and a file of blank lines', async () => {
    await expect(readSpreadsheet(new Uint8Array(0), 'vazio.csv')).rejects.toMatchObject({
      code: 'file_empty',
      message: 'vazio.csv: is empty (0 bytes)',
    });
    await expect(readSpreadsheet(utf8(crlf('', ';;', '')), 'vazio.csv')).rejects.toMatchObject({
      code: 'file_empty',
    });
  });

  it('refuses a header-only file, saying so', async () => {
    const error = await thrown(() => readSpreadsheet(utf8(crlf('Descrição;País', ';')), 'so-cabecalho.csv'));

    expect(error).toMatchObject({ code: 'no_data_rows' });
    expect((error as Error).message).toBe(
      'so-cabecalho.csv: has a header row but no data rows: add one product per row below the header',
    );
  });

  it('refuses a file with neither a description nor a sheet column, listing the headers found', async () => {
    const error = await thrown(() =>
      readSpreadsheet(utf8(crlf('Código;NCM;País', 'A-1;09012100;BR')), 'sem-descricao.csv'),
    );

    expect(error).toMatchObject({ code: 'no_description_or_sheet_column', fileName: 'sem-descricao.csv' });
    expect((error as Error).message).toContain('Columns found: "Código", "NCM", "País"');
  });

  it('refuses binary content named .csv', async () => {
    const pdf = Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 0, 0xff, 0x00, 0x10])]);

    await expect(readSpreadsheet(pdf, 'ficha.csv')).rejects.toMatchObject({ code: 'not_a_text_file' });
  });

  it('tells the user when accents were garbled before upload', async () => {
    const read = await readSpreadsheet(utf8(crlf('Descrição;País', 'CafÃ© torrado em grÃ£os;BR')), 'a.csv');

    expect(read.problems.map((problem) => problem.code)).toEqual(['text_looks_double_encoded']);
  });
});
