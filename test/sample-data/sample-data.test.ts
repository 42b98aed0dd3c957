/**
 * sample-data/ holds what its README says: the table of rows and statuses there is parsed
 * and checked against the real reader, the real Prepare step (budget, sheets, reuse) and the
 * sandbox's classifier, so an edit to the catalogue, the sheets or the sandbox that changes
 * an outcome fails here rather than in someone's first run.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { sandboxClassifier } from '../../local/sandbox/classifier/index.js';
import { extractPdfText } from '../../local/sandbox/pdf/sheet-text.js';
import {
  RESENT_SHEET,
  renderSheets,
  renderTextSheet,
  SCANNED_SHEET,
  TEXT_SHEETS,
} from '../../sample-data/make-sheets.js';
import { PRICE_HEADER, ptBrNumber, toExcelPtBr } from '../../sample-data/make-variants.js';
import { BatchOptions } from '../../shared/pipeline/core/batch-options-schema.js';
import type { ClassificationService } from '../../shared/pipeline/core/ports.js';
import type { RowRecord } from '../../shared/pipeline/core/records.js';
import type { OutputStatus } from '../../shared/pipeline/core/row-statuses.js';
import { batchSourceFromEvent } from '../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../shared/pipeline/prepare/prepare-batch.js';
import { TRANSIENT_FAILURE_REASONS } from '../../shared/pipeline/row/row-decisions.js';
import { normaliseRow } from '../../shared/spreadsheet/normalise-row.js';
import { readSpreadsheet } from '../../shared/spreadsheet/read-spreadsheet.js';
import type { BatchDefaults, RowOutcome, SpreadsheetRead } from '../../shared/spreadsheet/schemas.js';
import { LIMITS, PRICE_PER_RESOLVED_USD } from '../../shared/tcs/schemas.js';
import {
  countingKick,
  fixedClock,
  memoryBatchStore,
  memoryObjectStore,
  memoryProductCache,
  memoryRowQueue,
} from '../helpers/memory-ports.js';

const SAMPLE_DIR = fileURLToPath(new URL('../../sample-data/', import.meta.url));
const sampleBytes = (path: string): Buffer => readFileSync(`${SAMPLE_DIR}${path}`);
const sampleExists = (path: string): boolean => {
  try {
    return statSync(`${SAMPLE_DIR}${path}`).isFile();
  } catch {
    return false;
  }
};

const ACCEPTED_COUNTRIES: ReadonlySet<string> = new Set(sandboxClassifier.countries.map((c) => c.code));
const FIRST_RUN_STATUSES: readonly OutputStatus[] = [
  'resolved',
  'pending_data',
  'failed',
  'rejected',
  'not_submitted',
];

// ---------------------------------------------------------------------------
// The README's table
// ---------------------------------------------------------------------------

type SandboxVerdict =
  | { kind: 'resolves'; ncm: string }
  | { kind: 'asks' }
  | { kind: 'fails'; reason: string }
  | { kind: 'fails-once'; reason: string; ncm: string }
  | { kind: 'not-sent' };

type ExpectedRow = {
  row: number;
  sku: string;
  verdict: SandboxVerdict;
  firstRun: OutputStatus;
  reason: string | null;
  secondRun: OutputStatus;
};

const digits = (dotted: string): string => dotted.replace(/\./g, '');

const parseVerdict = (cell: string): SandboxVerdict => {
  if (cell === '—') return { kind: 'not-sent' };
  if (cell === 'asks questions') return { kind: 'asks' };
  const resolves = /^resolves `([\d.]+)`$/.exec(cell);
  if (resolves) return { kind: 'resolves', ncm: digits(resolves[1]!) };
  const failsOnce = /^fails once `(\w+)`, then resolves `([\d.]+)`$/.exec(cell);
  if (failsOnce) return { kind: 'fails-once', reason: failsOnce[1]!, ncm: digits(failsOnce[2]!) };
  const fails = /^fails `(\w+)`$/.exec(cell);
  if (fails) return { kind: 'fails', reason: fails[1]! };
  throw new Error(`README: unreadable sandbox verdict "${cell}"`);
};

/** `| 1 | CAF-0101 | … | resolves `0901.21.00` | resolved | — | reused |` → an ExpectedRow. */
const readReadmeTable = (): ExpectedRow[] =>
  sampleBytes('README.md')
    .toString('utf8')
    .split('\n')
    .filter((line) => /^\| \d+ \|/.test(line))
    .map((line) => {
      const cells = line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim());
      const [row, sku, , , verdict, firstRun, reason, secondRun] = cells;
      return {
        row: Number(row),
        sku: sku!,
        verdict: parseVerdict(verdict!),
        firstRun: firstRun as OutputStatus,
        reason: reason === '—' ? null : reason!,
        secondRun: secondRun as OutputStatus,
      };
    });

