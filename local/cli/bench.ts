/**
 * `npm run bench [-- --rows 300 --time-scale 0.0167 --ingest csv:2000,csv:100000,xlsx:100000,csv:400000
 *   --workbook 10000,100000 --contenders pipeline,concurrent,naive --nightly 100000:200,400000:2000]`
 *
 * One run, side by side, against fresh sandboxes with the same seed and time scale (a run
 * lasts about 1 s at the default scale, so "3 s" polling is 50 ms):
 *
 *   pipeline    this product, through the local runtime (real workflows, handler bundles)
 *   naive       one classification at a time, polling every 3 s (scaled)
 *   concurrent  10 at a time, polling every 3 s (scaled), waiting out 429s
 *
 * Then ingest only: files of 2,000 to 400,000 rows (CSV and XLSX, and SPED EFD files of as many
 * items when asked: `sped:400000`) read, validated, stored and queued by Prepare, with its rows per
 * second and peak memory (`--ingest ''` skips them).
 * Then results.xlsx alone: 10,000 and 100,000 rows streamed out of row records, each in a child
 * process, with what writing it added to memory (../bench/workbook-memory.ts; `--workbook ''`
 * skips it). `--contenders none` skips the contenders.
 * Last, only when asked (`--nightly ROWS:PRODUCTS,…`), the nightly export at our users' sizes:
 * an ERP's export classified on night 1 and dropped again unchanged on night 2, each night's
 * phases, peak memory per function, requests per row and checks (../bench/nightly.ts), written
 * to `out/bench/nightly.json`; a check that fails the run sets a non-zero exit code.
 * `--nightly-check-below N` runs both nights with `check_below: N`, as a team that signs off runs it.
 * `--bundles now` (only when asked) imports each function's bundle in a fresh process: its size,
 * import time and memory added (../bench/bundle-imports.ts); `--bundles <cdk.out>` puts another
 * commit's assembly beside this checkout's (the module's opening comment says how to make one).
 * `--first ROWS:PRODUCTS,…` (only when asked) classifies a long-tail catalogue in exposure order and
 * in the file's order: the share of rows and value with a verdict at 10, 20 and 50 % of the
 * classifications, and the seconds from the drop to the first submission (../bench/first-verdicts.ts;
 * a size of more than 5,000 products is run to its first submission only), to `out/bench/first.json`.
 * Prints Markdown tables (the ones the README quotes) and writes the numbers to
 * `out/bench/bench.json`. `--keep` leaves the working folder (each pipeline's tables, bucket and
 * logs) in place and prints where it is.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { writeCsv } from '../../shared/spreadsheet/write-csv.js';
import { createTcsClient } from '../../shared/tcs/client.js';
import { type BenchRow, runConcurrent, runNaive } from './../bench/baselines.js';
import { bundleImportsTable, measureBundleImports } from '../bench/bundle-imports.js';
import { type FirstMeasured, firstVerdictsReport, runFirstVerdicts } from '../bench/first-verdicts.js';
import { runNightly } from '../bench/nightly.js';
import { type NightlySize, parseNightlySizes, sizeLabel } from '../bench/nightly-export.js';
import { nightChecks, nightlyReport, type SizeMeasured } from '../bench/nightly-report.js';
import { measureWorkbook, parseWorkbookSizes, workbookReport } from '../bench/workbook-memory.js';
import type { WorkbookMeasured } from '../bench/workbook-memory-child.js';
import { startLocalPipeline } from '../runtime/pipeline.js';
import { type Sandbox, startSandbox } from '../sandbox/sandbox.js';
import { userPath } from './shared.js';

/** Descriptions the sandbox resolves (local/sandbox/classifier/TRIGGERS.md). */
const RESOLVING = [
  'Café torrado em grãos',
  'Café tostado en grano',
  'Roasted coffee beans',
  'Pechuga de pollo congelada',
  'Vinho tinto Malbec 750 ml',
  'Cerveza lager en lata',
  'Soja em grão a granel',
  'Xampu anticaspa 400 ml',
  'Passenger car tyres 205/55 R16',
  'Leather handbag',
  'Camiseta 100% algodão manga curta',
  'Zapatillas deportivas para correr',
  'Parafuso sextavado M10 com porca',
  'Chave de fenda Philips',
  'Bomba submersível para poço',
  'Rodamientos de bolas 6204',
  'Motor elétrico trifásico 5 CV',
  'Smartphone 128 GB',
  'Lâmpada LED 9W E27',
  'Disposable syringe 5 ml',
  'Mesa de escritório de madeira',
  'Escova de dentes macia',
];

