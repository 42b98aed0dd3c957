/**
 * `notas-fiscais/*.xml` and `notas-fiscais-2026-10.zip`: October 2026's NF-e 4.00 XMLs of a small
 * importer in São Paulo, as its ERP keeps them (authorised `nfeProc` files named by their access
 * keys), and the same files zipped as a month is sent to an accountant. Regenerate with
 * `npx tsx sample-data/make-notas-fiscais.ts`: fixed dates and keys, so the same bytes every time.
 *
 * What the invoices hold, and why (sample-data/README.md, "NF-e invoices", has the table):
 *   - entries of goods bought in Brazil (CFOP 1102, 2102), one import from China (CFOP 3102, the
 *     supplier abroad with idEstrangeiro and cPais 1600), one export to Argentina (CFOP 7101, cPais
 *     0639) and one sale in São Paulo (CFOP 5102);
 *   - items the sandbox resolves, several on more than one invoice (same cProd and xProd): their
 *     rows are one product, classified once;
 *   - declared NCMs: most what the sandbox answers; the bolt's `73181600` (nuts) differs from its
 *     verdict `73181500`; the smartphone's `85171231` is no longer in force (Resolução Gecex
 *     272/2021 ended 8517.12 on 1 April 2022, smartphones are 8517.13.00).
 */
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { addWholeEntry, finishZip, startZip } from '../shared/spreadsheet/zip-in-legs.js';
import {
  accessKey,
  cnpj,
  type NfeItemSpec,
  type NfeParty,
  type NfeSpec,
  nfeXml,
} from '../test/helpers/nfe-xml.js';

export const INVOICES_FOLDER = fileURLToPath(new URL('./notas-fiscais/', import.meta.url));
export const INVOICES_ZIP = fileURLToPath(new URL('./notas-fiscais-2026-10.zip', import.meta.url));

/** The entries' date in the ZIP: the day the month's XMLs were zipped. */
const ZIPPED_AT = new Date('2026-11-03T09:00:00Z');

const IMPORTER: NfeParty & { cnpj: string } = {
  cnpj: cnpj('123456780001'),
  xNome: 'PAULISTA IMPORTADORA E COMERCIO LTDA',
  ie: '111222333444',
};

const SUPPLIER_SP: NfeParty = {
  cnpj: cnpj('987654320001'),
  xNome: 'ROLAMENTOS E FIXADORES SAO JOSE LTDA',
  ie: '110042490114',
  address: {
    xLgr: 'RUA DOS ANDRADAS',
    nro: '455',
    xBairro: 'SANTA IFIGENIA',
    cMun: '3550308',
    xMun: 'SAO PAULO',
    UF: 'SP',
    CEP: '01208001',
  },
  cPais: '1058',
  xPais: 'BRASIL',
};

const SUPPLIER_MG: NfeParty = {
  cnpj: cnpj('334455660001'),
  xNome: 'MOTORES E EMBALAGENS CONTAGEM LTDA',
  ie: '1860123450081',
  address: {
    xLgr: 'AVENIDA JOAO CESAR DE OLIVEIRA',
    nro: '2100',
    xBairro: 'ELDORADO',
    cMun: '3118601',
    xMun: 'CONTAGEM',
    UF: 'MG',
    CEP: '32310000',
  },
  cPais: '1058',
  xPais: 'BRASIL',
};

const SUPPLIER_CN: NfeParty = {
  idEstrangeiro: '91330206MA2H7X0Q1K',
  xNome: 'NINGBO HUAXIN ELECTRIC APPLIANCE CO LTD',
  address: {
    xLgr: 'NO 88 BINHAI ROAD',
    nro: '88',
    xBairro: 'BEILUN DISTRICT',
    cMun: '9999999',
    xMun: 'EXTERIOR',
    UF: 'EX',
  },
  cPais: '1600',
  xPais: 'CHINA, REPUBLICA POPULAR',
};