// ---------------------------------------------------------------------------
// The files as the pipeline reads them
// ---------------------------------------------------------------------------

const readOptions = (): BatchOptions =>
  BatchOptions.parse(JSON.parse(sampleBytes('batch.json').toString('utf8')));

const defaultsOf = (options: BatchOptions): BatchDefaults => ({
  ...(options.operation ? { operation: options.operation } : {}),
  ...(options.country ? { country: options.country } : {}),
});

const normaliseAll = (read: SpreadsheetRead, options: BatchOptions): RowOutcome[] =>
  read.rows.map((row) => normaliseRow(row, defaultsOf(options), ACCEPTED_COUNTRIES, read.columns));

/** A user dropping the sample into the bucket: the file, batch.json and the sheets. */
const BATCH_FOLDER = 'inbox/products/';
const FILE_KEY = `${BATCH_FOLDER}products.csv`;

const objectCreated = (etag: string) => ({
  version: '0',
  id: `event-${etag}`,
  'detail-type': 'Object Created',
  source: 'aws.s3',
  account: '111122223333',
  time: '2026-11-21T12:00:00Z',
  region: 'sa-east-1',
  resources: ['arn:aws:s3:::catalogue-bucket'],
  detail: {
    version: '0',
    bucket: { name: 'catalogue-bucket' },
    object: { key: FILE_KEY, size: 100, etag, sequencer: '01' },
    'request-id': 'r-1',
    requester: '111122223333',
    reason: 'PutObject',
  },
});

const sampleWorld = () => {
  const files: Record<string, Uint8Array> = {
    [FILE_KEY]: sampleBytes('products.csv'),
    [`${BATCH_FOLDER}batch.json`]: sampleBytes('batch.json'),
  };
  for (const file of readdirSync(`${SAMPLE_DIR}sheets`)) {
    files[`${BATCH_FOLDER}sheets/${file}`] = sampleBytes(`sheets/${file}`);
  }
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const service = {
    listCountries: async () => [...sandboxClassifier.countries],
    // Prepare sizes the batch's window of the rows queue and its wait from the cap.
    getBalance: async () => ({ concurrency_limit: 10, in_progress_count: 0 }),
  } as unknown as ClassificationService;
  const ports = {
    clock,
    service,
    objects: memoryObjectStore(files),
    queue: memoryRowQueue(clock),
    batches: memoryBatchStore(),
    cache: memoryProductCache(),
    kick: countingKick(),
  };
  /** One upload of products.csv (each etag is a new object version, so a new batch). */
  const prepare = async (etag: string): Promise<RowRecord[]> => {
    const event = objectCreated(etag);
    await prepareBatch(ports, { event, execution_id: `exec-${etag}` });
    const batchId = batchSourceFromEvent(event)!.batchId;
    return [...ports.batches.rows.values()]
      .filter((r) => r.batch_id === batchId)
      .sort((a, b) => a.row - b.row);
  };
  return { ports, prepare };
};

/** The status a row has once Prepare is done: dispatched rows are `queued` until they run. */
const prepareStatusOf = (expected: OutputStatus): string =>
  ['rejected', 'not_submitted', 'reused'].includes(expected) ? expected : 'queued';

/** A well-formed `cls_` id per row (the id alphabet has no 0 or 1: the row in base 8, shifted). */
const classificationIdFor = (row: number): string =>
  `cls_${[...row.toString(8)]
    .map((digit) => '23456789'[Number(digit)])
    .join('')
    .padStart(12, 'A')}`;

/** Sheet text the sandbox would read: null without a sheet, '' for a scan. */
const sheetTextOf = async (sheet: string | null): Promise<string | null> =>
  sheet === null ? null : extractPdfText(sampleBytes(sheet));

// ---------------------------------------------------------------------------

