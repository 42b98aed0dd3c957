/**
 * The child process of the bench's workbook measurement (workbook-memory.ts starts it, one per
 * size, so the memory it reports is its own):
 *
 *   node --expose-gc --import tsx local/bench/workbook-memory-child.ts <rows> <dir>
 *
 * Builds `rows` row records like a catalogue's after a run, then streams results.xlsx into
 * `<dir>/results-<rows>.xlsx` with `resultsWorkbook` (as Finalize uploads it), then builds
 * results.csv for comparison. Prints one JSON line: a `WorkbookMeasured`.
 *
 * Memory: `process.memoryUsage()` every 50 ms, also from inside the workbook's loop (its
 * `resultFor`, every 1,000 rows: the loop over the rows does not give the timer a turn), and the
 * kernel's peak resident size (`VmHWM`, reset through /proc/self/clear_refs before each phase),
 * which sees the peaks that fall between samples. Peaks include garbage V8 has not collected yet;
 * what the writer holds is measured apart, after a full collection when the last row is added
 * (everything written, nothing committed): unlike a peak, it does not depend on when V8 collects.
 */
import { createWriteStream, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import {
  BatchRecord,
  type RowRecord,
  RowRecord as RowRecordSchema,
} from '../../shared/pipeline/core/records.js';
import { resultNow } from '../../shared/pipeline/core/row-life.js';
import { buildSummary } from '../../shared/pipeline/finalize/summary-tally.js';
import { buildResultsCsv } from '../../shared/pipeline/outbox/results-files.js';
import { resultsWorkbook } from '../../shared/pipeline/outbox/results-workbook.js';

const MIB = 1024 * 1024;

/** Memory in MiB at one instant; `external` includes `arrayBuffers` (where Buffers live), so it is not added. */
export type MemoryMb = { rss: number; heapUsed: number; external: number };

/** One phase (writing the workbook, building the CSV): time, size and what it added to memory. */
export type PhaseMeasured = {
  seconds: number;
  rowsPerSecond: number;
  fileMb: number;
  /** Just before the phase, after a full collection: the records and the runtime. */
  before: MemoryMb;
  /** The highest of each figure during the phase, over every sample. */
  peak: MemoryMb;
  /** The kernel's peak resident size during the phase (VmHWM after a reset); null off Linux. */
  peakRssKernelMb: number | null;
  /** Peak RSS (the higher of the samples and the kernel's) minus `before.rss`. */
  addedRssMb: number;
  samples: number;
};

export type WorkbookMeasured = {
  rows: number;
  buildSeconds: number;
  workbook: PhaseMeasured & {
    /** After a full collection as the last row is added; null if the layout never asked for it. */
    atLastRow: MemoryMb | null;
  };
  csv: PhaseMeasured;
};

// ---------------------------------------------------------------------------
// Records like a catalogue's after a run
// ---------------------------------------------------------------------------

/** Descriptions in the style of sample-data/products.csv; each row's gets its own reference. */
const DESCRIPTIONS = [
  'Café torrado em grãos, tipo exportação, pacote 1 kg',
  'Bomba submersível para poço artesiano 1 CV, 220 V',
  'Rodamientos de bolas 6204-2RS, caja x 10 unidades',
  'Passenger car tyres 205/55 R16 91V',
  'Vinho tinto Malbec 750 ml, safra 2023',
  'Camiseta 100% algodão manga curta, malha penteada',
  'Disposable syringe 5 ml, luer lock, sterile, box of 100',
  'Lâmpada LED 9W E27 bivolt 6500K',
  'Pastilha de freio dianteira, composto cerâmico',
  'Parafuso sextavado M10 x 50 com porca, aço zincado classe 8.8',
  'Escova de dentes macia, cabo anatômico',
  'Zapatillas deportivas para correr, capellada de malla',
  'Soja em grão a granel, safra 2025/26',
  'Motor elétrico trifásico 5 CV, 4 polos, carcaça 100L',
  'Redutor de velocidade por engrenagens, eixo oco, redução 1:30',
  'Óculos de sol polarizados, armação em acetato',
];

const NCMS = ['0901.21.00', '8413.70.10', '8482.10.10', '4011.10.00', '2204.21.00', '6109.10.00'];
const COUNTRIES = ['BR', 'AR', 'CN', 'US', 'DE', 'IT', 'PY', 'UY'];
const ID_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
const AT = '2026-11-21T12:00:00.000Z';

/** A valid `cls_` id for a number (as test/helpers/records.ts makes them). */
const classificationId = (n: number): string => {
  let id = '';
  for (let rest = n, i = 0; i < 12; i++, rest = Math.floor(rest / ID_ALPHABET.length))
    id = ID_ALPHABET[rest % ID_ALPHABET.length] + id;
  return `cls_${id}`;
};

/** 40 to 80 characters: a catalogue description and a reference of its own. */
const descriptionOf = (row: number): string => {
  const text = `${DESCRIPTIONS[row % DESCRIPTIONS.length]}, ref. ${100_000 + row}`;
  return text.length > 80 ? text.slice(0, 80) : text.padEnd(40, '.');
};

/** Most rows resolved; one in twelve waiting on answers, one in 25 failed, one in 25 rejected. */
const statusOf = (row: number): 'resolved' | 'pending_data' | 'failed' | 'rejected' =>
  row % 12 === 5 ? 'pending_data' : row % 25 === 7 ? 'failed' : row % 25 === 19 ? 'rejected' : 'resolved';

const benchRowRecord = (row: number): RowRecord => {
  const sku = `SKU-${String(row).padStart(6, '0')}`;
  const description = descriptionOf(row);
  const operation = row % 3 === 0 ? 'export' : 'import';
  const country = COUNTRIES[row % COUNTRIES.length]!;
  const cells = [sku, description, operation === 'import' ? 'Importação' : 'Exportação', country];
  const status = statusOf(row);
  const base = {
    batch_id: 'bench-workbook',
    row,
    line: row + 1,
    cells,
    updated_at: AT,
    attempt: 1,
    dispatch: 1,
  };
  if (status === 'rejected')
    return {
      ...base,
      status,
      rejection: {
        row,
        reason: 'country_unknown',
        column: 'country',
        detail: `País "${country}X" is not an ISO 3166-1 country code.`,
        issues: [
          {
            reason: 'country_unknown',
            column: 'country',
            detail: `País "${country}X" is not an ISO 3166-1 country code.`,
          },
        ],
      },
      result: {
        status,
        reason: 'country_unknown',
        detail: `País "${country}X" is not an ISO 3166-1 country code.`,
        cost_usd: '0.00',
      },
      finished_at: AT,
    };
  const id = classificationId(row);
  const appUrl = `https://app.tcs.example/app/classifications/${id}`;
  const product: RowRecord['product'] = {
    row,
    description,
    operation,
    country,
    sheet: null,
    external_reference: null,
    sku,
    current_ncm: null,
    flags: [],
  };
  const ncm = NCMS[row % NCMS.length]!;
  const result: RowRecord['result'] =
    status === 'resolved'
      ? {
          status,
          classification_id: id,
          app_url: appUrl,
          title: description.split(',')[0]!,
          ncm,
          ncm_description: 'Outros, não especificados nem compreendidos noutras posições',
          sim_code: `${ncm}.10`,
          confidence: String(80 + (row % 20)),
          confidence_band: 'high',
          alternatives: `${NCMS[(row + 1) % NCMS.length]} (31%); ${NCMS[(row + 2) % NCMS.length]} (8%)`,
          ...(operation === 'import'
            ? { import_duty_applicable: '14', duty_kind: 'extrazone', statistical_rate: '0', aec: '14' }
            : { export_duty: '0', export_refund: '0' }),
          tariff_source: 'TEC',
          verdict_pdf: `pdfs/${String(row).padStart(6, '0')}-${sku}.pdf`,
          cost_usd: '2.00',
        }
      : status === 'pending_data'
        ? {
            status,
            detail: 'awaiting answers to 2 questions (see review.csv)',
            classification_id: id,
            app_url: appUrl,
            title: description.split(',')[0]!,
            questions: 'O produto é descafeinado? (Sim / Não) | Qual a embalagem? (Saco / Lata / Granel)',
            cost_usd: '0.00',
          }
        : {
            status,
            reason: 'no_valid_candidates',
            detail: 'the service could not classify the product: no candidate NCM fitted; not billed',
            classification_id: id,
            title: description.split(',')[0]!,
            cost_usd: '0.00',
          };
  return {
    ...base,
    status,
    product,
    product_key: `sku:${sku}`,
    fingerprint: `fp-${row.toString(16).padStart(16, '0')}`,
    classification_id: id,
    submitted_attempt: 1,
    app_url: appUrl,
    submitted_at: AT,
    result,
    finished_at: AT,
  };
};

const batchRecord = (rows: number): BatchRecord =>
  BatchRecord.parse({
    batch_id: 'bench-workbook',
    name: 'bench-workbook',
    source: {
      bucket: 'in',
      key: 'inbox/bench-workbook/products.csv',
      version_or_etag: '"e1"',
      folder: 'inbox/bench-workbook/',
      file_name: 'products.csv',
    },
    execution_id: 'exec-1',
    state: 'finalizing',
    header: ['SKU', 'Descrição', 'Operação', 'País'],
    delimiter: ',',
    rows_total: rows,
    rows_dispatched: rows,
    started_at: AT,
    finished_at: AT,
  });

// ---------------------------------------------------------------------------
// Memory
// ---------------------------------------------------------------------------

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('the workbook bench child needs --expose-gc');
  gc();
  gc();
};