const benchRows = (count: number): BenchRow[] =>
  Array.from({ length: count }, (_, index) => ({
    description: `${RESOLVING[index % RESOLVING.length]}, ref. ${10_000 + index}`,
    operation: 'import' as const,
    country: 'BR',
  }));

const writeBatchFile = (dir: string, name: string, rows: readonly BenchRow[]): string => {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${name}.csv`);
  const body = writeCsv(
    ['sku', 'description', 'operation', 'country'],
    rows.map((row, index) => [`B-${index + 1}`, row.description, row.operation, row.country]),
    { delimiter: ',', bom: true },
  );
  writeFileSync(file, body);
  return folder;
};

type Measured = {
  contender: string;
  wallSeconds: number;
  utilisation: number;
  steadyUtilisation: number;
  peakInProgress: number;
  rateLimited: number;
  callsPerClassification: number;
  runSeconds: number;
  callBudget: number;
  classifications: number;
};

/** Samples the sandbox's in-progress gauge while a contender runs. */
const sampler = (sandbox: Sandbox, everyMs: number) => {
  const samples: { at: number; inProgress: number }[] = [];
  const timer = setInterval(() => {
    samples.push({ at: Date.now(), inProgress: sandbox.stats().in_progress_now });
  }, everyMs);
  return {
    stop: () => clearInterval(timer),
    /** Mean slots in use over the middle 80% of the run: ramp-up and drain left out. */
    steady: (startedAt: number, endedAt: number, cap: number) => {
      const span = endedAt - startedAt;
      const inside = samples.filter(
        (sample) => sample.at >= startedAt + span * 0.1 && sample.at <= endedAt - span * 0.1,
      );
      if (inside.length === 0) return 0;
      return inside.reduce((sum, sample) => sum + sample.inProgress, 0) / inside.length / cap;
    },
  };
};

const measure = (
  contender: string,
  sandbox: Sandbox,
  startedAt: number,
  endedAt: number,
  steady: number,
  timeScale: number,
): Measured => {
  const stats = sandbox.stats();
  const cap = stats.concurrency_limit;
  const wallSeconds = (endedAt - startedAt) / 1000;
  // Every request to the API, whatever the route; signed file URLs are storage, not API.
  const calls = Object.entries(stats.requests_by_route)
    .filter(([route]) => /^[A-Z]+ \/v1\//.test(route))
    .reduce((sum, [, count]) => sum + count, 0);
  const classifications = Math.max(1, stats.created);
  // slot_seconds is the sum of every run's time in progress: its mean, in production seconds.
  const runSeconds = stats.slot_seconds / classifications / timeScale;
  return {
    contender,
    wallSeconds,
    utilisation: stats.slot_seconds / (cap * wallSeconds),
    steadyUtilisation: steady,
    peakInProgress: stats.in_progress_max,
    rateLimited: stats.responses_by_status['429'] ?? 0,
    callsPerClassification: calls / classifications,
    runSeconds,
    callBudget: runSeconds / 3 + 3,
    classifications: stats.created,
  };
};

const runPipeline = async (
  workDir: string,
  rows: readonly BenchRow[],
  timeScale: number,
): Promise<Measured> => {
  const folder = writeBatchFile(workDir, 'bench', rows);
  const pipeline = await startLocalPipeline({
    dataDir: join(workDir, 'pipeline-data'),
    fresh: true,
    timeScale,
    sandbox: { seed: 'bench' },
  });
  try {
    const sandbox = pipeline.sandbox as Sandbox;
    const gauge = sampler(sandbox, 20);
    const startedAt = Date.now();
    const { batchId } = await pipeline.submit({ file: join(folder, 'bench.csv'), sheetsDir: folder });
    const outcome = await pipeline.waitForBatch(batchId, { progressEveryMs: 1_000 });
    const endedAt = Date.now();
    gauge.stop();
    if (outcome.state !== 'completed') throw new Error(`bench batch ended ${outcome.state}`);
    return measure(
      'pipeline',
      sandbox,
      startedAt,
      endedAt,
      gauge.steady(startedAt, endedAt, sandbox.stats().concurrency_limit),
      timeScale,
    );
  } finally {
    await pipeline.close();
  }
};

const runScript = async (
  contender: 'naive' | 'concurrent',
  rows: readonly BenchRow[],
  timeScale: number,
): Promise<Measured> => {
  const sandbox = await startSandbox({ port: 0, timeScale, seed: 'bench', log: 'silent' });
  try {
    const client = createTcsClient({ baseUrl: sandbox.baseUrl, apiKey: sandbox.keys.classify });
    const pollMs = 3_000 * timeScale;
    const gauge = sampler(sandbox, 20);
    const startedAt = Date.now();
    if (contender === 'naive') await runNaive(client, rows, pollMs);
    else await runConcurrent(client, rows, pollMs, 10);
    const endedAt = Date.now();
    gauge.stop();
    return measure(
      contender,
      sandbox,
      startedAt,
      endedAt,
      gauge.steady(startedAt, endedAt, sandbox.stats().concurrency_limit),
      timeScale,
    );
  } finally {
    await sandbox.close();
  }
};

/** One ingest of the bench: a file of `rows` rows in `format` (for SPED, `rows` 0200 items). */
const INGEST_FORMATS = ['csv', 'xlsx', 'sped'] as const;
type IngestSpec = { format: (typeof INGEST_FORMATS)[number]; rows: number };
type Ingested = IngestSpec & { seconds: number; rowsPerSecond: number; peakMemoryMb: number | null };

/** `csv:2000,xlsx:100000` → the ingests, in order. */
const parseIngests = (text: string): IngestSpec[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [format, rows] = part.split(':');
      const known = INGEST_FORMATS.find((name) => name === format);
      if (!known || !Number.isInteger(Number(rows)) || Number(rows) < 1)
        throw new Error(`--ingest: "${part}" is not csv:<rows>, xlsx:<rows> or sped:<rows>`);
      return { format: known, rows: Number(rows) };
    });

/**
 * A SPED EFD ICMS/IPI file whose items (0200) are the bench's rows: block 0 around them, block 9
 * counting its registers, Latin-1 with CRLF as the layout asks. A SPED file names no operation or
 * country: batch.json beside it gives the rows' (`import`, `BR`).
 */
const writeSpedFile = (folder: string, name: string, rows: readonly BenchRow[]): string => {
  const file = join(folder, `${name}.txt`);
  const lines = [
    '|0000|020|0|01102026|31102026|BENCH IMPORTADORA LTDA|47185236000103||SP|147258361110|3550308|||A|1|',
    '|0001|0|',
    ...rows.map((row, index) => `|0200|B-${index + 1}|${row.description}|||UN|00|||||||`),
    `|0990|${rows.length + 3}|`,
    '|9001|0|',
    '|9900|0000|1|',
    '|9900|0001|1|',
    `|9900|0200|${rows.length}|`,
    '|9900|0990|1|',
    '|9900|9001|1|',
    '|9900|9900|8|',
    '|9900|9990|1|',
    '|9900|9999|1|',
    '|9990|11|',
    `|9999|${rows.length + 14}|`,
  ];
  writeFileSync(file, Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1'));
  writeFileSync(join(folder, 'batch.json'), JSON.stringify({ operation: 'import', country: 'BR' }));
  return file;
};

/** The ingest file: the bench's rows as CSV, as a workbook of one sheet, or as a SPED file's items. */
const writeIngestFile = async (
  workDir: string,
  spec: IngestSpec,
): Promise<{ folder: string; file: string; optionsFile?: string }> => {
  const name = `ingest-${spec.format}-${spec.rows}`;
  if (spec.format === 'csv') {
    const folder = writeBatchFile(workDir, name, benchRows(spec.rows));
    return { folder, file: join(folder, `${name}.csv`) };
  }
  if (spec.format === 'sped') {
    const folder = join(workDir, name);
    mkdirSync(folder, { recursive: true });
    const file = writeSpedFile(folder, name, benchRows(spec.rows));
    return { folder, file, optionsFile: join(folder, 'batch.json') };
  }
  const folder = join(workDir, name);
  mkdirSync(folder, { recursive: true });
  const { default: writeExcelFile } = await import('write-excel-file/node');
  const sheet = [
    ['sku', 'description', 'operation', 'country'],
    ...benchRows(spec.rows).map((row, index) => [
      `B-${index + 1}`,
      row.description,
      row.operation,
      row.country,
    ]),
  ];
  const file = join(folder, `${name}.xlsx`);
  writeFileSync(file, await writeExcelFile(sheet).toBuffer());
  return { folder, file };
};

/**
 * Ingest only: from the drop to Prepare's end, every row read, validated, stored and queued. The
 * Prepare function's own process is measured (peak resident memory, as Lambda's "Max Memory
 * Used"); only the batch record is read while it works, so the bench does not slow it.
 */
const runIngest = async (workDir: string, spec: IngestSpec): Promise<Ingested> => {
  const { folder, file, optionsFile } = await writeIngestFile(workDir, spec);
  // A slow sandbox: nothing much is classified while the rows go in.
  const pipeline = await startLocalPipeline({
    dataDir: join(workDir, `ingest-data-${spec.format}-${spec.rows}`),
    fresh: true,
    timeScale: 1,
    capOverride: 1,
    sandbox: { seed: 'bench' },
  });
  try {
    const startedAt = Date.now();
    const { batchId } = await pipeline.submit({
      file,
      sheetsDir: folder,
      ...(optionsFile ? { optionsFile } : {}),
    });
    const deadline = Date.now() + 60 * 60_000;
    // Prepare works in legs (8 minutes each): a large file's rows are all in once the batch has left
    // `preparing`, whichever leg wrote the last of them.
    let batch = await pipeline.tables.batches.getBatch(batchId);
    while (pipeline.endedInvocations('prepare-batch') === 0 || batch?.state === 'preparing') {
      if (Date.now() > deadline) throw new Error('ingest did not finish within an hour');
      await new Promise((resolve) => setTimeout(resolve, 250));
      if (pipeline.endedInvocations('prepare-batch') > 0)
        batch = await pipeline.tables.batches.getBatch(batchId);
    }
    const seconds = (Date.now() - startedAt) / 1000;
    if (batch?.rows_total !== spec.rows)
      throw new Error(`ingest of ${spec.rows} rows stored ${batch?.rows_total ?? 0} (batch ${batch?.state})`);
    return {
      ...spec,
      seconds,
      rowsPerSecond: spec.rows / seconds,
      peakMemoryMb: pipeline.peakMemoryMb('prepare-batch'),
    };
  } finally {
    await pipeline.close();
  }
};

/** Prepare's peak on each SPED file beside its peak on a CSV of as many rows, when the bench read both. */
const spedAgainstCsv = (ingests: readonly Ingested[]): string[] =>
  ingests.flatMap((sped) => {
    const csv = ingests.find((i) => i.format === 'csv' && i.rows === sped.rows && i.peakMemoryMb !== null);
    if (sped.format !== 'sped' || sped.peakMemoryMb === null || !csv) return [];
    const difference = (sped.peakMemoryMb / csv.peakMemoryMb! - 1) * 100;
    return [
      `Prepare's peak memory on a SPED file of ${sped.rows.toLocaleString('en-US')} items: ${sped.peakMemoryMb} MiB, ` +
        `${fixed(Math.abs(difference), 0)} % ${difference >= 0 ? 'above' : 'below'} its ${csv.peakMemoryMb} MiB on a CSV of as many rows.`,
    ];
  });

