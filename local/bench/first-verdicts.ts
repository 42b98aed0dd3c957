/**
 * What matters first (`npm run bench -- --first 20000:2000`): a catalogue whose products' rows and
 * values follow a long tail, as an ERP export or a month of NF-e does (a fifth of the products
 * carrying about four fifths of the rows and of the value), classified once in exposure order and
 * once in the file's order (`batch.json` `order`), each on a fresh local pipeline at a time scale.
 * Each run gives
 *
 *   the first submission   seconds from the drop to the sandbox's first POST /classifications
 *   the coverage curve     the share of the rows and of the value with a verdict after 10, 20
 *                          and 50 % of the classifications, in the order they resolved
 *   the checks             every row in results.csv once, each classification billed once
 *
 * The order the classifications resolved in is their leaders' (`finished_at` in the batch table);
 * which rows each covers is results.csv's (`classification_id`), and each row's value is the
 * catalogue's `Valor` cell.
 *
 * A size with more products than `COVERAGE_MAX_PRODUCTS` is run only to its first submission
 * (400,000 rows would take days of the cap): the pipeline is closed once the sandbox has its
 * first classification.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { forEachLimited } from '../../shared/pipeline/core/calls-in-parallel.js';
import { readResultsTable } from '../../shared/smoke/results-table.js';
import { startLocalPipeline } from '../runtime/pipeline.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { type NightlySize, RESOLVING, sizeLabel, writeErpCsv } from './nightly-export.js';

/** Sizes with more products than this are measured to their first submission only. */
const COVERAGE_MAX_PRODUCTS = 5_000;
/** The shares of the classifications the coverage is read at. */
const COVERAGE_POINTS = [0.1, 0.2, 0.5] as const;
const CATALOGUE_NAME = 'catalogo-cauda-longa';
const HEADER = ['Código', 'Descrição', 'Operação', 'País', 'Valor'] as const;

