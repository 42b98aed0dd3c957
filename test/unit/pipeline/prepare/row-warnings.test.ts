/** Warnings before paying: vague descriptions, sheets without a text layer. */
import { readFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import type { RowPlan } from '../../../../shared/pipeline/prepare/row-plans.js';
import { isVagueDescription, rowWarnings } from '../../../../shared/pipeline/prepare/row-warnings.js';
import { pdfHasTextLayer } from '../../../../shared/pipeline/prepare/sheet-text-layer.js';

describe('isVagueDescription', () => {
  it.each([
    'Peças diversas de reposição para manutenção',
    'Repuestos varios para maquinaria agrícola',
    'Kit de ferramentas para oficina mecânica, 46 peças',
    'Material elétrico para instalação predial',
    'Assorted hardware',
    'Spare parts for tractors',
  ])('flags "%s"', (description) => {
    expect(isVagueDescription(description)).toBe(true);
  });

  it.each([
    'Café torrado em grãos, pacote 1 kg',
    'Rodamientos de bolas 6204-2RS',
    'Passenger car tyres 205/55 R16',
    'Pastilha de freio dianteira',
    'Módulo de controle eletrônico para colheitadeira',
    'Leather handbag, Italian calfskin',
  ])('leaves "%s" alone', (description) => {
    expect(isVagueDescription(description)).toBe(false);
  });
});

const sheet = (file_name: string, text_layer: boolean | null) => ({
  key: `inbox/x/${file_name}`,
  sha256: 'a'.repeat(64),
  size: 10,
  file_name,
  text_layer,
});
const valid = (row: number, description: string | null, sheetRef: ReturnType<typeof sheet> | null = null) =>
  ({
    kind: 'valid',
    mapped: { row, line: row + 1, cells: [], fields: {}, passthrough: [] },
    product: {
      description,
      sku: null,
      operation: 'import',
      country: 'BR',
      current_ncm: null,
      external_reference: null,
    },
    sheet: sheetRef,
    identity: { product_key: `k${row}`, fingerprint: `f${row}` },
  }) as unknown as RowPlan;

describe('rowWarnings', () => {
  it('names the column, the rows and an example of vague descriptions, once for all of them', () => {
    const warnings = rowWarnings(
      [
        valid(1, 'Café torrado em grãos'),
        valid(4, 'Peças diversas de reposição'),
        valid(9, 'Repuestos varios'),
      ],
      'Descrição',
    );
    expect(warnings).toEqual([
      expect.stringMatching(
        /^Column "Descrição", rows 4 and 9: the description names a group of things rather than a product \(e\.g\. "Peças diversas de reposição"\)/,
      ),
    ]);
  });

  it('says which scanned sheets will fail for want of a description', () => {
    const scan = sheet('valvula.pdf', false);
    const [warning] = rowWarnings([
      valid(2, null, scan),
      valid(3, 'Válvula esfera de latão 1/2"', scan),
      valid(5, null, sheet('ok.pdf', true)),
    ]);
    expect(warning).toBe(
      'Technical sheet "valvula.pdf" (rows 2 and 3) has no text layer (a scan): the service cannot read it, ' +
        'and row 2 has no description beside it, so it will fail unless you add a description or a PDF with text.',
    );
  });

  it('says nothing about clear rows', () => {
    expect(rowWarnings([valid(1, 'Café torrado em grãos', sheet('ok.pdf', true))])).toEqual([]);
  });
});

describe('pdfHasTextLayer', () => {
  const sample = (name: string) =>
    readFileSync(new URL(`../../../../sample-data/sheets/${name}`, import.meta.url));

  it('tells the sample’s text sheets from its scan', () => {
    expect(pdfHasTextLayer(sample('bomba-submersivel.pdf'))).toBe(true);
    expect(pdfHasTextLayer(sample('rodamiento-6205.pdf'))).toBe(true);
    expect(pdfHasTextLayer(sample('valvula-esfera-digitalizada.pdf'))).toBe(false);
  });

  it('finds a font named only inside a compressed object stream', () => {
    const objects = deflateSync(
      Buffer.from('5 0 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>', 'latin1'),
    );
    const pdf = Buffer.concat([
      Buffer.from(
        '%PDF-1.7\n7 0 obj\n<< /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode >>\nstream\n',
        'latin1',
      ),
      objects,
      Buffer.from('\nendstream\nendobj\n%%EOF\n', 'latin1'),
    ]);
    expect(pdfHasTextLayer(pdf)).toBe(true);
    expect(pdfHasTextLayer(Buffer.from('%PDF-1.7\n1 0 obj << /Encrypt 2 0 R >> endobj\n%%EOF'))).toBeNull();
  });
});