const now = (): MemoryMb => {
  const m = process.memoryUsage();
  return { rss: m.rss / MIB, heapUsed: m.heapUsed / MIB, external: m.external / MIB };
};

/** Resets the kernel's peak resident size (Linux ≥ 4.0); false where it cannot. */
const resetPeakRss = (): boolean => {
  try {
    writeFileSync('/proc/self/clear_refs', '5');
    return true;
  } catch {
    return false;
  }
};

const kernelPeakRssMb = (): number | null => {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib ? Number(kib) / 1024 : null;
  } catch {
    return null;
  }
};

/** Measures one phase: memory every 50 ms and whenever `probe` is called. */
const measurePhase = async (
  rows: number,
  file: string,
  /** Resolves with the milliseconds not to count (the bench's own collections), if any. */
  run: (probe: () => void) => Promise<number | undefined>,
): Promise<PhaseMeasured> => {
  collect();
  const before = now();
  const kernel = resetPeakRss();
  const peak = { ...before };
  let samples = 0;
  const probe = () => {
    const m = now();
    samples += 1;
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
  };
  const timer = setInterval(probe, 50);
  const startedAt = performance.now();
  let excludedMs: number | undefined;
  try {
    excludedMs = await run(probe);
  } finally {
    clearInterval(timer);
  }
  const seconds = (performance.now() - startedAt - (excludedMs ?? 0)) / 1000;
  probe();
  const peakRssKernelMb = kernel ? kernelPeakRssMb() : null;
  return {
    seconds,
    rowsPerSecond: rows / seconds,
    fileMb: statSync(file).size / MIB,
    before,
    peak,
    peakRssKernelMb,
    addedRssMb: Math.max(peak.rss, peakRssKernelMb ?? 0) - before.rss,
    samples,
  };
};

