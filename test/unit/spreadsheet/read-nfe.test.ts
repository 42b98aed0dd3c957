/**
 * NF-e XMLs, one file or a ZIP of a month of them, read as a catalogue: each item a row under the
 * NF-e's own field names, its operation and country read from its CFOP and the foreign party's
 * BACEN country code, what is not an invoice skipped and named, and every hostile or damaged file
 * refused naming the file (and the ZIP's entry) and why. XML and ZIP bytes made here.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { strToU8, zipSync } from 'fflate';
import { afterAll, describe, expect, it } from 'vitest';
import { isoCountryOfBacen } from '../../../shared/spreadsheet/bacen-countries.js';
import { bytesSource } from '../../../shared/spreadsheet/byte-source.js';
import { SpreadsheetError } from '../../../shared/spreadsheet/errors.js';
import { NFE_COLUMNS } from '../../../shared/spreadsheet/nfe-invoice.js';
import { normaliseRow } from '../../../shared/spreadsheet/normalise-row.js';
import { isInvoiceArchive, looksLikeXml } from '../../../shared/spreadsheet/read-nfe.js';
import {
  openSpreadsheet,
  readSpreadsheet,
  readWholeFile,
} from '../../../shared/spreadsheet/read-spreadsheet.js';
import type { ProductRow, SpreadsheetRead } from '../../../shared/spreadsheet/schemas.js';
import { wordMessage } from '../../../shared/wording/index.js';
import { accessKey, cancellationEventXml, cnpj, type NfeSpec, nfeXml } from '../../helpers/nfe-xml.js';
import { ACCEPTED_COUNTRIES, thrown } from './fixtures.js';

const IMPORTER = { cnpj: cnpj('123456780001'), xNome: 'PAULISTA IMPORTADORA LTDA' };
const SUPPLIER = {
  cnpj: cnpj('987654320001'),
  xNome: 'TORREFACAO SAO JOSE LTDA',
  cPais: '1058',
  xPais: 'BRASIL',
};

/** An import from China (CFOP 3102) and a purchase in Brazil (CFOP 1102) on one invoice, as a test needs both. */
const importSpec = (overrides: Partial<NfeSpec> = {}): NfeSpec => ({
  cUF: '35',
  dhEmi: '2026-10-05T10:15:00-03:00',
  nNF: 1520,
  cNF: '10000152',
  natOp: 'COMPRA PARA COMERCIALIZACAO',
  tpNF: '0',
  emit: IMPORTER,
  dest: {
    idEstrangeiro: 'CN91440300',
    xNome: 'NINGBO PUMPS CO LTD',
    cPais: '1600',
    xPais: 'CHINA, REPUBLICA POPULAR',
  },
  items: [
    {
      cProd: 'BOM-0207',
      xProd: 'BOMBA SUBMERSIVEL PARA POCO ARTESIANO 1CV',
      NCM: '84137010',
      CFOP: '3102',
      uCom: 'UN',
      qCom: '20',
      vUnCom: '850',
    },
    {
      cProd: 'CAF-0101',
      cEAN: '7891234567895',
      xProd: 'CAFE TORRADO EM GRAOS 1KG',
      NCM: '09012100',
      CEST: '1709600',
      CFOP: '1102',
      uCom: 'KG',
      qCom: '50',
      vUnCom: '42.5',
    },
  ],
  ...overrides,
});

const purchaseSpec = (nNF: number, items: NfeSpec['items']): NfeSpec => ({
  ...importSpec(),
  nNF,
  cNF: String(20000000 + nNF),
  emit: SUPPLIER,
  dest: { ...IMPORTER, cPais: '1058', xPais: 'BRASIL' },
  items,
});

const BEARING = {
  cProd: 'ROL-6204',
  xProd: 'ROLAMENTO DE ESFERAS 6204-2RS',
  NCM: '84821010',
  CFOP: '2102',
  uCom: 'UN',
  qCom: '100',
  vUnCom: '12.9',
};

const column = (read: SpreadsheetRead, name: string, row: number): string =>
  read.rows[row]!.cells[read.header.indexOf(name)]!;