const BUYER_AR: NfeParty = {
  idEstrangeiro: '30712345671',
  xNome: 'DISTRIBUIDORA DEL PLATA S.A.',
  address: {
    xLgr: 'AVENIDA CORRIENTES',
    nro: '1200',
    xBairro: 'SAN NICOLAS',
    cMun: '9999999',
    xMun: 'EXTERIOR',
    UF: 'EX',
  },
  cPais: '0639',
  xPais: 'ARGENTINA',
};

const CUSTOMER_SP: NfeParty = {
  cnpj: cnpj('556677880001'),
  xNome: 'OFICINA MECANICA VILA MARIANA LTDA',
  ie: '110987654110',
  address: {
    xLgr: 'RUA DOMINGOS DE MORAIS',
    nro: '1540',
    xBairro: 'VILA MARIANA',
    cMun: '3550308',
    xMun: 'SAO PAULO',
    UF: 'SP',
    CEP: '04010100',
  },
  cPais: '1058',
  xPais: 'BRASIL',
};

/** A GTIN-13 with its check digit (weights 1 and 3 from the left). */
const gtin = (twelveDigits: string): string => {
  const sum = [...twelveDigits].reduce((total, digit, i) => total + Number(digit) * (i % 2 === 0 ? 1 : 3), 0);
  return twelveDigits + String((10 - (sum % 10)) % 10);
};

/** The importer's items as its ERP codes them: `cProd`, `xProd`, `NCM` (and GTIN) stay the same on every invoice. */
const BEARING = {
  cProd: '100231',
  cEAN: gtin('789840651023'),
  xProd: 'ROLAMENTO DE ESFERAS 6204-2RS',
  NCM: '84821010',
  uCom: 'UN',
};
const BOLT = { cProd: '100417', xProd: 'PARAFUSO SEXTAVADO M10 COM PORCA', NCM: '73181600', uCom: 'CT' };
const SCREWDRIVER = {
  cProd: '100522',
  cEAN: gtin('789143501220'),
  xProd: 'CHAVE DE FENDA PHILIPS PH2',
  NCM: '82054000',
  uCom: 'UN',
};
const MOTOR = {
  cProd: '200114',
  xProd: 'MOTOR ELETRICO TRIFASICO 5 CV 4 POLOS',
  NCM: '85015210',
  uCom: 'UN',
};
const BAGS = { cProd: '300078', xProd: 'SACOS PLASTICOS DE POLIETILENO 40X60', NCM: '39232190', uCom: 'PCT' };
const SMARTPHONE = { cProd: '400301', xProd: 'SMARTPHONE 128 GB TELA 6.5', NCM: '85171231', uCom: 'UN' };
const LED = {
  cProd: '400118',
  cEAN: gtin('789987140118'),
  xProd: 'LAMPADA LED 9W E27 BIVOLT',
  NCM: '85395200',
  uCom: 'UN',
};
const PUMP = {
  cProd: '400207',
  xProd: 'BOMBA SUBMERSIVEL PARA POCO ARTESIANO 1CV',
  NCM: '84137010',
  uCom: 'UN',
};
const COFFEE = {
  cProd: '500012',
  cEAN: gtin('789600580012'),
  xProd: 'CAFE TORRADO EM GRAOS 1KG',
  NCM: '09012100',
  uCom: 'KG',
};
const T_SHIRT = { cProd: '500233', xProd: 'CAMISETA 100% ALGODAO MANGA CURTA', NCM: '61091000', uCom: 'UN' };
const BRAKE_PADS = { cProd: '600045', xProd: 'PASTILHA DE FREIO DIANTEIRA', NCM: '87083090', uCom: 'JG' };

type Item = Omit<NfeItemSpec, 'CFOP' | 'qCom' | 'vUnCom'>;
const line = (item: Item, CFOP: string, qCom: string, vUnCom: string): NfeItemSpec => ({
  ...item,
  CFOP,
  qCom,
  vUnCom,
});