// ---------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------

const main = async () => {
  const [countText, dir] = process.argv.slice(2);
  const count = Number(countText);
  if (!Number.isInteger(count) || count < 1 || !dir)
    throw new Error('usage: workbook-memory-child.ts <rows> <dir>');

  const builtAt = performance.now();
  const batch = batchRecord(count);
  const rows = Array.from({ length: count }, (_, i) => benchRowRecord(i + 1));
  // The records must be ones the pipeline could hold: one of each status through the schema.
  for (const row of rows.slice(0, 25)) RowRecordSchema.parse(row);
  const summary = buildSummary(batch, rows, new Date(AT));
  const buildSeconds = (performance.now() - builtAt) / 1000;

  const xlsxFile = join(dir, `results-${count}.xlsx`);
  let atLastRow: MemoryMb | null = null;
  const written = await measurePhase(count, xlsxFile, async (probe) => {
    let seen = 0;
    let collectingMs = 0;
    const stream = resultsWorkbook({
      batch,
      rows,
      summary,
      // The default, resultNow, with a sample every 1,000 calls: the loop never yields to the timer.
      // The last row's result is asked for in each pass (widths, then writing): the last ask is
      // when every other row is written, so what is held then, after a collection, is what stays.
      resultFor: (row) => {
        seen += 1;
        if (seen % 1000 === 0) probe();
        if (row.row === count) {
          probe();
          const collectedAt = performance.now();
          collect();
          atLastRow = now();
          collectingMs += performance.now() - collectedAt;
        }
        return resultNow(row);
      },
    });
    // Resolves when the file is written and closed; fails with the workbook's stream.
    await pipeline(stream, createWriteStream(xlsxFile));
    return collectingMs;
  });

  // After the workbook: its RSS is the CSV's start, so the CSV's RSS added is a lower bound.
  const csvFile = join(dir, `results-${count}.csv`);
  const csv = await measurePhase(count, csvFile, async () => {
    const body = buildResultsCsv(batch, rows);
    writeFileSync(csvFile, body);
    return undefined;
  });

  const measured: WorkbookMeasured = { rows: count, buildSeconds, workbook: { ...written, atLastRow }, csv };
  process.stdout.write(`${JSON.stringify(measured)}\n`);
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