let expected: ExpectedRow[];
let csv: SpreadsheetRead;
let ptbr: SpreadsheetRead;
let options: BatchOptions;

beforeAll(async () => {
  expected = readReadmeTable();
  csv = await readSpreadsheet(sampleBytes('products.csv'), 'products.csv');
  ptbr = await readSpreadsheet(sampleBytes('products-ptbr.csv'), 'products-ptbr.csv');
  options = readOptions();
});

describe('products.csv', () => {
  it('is an ERP export of at least 25 rows, UTF-8 with a BOM, comma-separated, CRLF', () => {
    const bytes = sampleBytes('products.csv');

    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    expect(bytes.toString('utf8')).not.toMatch(/[^\r]\n/);
    expect(csv).toMatchObject({ format: 'csv', encoding: 'utf-8', delimiter: ',', problems: [] });
    expect(csv.rows.length).toBeGreaterThanOrEqual(25);
  });

  it('maps every pipeline column through an alias and passes the others through', () => {
    const mapped = Object.fromEntries(
      Object.entries(csv.columns.fields).map(([column, ref]) => [column, ref.header]),
    );

    expect(mapped).toEqual({
      sku: 'SKU',
      description: 'Descrição',
      operation: 'Operação',
      country: 'País',
      sheet: 'Ficha técnica',
      current_ncm: 'NCM',
      external_reference: 'Referência',
    });
    expect(csv.columns.passthrough.map((ref) => ref.header)).toEqual([
      'Fornecedor',
      PRICE_HEADER,
      'Moeda',
      'Observações',
    ]);
  });

  it('is described row by row, in order, by the README', () => {
    expect(expected.map((row) => row.row)).toEqual(csv.rows.map((row) => row.row));
    expect(expected.map((row) => row.sku)).toEqual(csv.rows.map((row) => row.fields.sku));
    expect(new Set(expected.map((row) => row.firstRun))).toEqual(new Set(FIRST_RUN_STATUSES));
  });

  it('mixes operations, countries and the batch defaults', () => {
    const products = normaliseAll(csv, options).flatMap((o) => (o.status === 'valid' ? [o.product] : []));
    const defaulted = csv.rows.filter((row) => row.fields.operation === '' || row.fields.country === '');

    expect(new Set(products.map((p) => p.operation))).toEqual(new Set(['import', 'export']));
    expect(new Set(products.map((p) => p.country)).size).toBeGreaterThanOrEqual(8);
    expect(defaulted.length).toBeGreaterThanOrEqual(2);
    expect(products.filter((p) => p.description === null && p.sheet !== null)).toHaveLength(2);
  });

  it('rejects the invalid rows with the README reasons: in the row itself, or a missing sheet', () => {
    const outcomes = normaliseAll(csv, options);
    const reasons = outcomes.map((outcome) => {
      if (outcome.status === 'rejected') return outcome.rejection.reason;
      const { sheet } = outcome.product;
      return sheet !== null && !sampleExists(sheet) ? 'sheet_not_found' : null;
    });

    expect(reasons).toEqual(expected.map((row) => (row.firstRun === 'rejected' ? row.reason : null)));
  });

  it('declares NCMs that match, differ, and one that lost its leading zero', () => {
    const products = normaliseAll(csv, options).flatMap((o) => (o.status === 'valid' ? [o.product] : []));
    const flagged = products.filter((p) => p.flags.includes('leading_zero_probably_lost'));

    expect(flagged.map((p) => [p.sku, p.current_ncm])).toEqual([['CAF-0101', '9012100']]);
    const declaredByRow = new Map(products.map((p) => [p.row, p.current_ncm]));
    const comparisons = expected.flatMap((row) => {
      const declared = declaredByRow.get(row.row);
      if (row.verdict.kind !== 'resolves' || !declared) return [];
      return [declared.padStart(8, '0') === row.verdict.ncm ? 'matches' : 'differs'];
    });
    expect(comparisons).toContain('matches');
    expect(comparisons).toContain('differs');
  });
});

