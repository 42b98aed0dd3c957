/**
 * sample-data/sped-efd.txt is what its README section says: a SPED EFD ICMS/IPI file whose own
 * counts hold (block totals, one 9900 per register, 9999), read by the real reader into the 14
 * items of the README's table, with their declared NCMs, each resolved by the sandbox's classifier
 * as the table says; the declared codes checked against the NCM table the project carries.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxClassifier } from '../../local/sandbox/classifier/index.js';
import { carriedNcmTable } from '../../shared/ncm-table/carried-table.js';
import { BatchOptions } from '../../shared/pipeline/core/batch-options-schema.js';
import { normaliseRow } from '../../shared/spreadsheet/normalise-row.js';
import { readSpreadsheet } from '../../shared/spreadsheet/read-spreadsheet.js';
import type { SpreadsheetRead } from '../../shared/spreadsheet/schemas.js';

const SAMPLE_DIR = fileURLToPath(new URL('../../sample-data/', import.meta.url));
const sampleBytes = (path: string): Buffer => readFileSync(`${SAMPLE_DIR}${path}`);

const ACCEPTED_COUNTRIES: ReadonlySet<string> = new Set(sandboxClassifier.countries.map((c) => c.code));

type ExpectedItem = { sku: string; line: number; description: string; declared: string; resolves: string };

/** `| CAF-0101 | 13 | CAFE … | `09012100` | resolves `0901.21.00` | … |` → an item. */
const readReadmeTable = (): ExpectedItem[] => {
  const readme = sampleBytes('README.md').toString('utf8');
  const section = readme.slice(readme.indexOf('## sped-efd.txt'));
  return section
    .slice(0, section.indexOf('\n## ', 1))
    .split('\n')
    .filter((line) => /^\| [A-Z]{3}-\w+ \| \d+ \|/.test(line))
    .map((line) => {
      const [sku, lineNumber, description, declared, verdict] = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const resolves = /^resolves `([\d.]+)`$/.exec(verdict!);
      if (!resolves) throw new Error(`README: unreadable sandbox verdict "${verdict}"`);
      return {
        sku: sku!,
        line: Number(lineNumber),
        description: description!,
        declared: declared === '(empty)' ? '' : declared!.replace(/`/g, ''),
        resolves: resolves[1]!.replace(/\./g, ''),
      };
    });
};

/** The file's lines as text: Windows-1252 is Latin-1 plus 0x80–0x9F, which the file does not use. */
const fileLines = (): string[] => {
  const text = sampleBytes('sped-efd.txt').toString('latin1');
  return text.slice(0, -2).split('\r\n');
};
const registerOf = (line: string): string => line.slice(1, 5);

let expected: ExpectedItem[];
let read: SpreadsheetRead;

beforeAll(async () => {
  expected = readReadmeTable();
  read = await readSpreadsheet(sampleBytes('sped-efd.txt'), 'sped-efd.txt');
});

describe('sped-efd.txt, the file', () => {
  it('is Windows-1252 with CRLF, opens with 0000 and closes with 9999', () => {
    const bytes = sampleBytes('sped-efd.txt');
    expect(bytes.subarray(0, 6).toString('latin1')).toBe('|0000|');
    expect(bytes.subarray(-2).toString('latin1')).toBe('\r\n');
    // Every LF follows a CR; accents are single bytes (no UTF-8), a few of them.
    expect(bytes.toString('latin1').replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
    expect([...bytes].filter((byte) => byte >= 0x80).length).toBeGreaterThan(10);
    expect(read.encoding).toBe('windows-1252');
    expect(fileLines().at(-1)).toMatch(/^\|9999\|/);
  });

  it('counts its own lines right: each block, each register in 9900, the whole file in 9999', () => {
    const lines = fileLines();
    const registers = lines.map(registerOf);
    // X990: the lines of block X, its opener and itself included.
    for (const closer of lines.filter((line) => /^\|[0-9A-Z]990\|/.test(line))) {
      const block = closer[1]!;
      const counted = registers.filter((register) => register[0] === block).length;
      expect(Number(closer.split('|')[2]), closer).toBe(counted);
    }
    const declared = new Map(
      lines
        .filter((line) => line.startsWith('|9900|'))
        .map((line) => [line.split('|')[2]!, Number(line.split('|')[3])]),
    );
    const actual = new Map<string, number>();
    for (const register of registers) actual.set(register, (actual.get(register) ?? 0) + 1);
    expect(declared).toEqual(actual);
    expect(Number(lines.at(-1)!.split('|')[2])).toBe(lines.length);
  });
});

describe('sped-efd.txt, read', () => {
  it('is described item by item, in order, by the README', () => {
    expect(expected).toHaveLength(14);
    expect(read.format).toBe('sped');
    expect(
      read.rows.map((row) => [row.fields.sku, row.line, row.fields.description, row.fields.current_ncm]),
    ).toEqual(expected.map((item) => [item.sku, item.line, item.description, item.declared]));
  });

  it('says the registers it skipped, as many as the file counts in 9900', () => {
    const lines = fileLines();
    const nine900 = lines
      .filter((line) => line.startsWith('|9900|') && line.split('|')[2] !== '0200')
      .map((line) => [line.split('|')[2]!, Number(line.split('|')[3])] as const);
    const problem = read.problems.find((p) => p.code === 'sped_registers_skipped');
    expect(problem?.said?.params).toMatchObject({ file: 'sped-efd.txt', items: 14 });
    const params = problem!.said!.params as { registers: string[]; counts: number[] };
    expect(new Map(params.registers.map((register, i) => [register, params.counts[i]]))).toEqual(
      new Map(nine900),
    );
    expect(read.problems).toHaveLength(1);
  });

  it("gives 14 valid products with batch.json's operation and country, one flagged for its lost leading zero", () => {
    const options = BatchOptions.parse(JSON.parse(sampleBytes('batch.json').toString('utf8')));
    const outcomes = read.rows.map((row) =>
      normaliseRow(
        row,
        {
          ...(options.operation ? { operation: options.operation } : {}),
          ...(options.country ? { country: options.country } : {}),
        },
        ACCEPTED_COUNTRIES,
        read.columns,
      ),
    );
    const products = outcomes.map((outcome) => (outcome.status === 'valid' ? outcome.product : null));
    expect(products.every((product) => product?.operation === 'import' && product.country === 'BR')).toBe(
      true,
    );
    expect(products.filter((product) => product!.flags.length > 0).map((p) => [p!.sku, p!.flags])).toEqual([
      ['ERV-0102', ['leading_zero_probably_lost']],
    ]);
  });

  it('declares codes in force but one, which Gecex 272/2021 ended, and one left empty', () => {
    const table = carriedNcmTable();
    const declared = expected.filter((item) => item.declared !== '');
    expect(expected.filter((item) => item.declared === '').map((item) => item.sku)).toEqual(['PAP-A4']);
    const notInForce = declared.filter((item) => !table.inForce(item.declared.padStart(8, '0')));
    expect(notInForce.map((item) => [item.sku, item.declared])).toEqual([['CEL-128', '85171231']]);
    const differing = declared.filter((item) => item.declared.padStart(8, '0') !== item.resolves);
    expect(differing.map((item) => item.sku)).toEqual(['PAS-0301', 'PAR-M10', 'CEL-128']);
    for (const item of expected) expect(table.inForce(item.resolves), item.sku).toBe(true);
  });

  it.each(['sandbox', 'sample-data'])('resolves every item as the README says, with seed "%s"', (seed) => {
    for (const [index, row] of read.rows.entries()) {
      const verdict = sandboxClassifier.classify({
        operation: 'import',
        country: 'BR',
        description: row.fields.description ?? null,
        sheetText: null,
        answers: [],
        priorAttempts: 0,
        seed,
        now: new Date('2026-11-21T12:00:00.000Z'),
      });
      expect(verdict.status === 'resolved' ? verdict.chosen_ncm : verdict.status, row.fields.sku).toBe(
        expected[index]!.resolves,
      );
    }
  });
});