const invoice = (
  nNF: number,
  dhEmi: string,
  natOp: string,
  tpNF: '0' | '1',
  dest: NfeParty,
  items: NfeItemSpec[],
): NfeSpec => ({
  cUF: '35',
  dhEmi,
  nNF,
  cNF: String(38_000_000 + nNF * 7919).padStart(8, '0'),
  natOp,
  tpNF,
  emit: IMPORTER,
  dest,
  items,
});

/**
 * The month's invoices, all issued by the importer: entries (tpNF 0) for goods it received, the
 * import's own entry, the export and a sale (tpNF 1).
 */
export const INVOICES: readonly NfeSpec[] = [
  invoice(4101, '2026-10-02T09:12:00-03:00', 'COMPRA PARA COMERCIALIZACAO', '0', SUPPLIER_SP, [
    line(BEARING, '1102', '200', '12.90'),
    line(BOLT, '1102', '50', '38.40'),
    line(SCREWDRIVER, '1102', '120', '9.75'),
  ]),
  invoice(4102, '2026-10-06T14:30:00-03:00', 'COMPRA PARA COMERCIALIZACAO', '0', SUPPLIER_MG, [
    line(MOTOR, '2102', '6', '1890.00'),
    line(BEARING, '2102', '100', '13.10'),
    line(BAGS, '2102', '80', '24.50'),
  ]),
  invoice(4103, '2026-10-09T10:05:00-03:00', 'IMPORTACAO DE MERCADORIAS', '0', SUPPLIER_CN, [
    line(SMARTPHONE, '3102', '40', '845.00'),
    line(LED, '3102', '2000', '3.15'),
    line(PUMP, '3102', '15', '612.00'),
  ]),
  invoice(4104, '2026-10-15T16:40:00-03:00', 'VENDA DE MERCADORIA PARA O EXTERIOR', '1', BUYER_AR, [
    line(COFFEE, '7101', '500', '48.00'),
    line(T_SHIRT, '7101', '300', '29.90'),
  ]),
  invoice(4105, '2026-10-21T11:20:00-03:00', 'VENDA DE MERCADORIA', '1', CUSTOMER_SP, [
    line(BEARING, '5102', '40', '24.90'),
    line(BOLT, '5102', '10', '69.90'),
    line(MOTOR, '5102', '1', '2990.00'),
  ]),
  invoice(4106, '2026-10-28T08:55:00-03:00', 'COMPRA PARA COMERCIALIZACAO', '0', SUPPLIER_SP, [
    line(SCREWDRIVER, '1102', '60', '9.75'),
    line(BAGS, '1102', '40', '23.90'),
    line(BRAKE_PADS, '1102', '30', '64.00'),
  ]),
];

/** An authorised invoice's file name, as SEFAZ and ERPs name them: its access key and `-procNFe`. */
export const invoiceFileName = (spec: NfeSpec): string => `${accessKey(spec)}-procNFe.xml`;

const main = (): void => {
  rmSync(INVOICES_FOLDER, { recursive: true, force: true });
  mkdirSync(INVOICES_FOLDER, { recursive: true });
  let zip = startZip(ZIPPED_AT);
  const parts: Buffer[] = [];
  for (const spec of INVOICES) {
    const name = invoiceFileName(spec);
    const xml = nfeXml(spec);
    writeFileSync(join(INVOICES_FOLDER, name), xml);
    const step = addWholeEntry(zip, name, xml);
    parts.push(step.bytes);
    zip = step.zip;
  }
  parts.push(finishZip(zip));
  writeFileSync(INVOICES_ZIP, Buffer.concat(parts));
  console.log(`${readdirSync(INVOICES_FOLDER).length} XMLs in ${INVOICES_FOLDER}, zipped in ${INVOICES_ZIP}`);
};

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) main();
