/** How a file was understood (its columns) and what its sender should look at (warnings), on real CSV bytes. */
import { describe, expect, it } from 'vitest';
import { columnUses } from '../../../shared/spreadsheet/input-report.js';
import { inputWarnings } from '../../../shared/spreadsheet/input-warnings.js';
import { readSpreadsheet } from '../../../shared/spreadsheet/read-spreadsheet.js';

const csv = (text: string) => new TextEncoder().encode(text);

describe('columnUses', () => {
  it('names every column with its letter and the field it was read as, or null when passed through', async () => {
    // Prepare
    const read = await readSpreadsheet(
      csv('SKU;Descripción;País;Hoja técnica;Color\nA-1;Rodamiento 6205;AR;rod.pdf;rojo\n'),
      'catalogo.csv',
    );

    // Act
    const uses = columnUses(read.header, read.columns);

    // Assess
    expect(uses).toEqual([
      { column: 'A', header: 'SKU', understood_as: 'sku' },
      { column: 'B', header: 'Descripción', understood_as: 'description' },
      { column: 'C', header: 'País', understood_as: 'country' },
      { column: 'D', header: 'Hoja técnica', understood_as: 'sheet' },
      { column: 'E', header: 'Color', understood_as: null },
    ]);
  });

  it.each([
    'Hoja de datos',
    'Hoja de especificaciones',
    'Ficha do produto',
    'Folha técnica',
    'Especificação técnica',
    'Documento técnico',
    'PDF da ficha',
  ])('reads a column headed "%s" as the sheet', async (header) => {
    const read = await readSpreadsheet(csv(`Descrição,${header}\nMotor trifásico,motor.pdf\n`), 'x.csv');
    expect(read.columns.fields.sheet?.header).toBe(header);
  });

  it('takes a weak alias ("Anexo") as the sheet only when no stronger header claims it', async () => {
    const alone = await readSpreadsheet(csv('Descrição,Anexo\nMotor,motor.pdf\n'), 'x.csv');
    const beside = await readSpreadsheet(
      csv('Descrição,Ficha técnica,Anexo\nMotor,motor.pdf,nota.pdf\n'),
      'x.csv',
    );
    expect(alone.columns.fields.sheet?.header).toBe('Anexo');
    expect(beside.columns.fields.sheet?.header).toBe('Ficha técnica');
    expect(beside.columns.passthrough.map((ref) => ref.header)).toEqual(['Anexo']);
  });
});

describe('inputWarnings', () => {
  it('is empty for a file read as its sender meant it', async () => {
    const read = await readSpreadsheet(
      csv('Description,Sheet,NCM atual\nBearing,bearing.pdf,84821010\n'),
      'x.csv',
    );
    expect(inputWarnings(read)).toEqual([]);
  });

  it('points at a column the pipeline does not read whose cells look like sheet file names', async () => {
    // Prepare: "Planos" is no alias of the sheet column; its cells are PDF names.
    const read = await readSpreadsheet(
      csv('Descripción,Planos\nRodamiento,rod.pdf\nVálvula,valvula.PDF\nBomba,\n'),
      'catalogo.csv',
    );

    // Act
    const warnings = inputWarnings(read);

    // Assess
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('Column "Planos" (column B) is not read');
    expect(warnings[0]).toContain('rod.pdf, valvula.PDF');
    expect(warnings[0]).toContain('name that column "sheet"');
  });

  it('names the column that is read when a second column of sheet names is ignored', async () => {
    const read = await readSpreadsheet(
      csv('Descrição,Ficha técnica,Planos\nMotor,motor.pdf,motor-plano.pdf\n'),
      'x.csv',
    );
    expect(inputWarnings(read)).toEqual([
      expect.stringContaining('only column "Ficha técnica" (column B) is read as the sheet'),
    ]);
  });

  it('does not take a column of mostly other text for sheet names', async () => {
    const read = await readSpreadsheet(
      csv('Description,Notes\nA,see a.pdf\nB,fragile\nC,heavy\nD,ok\n'),
      'x.csv',
    );
    expect(inputWarnings(read)).toEqual([]);
  });

  it('counts current NCMs that lost their leading zero and shows the first', async () => {
    const read = await readSpreadsheet(
      csv('Descrição,NCM atual\nFrango,84821010\nCarne,2071400\nPeixe,3028900\n'),
      'x.csv',
    );
    expect(inputWarnings(read)).toEqual([
      expect.stringMatching(
        /^2 rows declare a 7-digit NCM in column "NCM atual" \(column B\), the first on row 2 \(2071400\): /,
      ),
    ]);
  });
});