describe('products-ptbr.csv', () => {
  it('is written as Excel pt-BR writes it: `;`, Windows-1252 without a BOM, CRLF', () => {
    const bytes = sampleBytes('products-ptbr.csv');

    expect(bytes.subarray(0, 3).toString('latin1')).toBe('SKU');
    expect(bytes.toString('latin1')).not.toMatch(/[^\r]\n/);
    expect(bytes.subarray(-2).toString('latin1')).toBe('\r\n');
    expect(bytes.includes(0x80)).toBe(true); // `€`, where Windows-1252 and Latin-1 differ
    expect(ptbr).toMatchObject({ format: 'csv', encoding: 'windows-1252', delimiter: ';', problems: [] });
  });

  it('reads back with its accents intact', () => {
    const text = [ptbr.header, ...ptbr.rows.map((row) => row.cells)].flat().join('\n');

    expect(ptbr.header).toEqual(csv.header);
    for (const char of ['ç', 'ã', 'é', 'º', '€']) expect(text).toContain(char);
    expect(text).not.toMatch(/[ÃÂ][\u0080-\u00BF]|\uFFFD/);
  });

  it('gives the same products as products.csv, prices written with decimal commas', () => {
    const price = ptbr.columns.passthrough.findIndex((ref) => ref.header === PRICE_HEADER);

    expect(normaliseAll(ptbr, options)).toEqual(normaliseAll(csv, options));
    ptbr.rows.forEach((row, index) => {
      const source = csv.rows[index]!;
      expect(row.fields).toEqual(source.fields);
      expect(row.passthrough).toEqual(
        source.passthrough.map((cell, column) => (column === price ? ptBrNumber(cell) : cell)),
      );
      expect(Number(row.passthrough[price]!.replace(/\./g, '').replace(',', '.'))).toBe(
        Number(source.passthrough[price]),
      );
    });
  });

  it('is what make-variants.ts writes from products.csv', async () => {
    const regenerated = await toExcelPtBr(sampleBytes('products.csv'));

    expect(regenerated.equals(sampleBytes('products-ptbr.csv'))).toBe(true);
  });
});

describe('sheets/', () => {
  it('holds every sheet a row names, each a PDF of at most 10 MiB, except the one meant to be missing', () => {
    const named = normaliseAll(csv, options).flatMap((o) =>
      o.status === 'valid' && o.product.sheet !== null ? [o.product] : [],
    );
    const missing = expected.filter((row) => row.reason === 'sheet_not_found').map((row) => row.row);

    expect(named.length).toBeGreaterThanOrEqual(5);
    for (const product of named) {
      if (missing.includes(product.row)) {
        expect(sampleExists(product.sheet!)).toBe(false);
        continue;
      }
      const bytes = sampleBytes(product.sheet!);
      expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
      expect(bytes.length).toBeLessThanOrEqual(LIMITS.sheetMaxBytes);
    }
  });

  it('has a text layer in every sheet but the scan, as the sandbox reads them', async () => {
    const scan = await extractPdfText(sampleBytes(`sheets/${SCANNED_SHEET.file}`));

    expect(scan).toBe('');
    for (const sheet of TEXT_SHEETS) {
      const text = await extractPdfText(sampleBytes(`sheets/${sheet.file}`));
      expect(text).toContain(sheet.title);
    }
  });

  it('is exactly what make-sheets.ts writes', async () => {
    const generated = await renderSheets();

    expect(readdirSync(`${SAMPLE_DIR}sheets`).sort()).toEqual([...generated.keys()].sort());
    for (const [file, bytes] of generated)
      expect(bytes.equals(sampleBytes(`sheets/${file}`)), file).toBe(true);
    // The valve's text sheet that row 20 is sent again with (resend/resend.csv).
    const resent = await renderTextSheet(RESENT_SHEET);
    expect(resent.equals(sampleBytes(`resend/${RESENT_SHEET.file}`))).toBe(true);
    expect(await extractPdfText(resent)).toContain('Válvula de esfera');
  });
});