/** A deterministic pseudo-random stream (mulberry32): the same size always gives the same file. */
const randomStream = (seed: number) => {
  let state = seed >>> 0;
  return (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
};

/** One product of the long tail: its code, description, rows, and the value of each of its rows. */
type TailProduct = { code: string; description: string; rows: number; unitValue: number };

/**
 * Gives a catalogue's products with rows on a Zipf curve (the product of rank k has rows in
 * proportion to 1/k, at least one: at 2,000 products the first fifth hold about 80 % of them), in
 * an order unrelated to their weight (the ERP's product codes), so the file's order is no hint.
 */
export const longTailProducts = (size: NightlySize): TailProduct[] => {
  const random = randomStream(size.rows * 31 + size.products);
  const harmonic = Array.from({ length: size.products }, (_, k) => 1 / (k + 1)).reduce((a, b) => a + b, 0);
  const rows = Array.from({ length: size.products }, (_, k) =>
    Math.max(1, Math.round(size.rows / ((k + 1) * harmonic))),
  );
  // Exactly `size.rows`: what rounding added or left is taken from or given to the heaviest.
  let excess = rows.reduce((a, b) => a + b, 0) - size.rows;
  for (let k = 0; excess !== 0; k = (k + 1) % size.products) {
    if (excess > 0 && rows[k]! > 1) {
      rows[k]! -= 1;
      excess -= 1;
    } else if (excess < 0) {
      rows[k]! += 1;
      excess += 1;
    }
  }
  const products = rows.map((count, k) => ({
    rows: count,
    // A value per row between 50 and 150: the value's tail follows the rows'.
    unitValue: Math.round((50 + 100 * random()) * 100) / 100,
    rank: k,
  }));
  // Shuffled (Fisher-Yates): the codes, and so the file's order, say nothing of the weight.
  for (let i = products.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [products[i], products[j]] = [products[j]!, products[i]!];
  }
  return products.map((product, index) => {
    const [description] = RESOLVING[index % RESOLVING.length]!;
    const code = `P${String(index + 1).padStart(6, '0')}`;
    return {
      code,
      description: `${description}, linha ${code}`,
      rows: product.rows,
      unitValue: product.unitValue,
    };
  });
};

/** A value as a pt-BR ERP writes it: `1.234,56`. */
const brazilianAmount = (value: number): string =>
  value.toLocaleString('pt-BR', { minimumFractionDigits: 2, maximumFractionDigits: 2 });

/** Writes the catalogue, product after product, each its rows (its variants) together, `;`-separated with a BOM. */
export const writeLongTailCatalogue = (file: string, products: readonly TailProduct[]): void =>
  writeErpCsv(file, catalogueRecords(products));

/** The catalogue's records, header first. */
function* catalogueRecords(products: readonly TailProduct[]): Generator<string[]> {
  yield [...HEADER];
  for (const product of products) {
    // Once a product: toLocaleString is slow enough to take seconds over 400,000 rows.
    const value = brazilianAmount(product.unitValue);
    for (let variant = 1; variant <= product.rows; variant += 1)
      yield [`${product.code}-${variant}`, product.description, 'Importação', 'CN', value];
  }
}

/** The share of rows and of value that have a verdict after a share of the classifications. */
type CoveragePoint = { classifications: number; rows: number; value: number };

/**
 * Takes each resolved classification's resolution time and the rows it covers with their value,
 * and gives the share of all rows and all value covered once the first 10, 20 and 50 % of the
 * classifications (of `classifications` in all) had resolved, in the order they resolved.
 */
export const coverageCurve = (
  resolved: readonly { resolvedAt: string; rows: number; value: number }[],
  totals: { classifications: number; rows: number; value: number },
): CoveragePoint[] => {
  const inOrder = [...resolved].sort((a, b) => a.resolvedAt.localeCompare(b.resolvedAt));
  return COVERAGE_POINTS.map((share) => {
    const first = inOrder.slice(0, Math.round(totals.classifications * share));
    return {
      classifications: share,
      rows: first.reduce((sum, c) => sum + c.rows, 0) / totals.rows,
      value: first.reduce((sum, c) => sum + c.value, 0) / totals.value,
    };
  });
};

/** One order's run: the first submission, and for a size run whole its curve and checks. */
type OrderMeasured = {
  order: 'exposure' | 'file';
  firstSubmissionSeconds: number | null;
  /** The machine's load average over the last minute when the first submission was seen. */
  loadAverage: number;
  coverage?: CoveragePoint[];
  classifications?: number;
  billedUsd?: number;
  resultRows?: number;
  checks?: { line: string; holds: boolean }[];
};
export type FirstMeasured = NightlySize & { orders: OrderMeasured[] };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls the sandbox until it has created a classification; the seconds since the drop, or null by the deadline. */
const firstSubmission = async (sandbox: Sandbox, droppedAt: number, deadlineMs: number) => {
  while (Date.now() < deadlineMs) {
    if (sandbox.stats().created > 0) return (Date.now() - droppedAt) / 1000;
    await sleep(50);
  }
  return null;
};

/** One order of one size, on a fresh local pipeline. */
const runOrder = async (
  workDir: string,
  size: NightlySize,
  products: readonly TailProduct[],
  order: 'exposure' | 'file',
  options: FirstOptions,
): Promise<OrderMeasured> => {
  const folder = join(workDir, `first-${size.rows}-${size.products}-${order}`);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${CATALOGUE_NAME}.csv`);
  writeLongTailCatalogue(file, products);
  const optionsFile = join(folder, 'batch.json');
  writeFileSync(optionsFile, JSON.stringify({ order }));
  const whole = size.products <= COVERAGE_MAX_PRODUCTS;
  const pipeline = await startLocalPipeline({
    dataDir: join(folder, 'pipeline-data'),
    fresh: true,
    timeScale: options.timeScale,
    sandbox: { seed: 'bench' },
    assemblyDir: options.assemblyDir,
  });
  try {
    const sandbox = pipeline.sandbox as Sandbox;
    const droppedAt = Date.now();
    const { batchId } = await pipeline.submit({ file, batchName: CATALOGUE_NAME, optionsFile });
    const seconds = await firstSubmission(sandbox, droppedAt, droppedAt + 30 * 60_000);
    const loadAverage = loadavg()[0] ?? 0;
    options.log(
      `    ${sizeLabel(size)} ${order}: first submission ${seconds === null ? 'not within 30 min' : `${seconds.toFixed(1)} s`} after the drop (load ${loadAverage.toFixed(2)})`,
    );
    if (!whole || seconds === null) return { order, firstSubmissionSeconds: seconds, loadAverage };

    const outcome = await pipeline.waitForBatch(batchId, { progressEveryMs: 24 * 60 * 60_000 });
    if (outcome.state !== 'completed') throw new Error(`batch ${batchId} ended ${outcome.state}`);
    const bytes = await pipeline.outboxFile(batchId, 'results.csv');
    if (!bytes) throw new Error(`batch ${batchId} completed without a results.csv`);
    const table = await readResultsTable(bytes);
    if ('problem' in table) throw new Error(`batch ${batchId}: ${table.problem}`);
    const byCode = new Map(products.map((product) => [product.code, product]));
    const covered = new Map<string, { rows: number; value: number; leader: number }>();
    const seenRows = new Set<string>();
    for (const row of table.rows) {
      seenRows.add(row.result.row);
      const id = row.result.classification_id;
      if (row.result.status !== 'resolved' || !id) continue;
      const code = (row.inputCells[0] ?? '').split('-')[0] ?? '';
      const entry = covered.get(id) ?? { rows: 0, value: 0, leader: Number(row.result.row) };
      entry.leader = Math.min(entry.leader, Number(row.result.row));
      entry.rows += 1;
      entry.value += byCode.get(code)?.unitValue ?? 0;
      covered.set(id, entry);
    }
    // When each classification ended: its leader's finish, as the pipeline recorded it in the batch
    // table (one GetItem a product, a few at a time).
    const resolved: { resolvedAt: string; rows: number; value: number }[] = [];
    await forEachLimited([...covered.values()], 16, async (entry) => {
      const leader = await pipeline.tables.batches.getRow(batchId, entry.leader);
      if (leader?.finished_at)
        resolved.push({ resolvedAt: leader.finished_at, rows: entry.rows, value: entry.value });
    });
    const stats = sandbox.stats();
    const totalValue = products.reduce((sum, product) => sum + product.rows * product.unitValue, 0);
    const coverage = coverageCurve(resolved, {
      classifications: stats.created,
      rows: size.rows,
      value: totalValue,
    });
    const checks = [
      {
        line: `every row once in results.csv: ${table.rows.length.toLocaleString('en-US')} lines, ${seenRows.size.toLocaleString('en-US')} rows of ${size.rows.toLocaleString('en-US')}`,
        holds: table.rows.length === size.rows && seenRows.size === size.rows,
      },
      {
        line: `one classification per product, billed once: ${stats.created} created for ${size.products} products, USD ${stats.billed_usd.toFixed(2)} billed for ${covered.size} resolved in results.csv`,
        holds: stats.created === size.products && Math.abs(stats.billed_usd - 2 * covered.size) < 0.005,
      },
      {
        line: `each resolved leader's end read: ${resolved.length} of ${covered.size}`,
        holds: resolved.length === covered.size,
      },
    ];
    return {
      order,
      firstSubmissionSeconds: seconds,
      loadAverage,
      coverage,
      classifications: stats.created,
      billedUsd: stats.billed_usd,
      resultRows: table.rows.length,
      checks,
    };
  } finally {
    await pipeline.close();
  }
};