/** The ingests as a Markdown table, and how Prepare's peak at the largest CSV compares to the smallest. */
const ingestReport = (ingests: readonly Ingested[]): string => {
  if (ingests.length === 0) return '';
  const table = [
    '| ingest | rows | time | rows/s | Prepare peak memory |',
    '| --- | --- | --- | --- | --- |',
    ...ingests.map(
      (i) =>
        `| ${i.format.toUpperCase()} | ${i.rows.toLocaleString('en-US')} | ${fixed(i.seconds, 1)} s | ${fixed(i.rowsPerSecond, 0)} | ${i.peakMemoryMb ?? '?'} MiB |`,
    ),
  ].join('\n');
  const csv = ingests.filter((i) => i.format === 'csv' && i.peakMemoryMb !== null);
  const smallest = csv.reduce<Ingested | null>((a, b) => (a && a.rows <= b.rows ? a : b), null);
  const larger = csv.filter((i) => smallest && i.rows > smallest.rows);
  const sped = spedAgainstCsv(ingests);
  if (!smallest || larger.length === 0) return [table, ...sped].join('\n\n');
  const growth = larger.map(
    (i) =>
      `${fixed((i.peakMemoryMb! / smallest.peakMemoryMb! - 1) * 100, 0)} % at ${i.rows.toLocaleString('en-US')} rows`,
  );
  return [
    `${table}\n\nPrepare's peak memory above its peak at ${smallest.rows.toLocaleString('en-US')} CSV rows: ${growth.join(', ')}.`,
    ...sped,
  ].join('\n\n');
};