const zip = (entries: Record<string, string | Uint8Array>): Uint8Array =>
  zipSync(
    Object.fromEntries(
      Object.entries(entries).map(([name, data]) => [
        name,
        [typeof data === 'string' ? strToU8(data) : data, { mtime: new Date('2026-11-01T12:00:00Z') }],
      ]),
    ),
  );

const refusal = async (bytes: Uint8Array, fileName: string): Promise<SpreadsheetError> => {
  const error = await thrown(() => readSpreadsheet(bytes, fileName));
  expect(error).toBeInstanceOf(SpreadsheetError);
  return error as SpreadsheetError;
};

const product = (read: SpreadsheetRead, row: number, defaults = {}): ProductRow => {
  const outcome = normaliseRow(read.rows[row]!, defaults, ACCEPTED_COUNTRIES, read.columns);
  if (outcome.status !== 'valid') throw new Error(`row ${row + 1} was rejected: ${JSON.stringify(outcome)}`);
  return outcome.product;
};

describe('one NF-e XML', () => {
  const xml = nfeXml(importSpec());
  const key = accessKey(importSpec());

  it('reads each item as a row under the NF-e field names, with the pipeline columns mapped', async () => {
    const read = await readSpreadsheet(
      Buffer.from(xml),
      'NFe35261012345678000195550010000015201100001520.xml',
    );
    expect(read.format).toBe('nfe');
    expect(read.header).toEqual([...NFE_COLUMNS]);
    expect(read.header).toEqual([
      'chNFe',
      'nItem',
      'dhEmi',
      'tpNF',
      'emit_CNPJ',
      'emit_xNome',
      'dest_xNome',
      'dest_xPais',
      'cProd',
      'cEAN',
      'xProd',
      'NCM',
      'CEST',
      'EXTIPI',
      'CFOP',
      'uCom',
      'qCom',
      'vUnCom',
      'vProd',
      'operação',
      'país',
    ]);
    const mapped = Object.fromEntries(
      Object.entries(read.columns.fields).map(([field, ref]) => [field, ref.header]),
    );
    expect(mapped).toEqual({
      sku: 'cProd',
      description: 'xProd',
      current_ncm: 'NCM',
      operation: 'operação',
      country: 'país',
    });
    expect(read.rows).toHaveLength(2);
    expect(key).toMatch(/^\d{44}$/);
    expect(column(read, 'chNFe', 0)).toBe(key);
    expect(read.rows.map((row) => column(read, 'nItem', row.row - 1))).toEqual(['1', '2']);
    expect(column(read, 'dhEmi', 0)).toBe('2026-10-05T10:15:00-03:00');
    expect(column(read, 'tpNF', 0)).toBe('0');
    expect(column(read, 'emit_CNPJ', 0)).toBe(IMPORTER.cnpj);
    expect(column(read, 'dest_xNome', 0)).toBe('NINGBO PUMPS CO LTD');
    expect(column(read, 'cEAN', 1)).toBe('7891234567895');
    expect(column(read, 'CEST', 1)).toBe('1709600');
    expect(column(read, 'vProd', 0)).toBe('17000.00');
    // The import item is an import from China; the purchase in Brazil says neither.
    expect([column(read, 'operação', 0), column(read, 'país', 0)]).toEqual(['importação', 'CN']);
    expect([column(read, 'operação', 1), column(read, 'país', 1)]).toEqual(['', '']);
    expect(read.problems).toEqual([]);
  });

  it('gives each item the line of its <det> in the XML', async () => {
    const read = await readSpreadsheet(Buffer.from(xml), 'nota.xml');
    const lines = xml.split('\n');
    for (const row of read.rows) {
      expect(lines[row.line - 1]).toContain(`<det nItem="${row.row}">`);
    }
  });

  it("normalises to ProductRows: the import item with its operation and country, the domestic one with batch.json's", async () => {
    const read = await readSpreadsheet(Buffer.from(xml), 'nota.xml');
    const defaults = { operation: 'export' as const, country: 'BR' };
    expect(product(read, 0, defaults)).toMatchObject({
      sku: 'BOM-0207',
      description: 'BOMBA SUBMERSIVEL PARA POCO ARTESIANO 1CV',
      current_ncm: '84137010',
      operation: 'import',
      country: 'CN',
    });
    expect(product(read, 1, defaults)).toMatchObject({
      sku: 'CAF-0101',
      description: 'CAFE TORRADO EM GRAOS 1KG',
      current_ncm: '09012100',
      operation: 'export',
      country: 'BR',
      flags: [],
    });
  });

  it('reads an export (CFOP 7101) to Argentina as an export with country AR', async () => {
    const spec = importSpec({
      tpNF: '1',
      emit: IMPORTER,
      dest: {
        idEstrangeiro: '30712345678',
        xNome: 'DISTRIBUIDORA DEL PLATA SA',
        cPais: '639',
        xPais: 'ARGENTINA',
      },
      items: [{ ...BEARING, CFOP: '7101' }],
    });
    const read = await readSpreadsheet(Buffer.from(nfeXml(spec)), 'exportacao.xml');
    expect([column(read, 'operação', 0), column(read, 'país', 0)]).toEqual(['exportação', 'AR']);
    expect(product(read, 0)).toMatchObject({ operation: 'export', country: 'AR' });
  });

  it('reads an NF-e with no nfeProc, unsigned, with prefixed names, and one declared ISO-8859-1', async () => {
    const bare = nfeXml(importSpec({ authorised: false, signed: false }));
    expect((await readSpreadsheet(Buffer.from(bare), 'bare.xml')).rows).toHaveLength(2);

    const prefixed = nfeXml(importSpec())
      .replace(/<(\/?)(?!\?)([A-Za-z])/g, '<$1nfe:$2')
      .replace('<nfe:nfeProc xmlns=', '<nfe:nfeProc xmlns:nfe=');
    expect(prefixed).toContain('<nfe:det nItem="1">');
    const read = await readSpreadsheet(Buffer.from(prefixed), 'prefixed.xml');
    expect(read.rows.map((row) => column(read, 'cProd', row.row - 1))).toEqual(['BOM-0207', 'CAF-0101']);

    const latin = nfeXml(importSpec())
      .replace('encoding="UTF-8"', 'encoding="ISO-8859-1"')
      .replace('CAFE TORRADO EM GRAOS 1KG', 'CAFÉ TORRADO EM GRÃOS 1KG');
    const latinRead = await readSpreadsheet(Buffer.from(latin, 'latin1'), 'latin.xml');
    expect(column(latinRead, 'xProd', 1)).toBe('CAFÉ TORRADO EM GRÃOS 1KG');

    const utf16 = Buffer.concat([
      Buffer.from([0xff, 0xfe]),
      Buffer.from(latin.replace('ISO-8859-1', 'UTF-16'), 'utf16le'),
    ]);
    expect(column(await readSpreadsheet(utf16, 'utf16.xml'), 'xProd', 1)).toBe('CAFÉ TORRADO EM GRÃOS 1KG');
  });

  it("says an import whose foreign country code is not in BACEN's table, and leaves its país empty", async () => {
    const spec = importSpec({ dest: { ...importSpec().dest, cPais: '9946', xPais: 'A DESIGNAR' } });
    const read = await readSpreadsheet(Buffer.from(nfeXml(spec)), 'nota.xml');
    expect(column(read, 'país', 0)).toBe('');
    const problem = read.problems.find((p) => p.code === 'nfe_country_unknown');
    expect(problem?.message).toBe(
      `nota.xml: the NF-e ${accessKey(spec)} is an import or export, but the foreign party's country code "9946" ` +
        "(A DESIGNAR) is not in BACEN's table of countries; its items' country is left empty, so batch.json's country applies",
    );
    expect(wordMessage(problem!.said!, 'pt')).toContain('não está na tabela de países do BACEN');
  });

  it('refuses an XML that is not an NF-e, naming its root', async () => {
    const error = await refusal(Buffer.from(cancellationEventXml(accessKey(importSpec()))), 'evento.xml');
    expect(error.code).toBe('nfe_not_an_invoice');
    expect(error.message).toMatch(
      /^evento\.xml: is an XML but not an NF-e \(its root element is <procEventoNFe>/,
    );
    expect(error.details).toEqual({ root: 'procEventoNFe' });
  });

  it('refuses XML that is not well-formed', async () => {
    const cut = xml.slice(0, xml.indexOf('<det nItem="2">') + 30);
    const error = await refusal(Buffer.from(cut), 'cortada.xml');
    expect(error.code).toBe('nfe_xml_malformed');
    expect(error.message).toMatch(
      /^cortada\.xml: the XML is damaged \(.+\); download the invoice's XML again$/,
    );
  });
});

describe('an XML entity', () => {
  const folder = mkdtempSync(join(tmpdir(), 'nfe-entity-'));
  afterAll(() => rmSync(folder, { recursive: true, force: true }));
  const secret = 'SEGREDO-DO-SERVIDOR-8c1f2b';
  const secretFile = join(folder, 'segredo.txt');
  writeFileSync(secretFile, secret);
  const hostile = nfeXml(importSpec())
    .replace(
      '<nfeProc',
      `<!DOCTYPE nfeProc [<!ENTITY xxe SYSTEM "file://${secretFile}"><!ENTITY casa "${'&xxe;'.repeat(3)}">]>\n<nfeProc`,
    )
    .replace('BOMBA SUBMERSIVEL PARA POCO ARTESIANO 1CV', '&xxe; &casa;');

  it('is refused before anything is expanded, and the file it points at is read nowhere', async () => {
    const error = await refusal(Buffer.from(hostile), 'nota.xml');
    expect(error.code).toBe('nfe_entity_declared');
    expect(error.message).toBe(
      'nota.xml: the XML declares an entity (<!DOCTYPE …>), which an NF-e never holds; it is refused so no ' +
        'entity is ever expanded or fetched',
    );
    const everything = JSON.stringify({
      message: error.message,
      details: error.details,
      cause: String(error.cause),
    });
    expect(everything).not.toContain(secret);
  });

  it('is refused inside a ZIP too, naming the entry', async () => {
    const bytes = zip({ '01.xml': nfeXml(importSpec()), '02.xml': hostile });
    const error = await refusal(bytes, 'notas.zip');
    expect(error.code).toBe('nfe_entity_declared');
    expect(error.details).toEqual({ part: '02.xml' });
    expect(error.message).not.toContain(secret);
    expect(
      wordMessage(
        {
          code: 'file_refused',
          params: { reason: error.code, file: 'notas.zip', text: error.message, ...error.details },
        },
        'pt',
      ),
    ).toBe(
      'notas.zip: 02.xml: o XML declara uma entidade (<!DOCTYPE …>), o que uma NF-e nunca tem; ele é recusado para ' +
        'que nenhuma entidade seja expandida ou buscada',
    );
  });
});

describe('a ZIP of invoices', () => {
  const first = importSpec();
  const second = purchaseSpec(88, [
    BEARING,
    { ...BEARING, cProd: 'PAR-M10', xProd: 'PARAFUSO SEXTAVADO M10 COM PORCA', NCM: '73181500' },
  ]);
  const third = purchaseSpec(91, [{ ...BEARING, qCom: '40', vUnCom: '13.1' }]);

  it('reads every item of every invoice, in order, and says what it read', async () => {
    const bytes = zip({
      'out/01.xml': nfeXml(first),
      'out/02.xml': nfeXml(second),
      'out/03.xml': nfeXml(third),
    });
    const read = await readSpreadsheet(bytes, 'notas-2026-10.zip');
    expect(read.format).toBe('nfe');
    expect(read.rows.map((row) => column(read, 'cProd', row.row - 1))).toEqual([
      'BOM-0207',
      'CAF-0101',
      'ROL-6204',
      'PAR-M10',
      'ROL-6204',
    ]);
    expect(read.problems.map((p) => p.message)).toEqual(['notas-2026-10.zip: 3 NF-e read, 5 items']);
  });

  it('keeps the same product on two invoices as two rows, identical in what decides the product', async () => {
    const read = await readSpreadsheet(
      zip({ '01.xml': nfeXml(first), '02.xml': nfeXml(second), '03.xml': nfeXml(third) }),
      'notas.zip',
    );
    const [onSecond, onThird] = [
      product(read, 2, { operation: 'import', country: 'BR' }),
      product(read, 4, { operation: 'import', country: 'BR' }),
    ];
    const decides = ({ description, operation, country, sheet, current_ncm, sku }: ProductRow) => ({
      description,
      operation,
      country,
      sheet,
      current_ncm,
      sku,
    });
    expect(decides(onSecond)).toEqual(decides(onThird));
    expect(column(read, 'chNFe', 2)).not.toBe(column(read, 'chNFe', 4));
    expect(column(read, 'qCom', 2)).not.toBe(column(read, 'qCom', 4));
  });

  it('skips an event XML, a PDF and a folder, and names the files in its notice', async () => {
    const bytes = zip({
      'outubro/': new Uint8Array(0),
      'outubro/01.xml': nfeXml(first),
      'outubro/01-cancelamento.xml': cancellationEventXml(accessKey(first)),
      'outubro/danfe-01.pdf': strToU8('%PDF-1.4\n% danfe\n'),
      'outubro/02.xml': nfeXml(second),
    });
    const read = await readSpreadsheet(bytes, 'notas.zip');
    expect(read.rows).toHaveLength(4);
    const notice = read.problems.find((p) => p.code === 'nfe_documents_read')!;
    expect(notice.message).toBe(
      'notas.zip: 2 NF-e read, 4 items; skipped as not NF-e: "outubro/01-cancelamento.xml", "outubro/danfe-01.pdf"',
    );
    expect(wordMessage(notice.said!, 'pt')).toBe(
      'notas.zip: 2 NF-e lidas, 4 itens; pulados por não serem NF-e: "outubro/01-cancelamento.xml" e "outubro/danfe-01.pdf"',
    );
    expect(wordMessage(notice.said!, 'es')).toContain('omitidos por no ser NF-e');
  });

  it('is refused as zip_no_invoices when it holds none, naming what it holds', async () => {
    const bytes = zip({
      'leia-me.txt': 'notas de outubro',
      'evento.xml': cancellationEventXml(accessKey(first)),
    });
    const error = await refusal(bytes, 'notas.zip');
    expect(error.code).toBe('zip_no_invoices');
    expect(error.message).toBe(
      'notas.zip: is a ZIP file with no NF-e XML and no workbook in it (it holds "leia-me.txt", "evento.xml"); ' +
        'upload the invoices’ XMLs zipped, or the spreadsheet',
    );
    expect(error.details).toEqual({ found: ['leia-me.txt', 'evento.xml'], more: 0 });
  });

  it('is refused as zip_damaged when cut short, named .zip, instead of as a bad workbook', async () => {
    const bytes = zip({ '01.xml': nfeXml(first), '02.xml': nfeXml(second) });
    const cut = bytes.subarray(0, Math.floor(bytes.length * 0.7));
    expect(await isInvoiceArchive(bytesSource(cut), 'notas.zip')).toBe(true);
    expect(await isInvoiceArchive(bytesSource(cut), 'catalogo.xlsx')).toBe(false);
    const error = await refusal(cut, 'notas.zip');
    expect(error.code).toBe('zip_damaged');
    expect(error.message).toBe(
      'notas.zip: the ZIP file is damaged (its directory cannot be read: the file is cut short, or it is not a ' +
        'ZIP archive); zip the XMLs again and upload it',
    );
  });

  it('is refused as zip_damaged, naming the entry, when an entry does not inflate', async () => {
    const bytes = Buffer.from(zip({ '01.xml': nfeXml(first), '02.xml': nfeXml(second) }));
    // The second entry's deflated bytes, after its local header (30 bytes and its 6-byte name), overwritten.
    const secondEntry = bytes.indexOf(Buffer.from('PK\x03\x04'), 4);
    bytes.fill(0xff, secondEntry + 36 + 10, secondEntry + 36 + 60);
    const error = await refusal(bytes, 'notas.zip');
    expect(error.code).toBe('zip_damaged');
    expect(error.details).toMatchObject({ part: '02.xml' });
    expect(error.message).toMatch(/^notas\.zip: the ZIP file is damaged at 02\.xml \(/);
  });

  it.each([
    ['less', -100, 'longer', /it inflates past the [\d,]+ bytes the directory says/],
    ['more', 100, 'shorter', /it inflates to [\d,]+ bytes where the directory says [\d,]+: it is cut short/],
  ])(
    'is refused as zip_damaged when its directory declares %s than an entry inflates to',
    async (_, change, damage, said) => {
      const bytes = Buffer.from(zip({ '01.xml': nfeXml(first) }));
      const central = bytes.indexOf(Buffer.from('PK\x01\x02'));
      bytes.writeUInt32LE(bytes.readUInt32LE(central + 24) + change, central + 24);
      const error = await refusal(bytes, 'notas.zip');
      expect(error.code).toBe('zip_damaged');
      expect(error.details).toMatchObject({ part: '01.xml', damage });
      expect(error.message).toMatch(said);
      expect(
        wordMessage(
          {
            code: 'file_refused',
            params: { reason: error.code, file: 'notas.zip', text: error.message, ...error.details },
          },
          'pt',
        ),
      ).toMatch(
        /^notas\.zip: o arquivo ZIP está danificado em 01\.xml \(descompacta em (mais|menos) bytes do que o diretório do ZIP diz/,
      );
    },
  );

  it('is refused naming the entry when an XML in it is not well-formed', async () => {
    const bytes = zip({ '01.xml': nfeXml(first), '02.xml': nfeXml(second).replace('</det>', '</dt>') });
    const error = await refusal(bytes, 'notas.zip');
    expect(error.code).toBe('nfe_xml_malformed');
    expect(error.details).toMatchObject({ part: '02.xml' });
  });

  it('refuses an XML entry larger than any invoice, before reading it whole', async () => {
    const padding = `<!-- ${'x'.repeat(11 * 1024 * 1024)} -->`;
    const bytes = zip({ '01.xml': nfeXml(first).replace('<nfeProc', `${padding}\n<nfeProc`) });
    const error = await refusal(bytes, 'notas.zip');
    expect(error.code).toBe('nfe_too_large');
    expect(error.details).toEqual({ part: '01.xml', limit_mb: 10 });
  });

  it('is read afresh on each pass, with its notice once per pass', async () => {
    const file = await openSpreadsheet(
      bytesSource(zip({ '01.xml': nfeXml(first), '02.xml': nfeXml(third) })),
      'notas.zip',
    );
    for (let pass = 0; pass < 3; pass++) {
      const read = await readWholeFile(file);
      expect(read.rows).toHaveLength(3);
      expect(read.problems.filter((p) => p.code === 'nfe_documents_read')).toHaveLength(1);
    }
  });

  it('is a workbook, not invoices, when it holds [Content_Types].xml', async () => {
    const workbookLike = zip({ '[Content_Types].xml': '<Types/>', 'xl/workbook.xml': '<workbook/>' });
    expect(await isInvoiceArchive(bytesSource(workbookLike), 'catalogo.zip')).toBe(false);
    expect(await isInvoiceArchive(bytesSource(zip({ '01.xml': nfeXml(first) })), 'notas.zip')).toBe(true);
  });
});

describe('what tells an XML and a country', () => {
  it('knows an XML by its declaration or an NF-e root, and a text file is not one', () => {
    expect(looksLikeXml(Buffer.from('\uFEFF<?xml version="1.0"?><nfeProc/>'))).toBe(true);
    expect(looksLikeXml(Buffer.from('<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe">'))).toBe(true);
    expect(looksLikeXml(Buffer.from('<procEventoNFe versao="1.00">'))).toBe(true);
    expect(looksLikeXml(Buffer.from('SKU;Descrição;NCM\r\n'))).toBe(false);
    expect(looksLikeXml(Buffer.from('<html><body>'))).toBe(false);
  });

  it("reads BACEN's codes for the countries Brazil trades most with, with or without leading zeros", () => {
    const codes: Record<string, string> = {
      '1058': 'BR',
      '0639': 'AR',
      '639': 'AR',
      '5860': 'PY',
      '8451': 'UY',
      '0973': 'BO',
      '1589': 'CL',
      '1600': 'CN',
      '2496': 'US',
      '0230': 'DE',
      '3999': 'JP',
      '1902': 'KR',
      '3611': 'IN',
      '4936': 'MX',
      '5738': 'NL',
      '6289': 'GB',
      '1490': 'CA',
    };
    for (const [code, iso] of Object.entries(codes))
      expect([code, isoCountryOfBacen(code)]).toEqual([code, iso]);
    expect(isoCountryOfBacen('9946')).toBeNull();
    expect(isoCountryOfBacen('')).toBeNull();
  });
});
