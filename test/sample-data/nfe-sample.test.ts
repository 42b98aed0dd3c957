/**
 * sample-data/notas-fiscais/ and notas-fiscais-2026-10.zip are what their README section says: the
 * ZIP holds exactly the folder's XMLs, byte for byte; both are what make-notas-fiscais.ts writes;
 * the real reader reads the ZIP into the 17 items of six invoices, which are the README table's 11
 * products, each resolved by the sandbox's classifier as the table says, with their declared NCMs
 * checked against the NCM table the project carries.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { unzipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxClassifier } from '../../local/sandbox/classifier/index.js';
import { INVOICES, invoiceFileName } from '../../sample-data/make-notas-fiscais.js';
import { carriedNcmTable } from '../../shared/ncm-table/carried-table.js';
import { BatchOptions } from '../../shared/pipeline/core/batch-options-schema.js';
import { normaliseRow } from '../../shared/spreadsheet/normalise-row.js';
import { readSpreadsheet } from '../../shared/spreadsheet/read-spreadsheet.js';
import type { ProductRow, SpreadsheetRead } from '../../shared/spreadsheet/schemas.js';
import { nfeXml } from '../helpers/nfe-xml.js';

const SAMPLE_DIR = fileURLToPath(new URL('../../sample-data/', import.meta.url));
const FOLDER = join(SAMPLE_DIR, 'notas-fiscais');
const ZIP_NAME = 'notas-fiscais-2026-10.zip';
const ACCEPTED_COUNTRIES: ReadonlySet<string> = new Set(sandboxClassifier.countries.map((c) => c.code));

type ExpectedProduct = {
  sku: string;
  description: string;
  invoices: number[];
  operation: string;
  country: string;
  declared: string;
  resolves: string;
};

/** `| `100231` | ROLAMENTO … | 4101, 4102, 4105 | import · BR | `84821010` | resolves `8482.10.10` | … |` → a product. */
const readReadmeTable = (): ExpectedProduct[] => {
  const readme = readFileSync(join(SAMPLE_DIR, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## notas-fiscais/'));
  return section
    .slice(0, section.indexOf('\n## ', 1))
    .split('\n')
    .filter((line) => /^\| `\d{6}` \|/.test(line))
    .map((line) => {
      const [sku, description, invoices, operationCountry, declared, verdict] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const [operation, country] = operationCountry!.split(' · ');
      const resolves = /^resolves `([\d.]+)`$/.exec(verdict!);
      if (!resolves) throw new Error(`README: unreadable sandbox verdict "${verdict}"`);
      return {
        sku: sku!.replace(/`/g, ''),
        description: description!,
        invoices: invoices!.split(', ').map(Number),
        operation: operation!,
        country: country!,
        declared: declared!.replace(/`/g, ''),
        resolves: resolves[1]!.replace(/\./g, ''),
      };
    });
};

let expected: ExpectedProduct[];
let read: SpreadsheetRead;
let products: ProductRow[];

beforeAll(async () => {
  expected = readReadmeTable();
  read = await readSpreadsheet(readFileSync(join(SAMPLE_DIR, ZIP_NAME)), ZIP_NAME);
  const options = BatchOptions.parse(JSON.parse(readFileSync(join(SAMPLE_DIR, 'batch.json'), 'utf8')));
  products = read.rows.map((row) => {
    const outcome = normaliseRow(row, options, ACCEPTED_COUNTRIES, read.columns);
    if (outcome.status !== 'valid') throw new Error(`row ${row.row} rejected: ${JSON.stringify(outcome)}`);
    return outcome.product;
  });
});

describe('sample-data/notas-fiscais-2026-10.zip', () => {
  it('holds exactly the XMLs of notas-fiscais/, byte for byte', () => {
    const entries = unzipSync(readFileSync(join(SAMPLE_DIR, ZIP_NAME)));
    const files = readdirSync(FOLDER).sort();
    expect(Object.keys(entries).sort()).toEqual(files);
    expect(files).toHaveLength(6);
    for (const file of files) {
      expect(Buffer.from(entries[file]!).equals(readFileSync(join(FOLDER, file))), file).toBe(true);
    }
  });

  it('is what make-notas-fiscais.ts writes', () => {
    for (const spec of INVOICES) {
      expect(readFileSync(join(FOLDER, invoiceFileName(spec)), 'utf8')).toBe(nfeXml(spec));
    }
  });

  it('reads to the 17 items of its six invoices, and says so', () => {
    expect(read.format).toBe('nfe');
    expect(read.rows).toHaveLength(17);
    expect(read.problems.map((problem) => problem.message)).toEqual([`${ZIP_NAME}: 6 NF-e read, 17 items`]);
  });

  it('is the README table: each product on the invoices it names, with its operation, country and declared NCM', () => {
    const cell = (row: number, name: string) => read.rows[row]!.cells[read.header.indexOf(name)]!;
    const invoiceNumber = (row: number) => Number(cell(row, 'chNFe').slice(25, 34));
    for (const product of expected) {
      const rows = products.filter((row) => row.sku === product.sku);
      expect(
        rows.map((row) => invoiceNumber(row.row - 1)),
        product.sku,
      ).toEqual(product.invoices);
      for (const row of rows) {
        expect(row, product.sku).toMatchObject({
          description: product.description,
          operation: product.operation,
          country: product.country,
          current_ncm: product.declared,
        });
      }
    }
    expect(expected.flatMap((product) => product.invoices)).toHaveLength(17);
    // The same product on several invoices: one row each, one product (what decides it is the same).
    const identities = new Set(
      products.map((row) => JSON.stringify([row.sku, row.operation, row.country, row.description])),
    );
    expect(identities.size).toBe(expected.length);
    expect(expected).toHaveLength(11);
  });

  it('has products the sandbox resolves as the README says, and declared NCMs in force but one', () => {
    const table = carriedNcmTable();
    for (const product of expected) {
      const verdict = sandboxClassifier.classify({
        operation: product.operation as 'import' | 'export',
        country: product.country,
        description: product.description,
        sheetText: null,
        answers: [],
        priorAttempts: 0,
        seed: 'sample',
        now: new Date('2026-11-03T12:00:00Z'),
      });
      expect(verdict.status, product.sku).toBe('resolved');
      if (verdict.status === 'resolved') expect(verdict.chosen_ncm, product.sku).toBe(product.resolves);
    }
    const notInForce = expected.filter((product) => !table.inForce(product.declared));
    expect(notInForce.map((product) => [product.sku, product.declared])).toEqual([['400301', '85171231']]);
    const differing = expected.filter((product) => product.declared !== product.resolves);
    expect(differing.map((product) => product.sku)).toEqual(['100417', '400301']);
  });
});