const fixed = (value: number, digits = 2) => value.toFixed(digits);

/** The nightly tables and checks; the numbers to nightly.json; a failed check that fails the run, the exit code. */
const reportNightly = (nightly: readonly SizeMeasured[], timeScale: number, outDir: string) => {
  console.log(
    `\nThe nightly export (time scale ${timeScale}; night 2 is the same file dropped again):\n\n${nightlyReport(nightly)}`,
  );
  const checks = nightly.flatMap((size) => size.nights.flatMap((night) => nightChecks(size, night)));
  console.log(`\n${checks.map((check) => check.line).join('\n')}`);
  writeFileSync(
    join(outDir, 'nightly.json'),
    `${JSON.stringify({ at: new Date().toISOString(), timeScale, sizes: nightly, checks }, null, 2)}\n`,
  );
  const failing = checks.filter((check) => !check.holds && check.failsRun);
  if (failing.length > 0) {
    console.error(
      `bench: ${failing.length} nightly check${failing.length === 1 ? '' : 's'} failed (FAIL lines above)`,
    );
    process.exitCode = 1;
  }
};

/** The nightly export and what matters first, at the sizes asked for (none unless asked). */
const runSizesAsked = async (
  workDir: string,
  asked: {
    nightly: readonly NightlySize[];
    nightlyTimeScale: number;
    checkBelow: string | undefined;
    first: readonly NightlySize[];
    firstTimeScale: number;
  },
) => {
  const assemblyDir = join(workDir, 'nightly-cdk.out');
  const log = (line: string) => console.log(line);
  const nightly: SizeMeasured[] = [];
  for (const size of asked.nightly) {
    console.log(`  the nightly export, ${sizeLabel(size)} (rows:products), two nights…`);
    nightly.push(
      await runNightly(workDir, size, {
        timeScale: asked.nightlyTimeScale,
        assemblyDir,
        log,
        ...(asked.checkBelow ? { checkBelow: Number(asked.checkBelow) } : {}),
      }),
    );
  }
  const first: FirstMeasured[] = [];
  for (const size of asked.first) {
    console.log(`  what matters first, ${sizeLabel(size)} (rows:products), in exposure and file order…`);
    first.push(await runFirstVerdicts(workDir, size, { timeScale: asked.firstTimeScale, assemblyDir, log }));
  }
  return { nightly, first };
};