export type FirstOptions = {
  /** Scales the sandbox's runs and the workflows' waits (0.01: a 60 s run takes 0.6 s). */
  timeScale: number;
  assemblyDir: string;
  log: (line: string) => void;
};

/** Runs one size in exposure order, then in the file's order. */
export const runFirstVerdicts = async (
  workDir: string,
  size: NightlySize,
  options: FirstOptions,
): Promise<FirstMeasured> => {
  const products = longTailProducts(size);
  const orders: OrderMeasured[] = [];
  for (const order of ['exposure', 'file'] as const)
    orders.push(await runOrder(workDir, size, products, order, options));
  return { ...size, orders };
};

const percent = (share: number) => `${Math.round(share * 100)} %`;

/** The runs as Markdown tables: the coverage of each order side by side, and each first submission. */
export const firstVerdictsReport = (sizes: readonly FirstMeasured[]): string => {
  const coverageLines = sizes.flatMap((size) =>
    size.orders.flatMap((run) =>
      run.coverage
        ? [
            `| ${sizeLabel(size)} | ${run.order} | ${run.coverage
              .map((point) => `${percent(point.rows)} / ${percent(point.value)}`)
              .join(' | ')} |`,
          ]
        : [],
    ),
  );
  const coverage =
    coverageLines.length === 0
      ? ''
      : [
          `| rows:products | order | ${COVERAGE_POINTS.map((share) => `rows / value with a verdict at ${percent(share)} of the classifications`).join(' | ')} |`,
          `| --- | --- | ${COVERAGE_POINTS.map(() => '---').join(' | ')} |`,
          ...coverageLines,
        ].join('\n');
  const first = [
    '| rows:products | order | first submission after the drop | load average (1 min) |',
    '| --- | --- | --- | --- |',
    ...sizes.flatMap((size) =>
      size.orders.map(
        (run) =>
          `| ${sizeLabel(size)} | ${run.order} | ${run.firstSubmissionSeconds === null ? 'none within 30 min' : `${run.firstSubmissionSeconds.toFixed(1)} s`} | ${run.loadAverage.toFixed(2)} |`,
      ),
    ),
  ].join('\n');
  const checks = sizes.flatMap((size) =>
    size.orders.flatMap((run) =>
      (run.checks ?? []).map(
        (check) => `${check.holds ? 'ok  ' : 'FAIL'} ${sizeLabel(size)} ${run.order}: ${check.line}`,
      ),
    ),
  );
  return [coverage, first, checks.join('\n')].filter(Boolean).join('\n\n');
};