describe('batch.json and the budget', () => {
  it('parses as BatchOptions with import/BR defaults and a budget', () => {
    expect(options).toEqual({
      operation: 'import',
      country: 'BR',
      reclassify: 'changed',
      reuse_max_age_days: 30,
      max_usd: 54,
      duplicates: 'classify_once',
      verdict_per_country: false,
      order: 'exposure',
      plan_only: false,
      partial_every_minutes: 15,
    });
  });

  it('cuts the last valid rows, counting USD 2 for every row dispatched before them', () => {
    const valid = expected.filter((row) => row.firstRun !== 'rejected');
    const covered = Math.floor(options.max_usd! / PRICE_PER_RESOLVED_USD);

    expect(covered).toBe(27);
    expect(valid.slice(covered).map((row) => row.row)).toEqual(
      expected.filter((row) => row.firstRun === 'not_submitted').map((row) => row.row),
    );
    expect(valid.slice(covered).length).toBeGreaterThan(0);
  });

  it('Prepare, on a first run, rejects, dispatches and cuts exactly the rows the README says', async () => {
    const { prepare } = sampleWorld();

    const rows = await prepare('etag-1');

    expect(rows.map((r) => [r.row, r.status, r.result?.reason ?? null])).toEqual(
      expected.map((row) => [
        row.row,
        prepareStatusOf(row.firstRun),
        ['rejected', 'not_submitted'].includes(row.firstRun) ? row.reason : null,
      ]),
    );
  });

  it('Prepare, on a second run, reuses what resolved and dispatches the rest within the budget', async () => {
    const { ports, prepare } = sampleWorld();
    const first = await prepare('etag-1');
    // What the Row workflow stores when a classification resolves (store verdict step).
    for (const row of first) {
      if (expected[row.row - 1]!.firstRun !== 'resolved') continue;
      await ports.cache.put({
        product_key: row.product_key!,
        fingerprint: row.fingerprint!,
        classification_id: classificationIdFor(row.row),
        resolved_at: ports.clock.now().toISOString(),
        result: { status: 'resolved', cost_usd: '2.00' },
        pdf_key: null,
        batch_id: row.batch_id,
      });
    }
    ports.clock.advance(24 * 60 * 60 * 1000);

    const second = await prepare('etag-2');

    expect(second.map((r) => [r.row, r.status])).toEqual(
      expected.map((row) => [row.row, prepareStatusOf(row.secondRun)]),
    );
  });
});

describe('the sandbox verdicts of the rows the pipeline sends', () => {
  /** Both seeds: the outcome of a sample row must not depend on which seed the sandbox runs with. */
  it.each(['sandbox', 'sample-data'])('match the README with seed "%s"', async (seed) => {
    const { prepare } = sampleWorld();
    const sent = (await prepare('etag-1')).filter((r) => r.product !== undefined);
    const now = new Date('2026-11-21T12:00:00.000Z');

    for (const record of sent) {
      const row = expected[record.row - 1]!;
      const product = record.product!;
      const classify = async (priorAttempts: number) =>
        sandboxClassifier.classify({
          operation: product.operation,
          country: product.country,
          description: product.description,
          sheetText: await sheetTextOf(product.sheet),
          answers: [],
          priorAttempts,
          seed,
          now,
        });
      const first = await classify(0);
      const label = `row ${row.row} (${row.sku})`;

      switch (row.verdict.kind) {
        case 'resolves':
          expect(first, label).toMatchObject({ status: 'resolved', chosen_ncm: row.verdict.ncm });
          expect(['resolved', 'not_submitted'], label).toContain(row.firstRun);
          break;
        case 'asks':
          expect(first.status, label).toBe('pending_data');
          expect(row.firstRun, label).toBe('pending_data');
          break;
        case 'fails':
          expect(first, label).toEqual({ status: 'failed', failure_reason: row.verdict.reason });
          // Permanent: the pipeline does not start a new attempt, so the row ends failed.
          expect(TRANSIENT_FAILURE_REASONS.has(row.verdict.reason), label).toBe(false);
          expect([row.firstRun, row.reason], label).toEqual(['failed', row.verdict.reason]);
          break;
        case 'fails-once':
          expect(first, label).toEqual({ status: 'failed', failure_reason: row.verdict.reason });
          expect(TRANSIENT_FAILURE_REASONS.has(row.verdict.reason), label).toBe(true);
          expect(await classify(1), label).toMatchObject({ status: 'resolved', chosen_ncm: row.verdict.ncm });
          expect(row.firstRun, label).toBe('resolved');
          break;
        case 'not-sent':
          throw new Error(`${label}: the README says it is never sent, but Prepare accepted it`);
      }
      // A row cut by the budget is sent on the second run, when reuse frees the budget.
      if (row.firstRun === 'not_submitted') expect(row.secondRun, label).toBe('resolved');
    }
    expect(sent.map((r) => r.row)).toEqual(
      expected.filter((row) => row.verdict.kind !== 'not-sent').map((row) => row.row),
    );
  });
});