/** Each function's bundle at a cold start, this checkout's (beside another assembly's unless `now`). */
const reportBundles = async (asked: string) => {
  console.log('  the functions’ bundles, imported one at a time…');
  const before = asked === 'now' ? undefined : await measureBundleImports({ cdkOut: userPath(asked) });
  const after = await measureBundleImports();
  console.log(
    `\nThe functions' bundles (median of 5 fresh processes each; ${before ? `${asked} → this checkout` : 'this checkout'}):\n\n${bundleImportsTable(after, before)}`,
  );
};

/** What matters first: the tables, the numbers to first.json, and a failed check as the exit code. */
const reportFirst = (first: readonly FirstMeasured[], timeScale: number, outDir: string) => {
  console.log(
    `\nWhat matters first (time scale ${timeScale}; a long-tail catalogue in both orders):\n\n${firstVerdictsReport(first)}`,
  );
  writeFileSync(
    join(outDir, 'first.json'),
    `${JSON.stringify({ at: new Date().toISOString(), timeScale, sizes: first }, null, 2)}\n`,
  );
  const failing = first.flatMap((size) =>
    size.orders.flatMap((run) => (run.checks ?? []).filter((c) => !c.holds)),
  );
  if (failing.length > 0) {
    console.error(
      `bench: ${failing.length} check${failing.length === 1 ? '' : 's'} of what matters first failed (FAIL lines above)`,
    );
    process.exitCode = 1;
  }
};

/** The command's options, with their defaults. */
const benchOptions = () =>
  parseArgs({
    args: process.argv.slice(2),
    options: {
      rows: { type: 'string', default: '300' },
      'time-scale': { type: 'string', default: String(1 / 60) },
      ingest: { type: 'string', default: 'csv:2000,csv:100000,xlsx:100000,csv:400000' },
      workbook: { type: 'string', default: '10000,100000' },
      out: { type: 'string', default: 'out/bench' },
      contenders: { type: 'string', default: 'pipeline,concurrent,naive' },
      nightly: { type: 'string', default: '' },
      'nightly-time-scale': { type: 'string', default: '0.02' },
      'nightly-check-below': { type: 'string' },
      first: { type: 'string', default: '' },
      bundles: { type: 'string', default: '' },
      'first-time-scale': { type: 'string', default: '0.01' },
      keep: { type: 'boolean', default: false },
    },
  }).values;

const main = async () => {
  const values = benchOptions();
  const count = Number(values.rows);
  const timeScale = Number(values['time-scale']);
  const ingestSpecs = parseIngests(values.ingest as string);
  const workbookSizes = parseWorkbookSizes(values.workbook as string);
  const sizesAsked = {
    nightly: parseNightlySizes(values.nightly as string),
    nightlyTimeScale: Number(values['nightly-time-scale']),
    checkBelow: values['nightly-check-below'],
    first: parseNightlySizes(values.first as string, '--first'),
    firstTimeScale: Number(values['first-time-scale']),
  };
  const workDir = mkdtempSync(join(tmpdir(), 'ncm-bench-'));
  const rows = benchRows(count);
  try {
    console.log(
      `Bench: ${count} rows, time scale ${fixed(timeScale, 4)} (a run ≈ ${fixed(60 * timeScale, 1)} s)…`,
    );
    const results: Measured[] = [];
    const chosen = (values.contenders as string).split(',').map((name) => name.trim());
    for (const contender of (['pipeline', 'concurrent', 'naive'] as const).filter((name) =>
      chosen.includes(name),
    )) {
      console.log(`  ${contender}…`);
      results.push(
        contender === 'pipeline'
          ? await runPipeline(workDir, rows, timeScale)
          : await runScript(contender, rows, timeScale),
      );
    }
    const ingest: Ingested[] = [];
    for (const spec of ingestSpecs) {
      console.log(
        `  ingest of ${spec.rows.toLocaleString('en-US')} ${spec.format.toUpperCase()} ${spec.format === 'sped' ? 'items' : 'rows'}…`,
      );
      ingest.push(await runIngest(workDir, spec));
    }
    const workbook: WorkbookMeasured[] = [];
    for (const rows of workbookSizes) {
      console.log(`  results.xlsx of ${rows.toLocaleString('en-US')} rows…`);
      workbook.push(await measureWorkbook(workDir, rows));
    }
    const { nightly, first } = await runSizesAsked(workDir, sizesAsked);

    const table = [
      '| contender | wall time | slot utilisation (steady) | slot utilisation (whole run) | peak in progress | 429s | API calls per classification (budget: run/3 s + 3) |',
      '| --- | --- | --- | --- | --- | --- | --- |',
      ...results.map(
        (r) =>
          `| ${r.contender} | ${fixed(r.wallSeconds, 1)} s | ${fixed(r.steadyUtilisation)} | ${fixed(r.utilisation)} | ${r.peakInProgress} | ${r.rateLimited} | ${fixed(r.callsPerClassification, 1)} (${fixed(r.callBudget, 1)}) |`,
      ),
    ].join('\n');
    // A part left out (`--contenders none`, `--ingest ''`, `--workbook ''`) prints nothing.
    if (results.length > 0) console.log(`\n${table}`);
    if (ingest.length > 0)
      console.log(`\nIngest only (read, validate, store, queue):\n\n${ingestReport(ingest)}`);
    if (workbook.length > 0)
      console.log(
        `\nresults.xlsx alone (row records → resultsWorkbook → file; memory of its own process):\n\n${workbookReport(workbook)}`,
      );
    const outDir = userPath(values.out as string);
    mkdirSync(outDir, { recursive: true });
    writeFileSync(
      join(outDir, 'bench.json'),
      `${JSON.stringify({ at: new Date().toISOString(), rows: count, timeScale, results, ingest, workbook }, null, 2)}\n`,
    );
    if (nightly.length > 0) reportNightly(nightly, sizesAsked.nightlyTimeScale, outDir);
    if (first.length > 0) reportFirst(first, sizesAsked.firstTimeScale, outDir);
    if (values.bundles) await reportBundles(values.bundles as string);
  } finally {
    // `--keep` leaves every pipeline's data folder (tables, bucket, logs) to read after a run.
    if (values.keep) console.log(`bench: the working folder is kept at ${workDir}`);
    else rmSync(workDir, { recursive: true, force: true });
  }
};

main().catch((error: unknown) => {
  console.error(`bench: ${error instanceof Error ? error.message : String(error)}`);
  process.exitCode = 1;
});
