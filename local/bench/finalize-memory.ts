/**
 * Finalize's memory against a batch's rows: the real `finalizeBatch` (and `writePartialResults`)
 * on ports made for the measurement, each size in a fresh process of its own, so the memory it
 * reports is that step's alone:
 *
 *   node --import tsx local/bench/finalize-memory.ts 2000 100000 400000
 *   node --import tsx local/bench/finalize-memory.ts --products 2000 --steps finalize 100000
 *   node --import tsx local/bench/finalize-memory.ts --upload-mib-per-second 4 100000
 *   node --import tsx local/bench/finalize-memory.ts --out out/bench/finalize-memory 2000
 *
 * The batch is shaped like the nightly export (docs/benchmark.md, "The nightly export"): each
 * product's rows are contiguous, its first row the leader, the others `follows` it. Of every 20
 * products 17 resolve (every other one resolved in this batch with its verdict PDF, the others
 * reused from an earlier batch, `verdict_pdf` still the cache's key: Finalize copies it), 2 wait
 * for answers, 1 failed. For the partial results, one leader in five is still in progress.
 *
 * The batch table makes each page of rows when it is asked for and keeps none, so what grows
 * with rows is the step's own; the bucket reads every upload to its end (at the given pace, to
 * see whether a slow upload makes the writers pile up) and keeps only its size.
 *
 * Each size runs twice: as Lambda runs it (the peaks, sampled every 20 ms and on every page read,
 * and the kernel's peak resident size), then with a full collection every few pages to measure
 * what is live (heap and external after the collection): a peak depends on when V8 collects,
 * what is live does not.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { S3Client } from '@aws-sdk/client-s3';
import { createS3ObjectStore } from '../../shared/aws/s3-object-store.js';
import { uploadStream } from '../../shared/aws/s3-stream-upload.js';
import { type AuditEvent, auditEventKey } from '../../shared/pipeline/core/audit-records.js';
import type { BatchStore } from '../../shared/pipeline/core/ports.js';
import {
  BatchRecord,
  type ReviewItem,
  type RowRecord,
  RowRecord as RowRecordSchema,
} from '../../shared/pipeline/core/records.js';
import { afterMove, bornRow } from '../../shared/pipeline/core/row-life.js';
import type { FinalizePorts } from '../../shared/pipeline/finalize/finalize-batch.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..', '..');
const SELF = fileURLToPath(import.meta.url);
const MIB = 1024 * 1024;

type Step = 'finalize' | 'partial';
type Mode = 'natural' | 'live';

type Options = {
  products: number;
  steps: Step[];
  /** The bucket's reading pace, MiB/s; 0: as fast as it can. */
  uploadMibPerSecond: number;
  /** Where to keep the files written; null: nowhere. */
  out: string | null;
};

/** What one child reports. */
type Measured = {
  rows: number;
  step: Step;
  mode: Mode;
  seconds: number;
  /** After the ports are made and a full collection, before the step: the process's own. */
  baseline: { rss: number; heapUsed: number; external: number };
  peak: { rss: number; heapUsed: number; external: number };
  /** VmHWM: the kernel's peak resident size; null off Linux. */
  peakRssKernel: number | null;
  /** Live mode: the most heap + external found live after a full collection. */
  liveMost: { heapUsed: number; external: number } | null;
  bytes: Record<string, number>;
  pages: number;
};

// ---------------------------------------------------------------------------
// The batch, made as it is read
// ---------------------------------------------------------------------------

const BATCH_ID = 'bench-finalize-memory';
const AT = '2026-11-27T03:00:00.000Z';
const EARLIER_BATCH = 'bench-earlier-night';
const HEADER = ['Código', 'Descrição', 'NCM', 'Operação', 'País', 'Cor', 'Tamanho'];
const DESCRIPTIONS = [
  'Café torrado em grãos',
  'Bomba submersível para poço',
  'Rodamientos de bolas 6204',
  'Passenger car tyres 205/55 R16',
  'Vinho tinto Malbec 750 ml',
  'Camiseta 100% algodão manga curta',
  'Peças diversas',
  'Lâmpada LED 9W E27',
  'Pastilha de freio dianteira',
  'Parafuso sextavado M10 com porca',
];
const NCMS = ['09012100', '84137010', '84821010', '40111000', '22042100', '61091000'];
const COLOURS = ['Preto', 'Branco', 'Azul', 'Vermelho', 'Cinza', 'Verde', 'Amarelo', 'Marrom'];
const SIZES = ['PP', 'P', 'M', 'G', 'GG', 'XG'];
const ID_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

type Outcome = 'resolved' | 'reused' | 'pending_data' | 'failed';

const classificationId = (n: number): string => {
  let id = '';
  for (let rest = n, i = 0; i < 12; i++, rest = Math.floor(rest / ID_ALPHABET.length))
    id = ID_ALPHABET[rest % ID_ALPHABET.length] + id;
  return `cls_${id}`;
};

/** The batch's layout: which product each row is, and each product's first row. */
const layoutOf = (rows: number, products: number) => {
  const base = Math.floor(rows / products);
  const extra = rows % products;
  /** Product `p`'s first row (1-based). */
  const firstRow = (p: number) => p * base + Math.min(p, extra) + 1;
  const productOf = (row: number): number => {
    const index = row - 1;
    const cut = extra * (base + 1);
    return index < cut ? Math.floor(index / (base + 1)) : extra + Math.floor((index - cut) / base);
  };
  return { firstRow, productOf };
};

const outcomeOf = (product: number): Outcome => {
  const position = product % 20;
  if (position === 6 || position === 13) return 'pending_data';
  if (position === 19) return 'failed';
  return product % 2 === 0 ? 'resolved' : 'reused';
};

const reviewItemOf = (product: number, row: number): ReviewItem => ({
  classification_id: classificationId(product + 1),
  batch_id: BATCH_ID,
  row,
  sku: `P${String(product + 1).padStart(5, '0')}-PRE-PP`,
  external_reference: null,
  description: `${DESCRIPTIONS[product % DESCRIPTIONS.length]}, linha ${product + 1}`,
  questions: [
    { id: 'q1', text: 'O produto é descafeinado?', options: ['Sim', 'Não'] },
    { id: 'q2', text: 'Qual a embalagem?', options: ['Saco', 'Lata', 'Granel'] },
  ],
  provisional_ncm: '09012100',
  provisional_confidence: 41,
  abandons_at: '2026-12-27T03:00:00.000Z',
  state: 'pending',
  created_at: AT,
});

const syntheticBatch = (rows: number, products: number, running: boolean) => {
  const { firstRow, productOf } = layoutOf(rows, products);
  const record = BatchRecord.parse({
    batch_id: BATCH_ID,
    name: 'nightly',
    source: {
      bucket: 'in',
      key: 'inbox/nightly/export.csv',
      version_or_etag: '"e1"',
      folder: 'inbox/nightly/',
      file_name: 'export.csv',
    },
    execution_id: 'exec-1',
    state: running ? 'running' : 'finalizing',
    header: HEADER,
    delimiter: ';',
    rows_total: rows,
    rows_dispatched: products,
    started_at: AT,
  });

  const rowRecord = (row: number): RowRecord => {
    const product = productOf(row);
    const first = firstRow(product);
    const variant = row - first;
    const code = `P${String(product + 1).padStart(5, '0')}`;
    const sku = `${code}-${COLOURS[variant % COLOURS.length]!.slice(0, 3).toUpperCase()}-${SIZES[Math.floor(variant / COLOURS.length) % SIZES.length]}-${variant}`;
    const description = `${DESCRIPTIONS[product % DESCRIPTIONS.length]}, linha ${String(product + 1).padStart(5, '0')}`;
    const operation = product % 4 === 3 ? 'export' : 'import';
    const ncm = NCMS[product % NCMS.length]!;
    const cells = [
      sku,
      description,
      product % 3 === 2 ? '' : ncm,
      operation === 'import' ? 'Importação' : 'Exportação',
      'CN',
      COLOURS[variant % COLOURS.length]!,
      SIZES[Math.floor(variant / COLOURS.length) % SIZES.length]!,
    ];
    const base = {
      batch_id: BATCH_ID,
      row,
      line: row + 1,
      cells,
      updated_at: AT,
      attempt: 1,
      dispatch: 1,
      product: {
        row,
        description,
        operation,
        country: 'CN',
        sheet: null,
        external_reference: null,
        sku,
        current_ncm: cells[2] === '' ? null : ncm,
        flags: [],
      },
      product_key: `sku:${sku}`,
      fingerprint: `fp-${product.toString(16).padStart(16, '0')}`,
    } satisfies Partial<RowRecord>;
    if (row !== first) return bornRow({ ...base, follows: first }, { as: 'following' });
    const id = classificationId(product + 1);
    const appUrl = `https://app.tcs.example/app/classifications/${id}`;
    if (running && product % 5 === 4)
      return afterMove(bornRow(base, { as: 'queued' }), {
        move: 'submitted',
        classification_id: id,
        submitted_attempt: 1,
        submitted_at: AT,
        app_url: appUrl,
        at: AT,
      });
    const outcome = outcomeOf(product);
    const title = description.split(',')[0]!;
    const verdict = {
      classification_id: id,
      app_url: appUrl,
      title,
      ncm,
      ncm_description: 'Outros, não especificados nem compreendidos noutras posições',
      sim_code: `${ncm}10`,
      confidence: String(80 + (product % 20)),
      confidence_band: 'high',
      alternatives: `${NCMS[(product + 1) % NCMS.length]} (31%); ${NCMS[(product + 2) % NCMS.length]} (8%)`,
      import_duty_applicable: '14',
      duty_kind: 'extrazone',
      statistical_rate: '0',
      aec: '14',
      tariff_source: 'TEC',
      ...(cells[2] === '' ? {} : { current_ncm_matches: product % 7 === 1 ? 'no' : 'yes' }),
    };
    const result: RowRecord['result'] =
      outcome === 'resolved'
        ? {
            status: 'resolved',
            ...verdict,
            verdict_pdf: `pdfs/${String(row).padStart(6, '0')}-${sku}-${ncm}.pdf`,
            cost_usd: '2.00',
          }
        : outcome === 'reused'
          ? {
              status: 'reused',
              ...verdict,
              detail: `Unchanged since the verdict of 2026-11-26 (batch ${EARLIER_BATCH}); reused without a new classification.`,
              // The cache's key: Finalize copies the PDF into this batch (reuse.ts, isPendingPdfCopy).
              verdict_pdf: `outbox/${EARLIER_BATCH}/pdfs/${String(row).padStart(6, '0')}-${sku}-${ncm}.pdf`,
              cost_usd: '0.00',
            }
          : outcome === 'pending_data'
            ? {
                status: 'pending_data',
                detail: 'awaiting answers to 2 questions (see review.csv)',
                classification_id: id,
                app_url: appUrl,
                title,
                questions: 'O produto é descafeinado? (Sim / Não) | Qual a embalagem? (Saco / Lata / Granel)',
                cost_usd: '0.00',
              }
            : {
                status: 'failed',
                reason: 'no_valid_candidates',
                detail: 'the service could not classify the product: no candidate NCM fitted; not billed',
                classification_id: id,
                title,
                cost_usd: '0.00',
              };
    return bornRow(
      { ...base, classification_id: id, submitted_attempt: 1, app_url: appUrl, submitted_at: AT },
      { as: 'final', result: result! },
    );
  };

  const reviewItems = (): ReviewItem[] =>
    Array.from({ length: products }, (_, product) => product)
      .filter((product) => outcomeOf(product) === 'pending_data' && !(running && product % 5 === 4))
      .map((product) => reviewItemOf(product, firstRow(product)));

  /**
   * The audit log of the rows classified in this batch (core/audit-records.ts), made as it is read:
   * each leader resolved, asked or failed here was submitted, then settled a millisecond later, a
   * leader two milliseconds after the one before; a reused one has none (audit.csv tells it from
   * the row). In key order, as the table answers.
   */
  const logged = Array.from({ length: products }, (_, product) => product).filter(
    (product) => outcomeOf(product) !== 'reused' && !(running && product % 5 === 4),
  );
  const eventAt = (index: number): AuditEvent => {
    const product = logged[Math.floor(index / 2)]!;
    const row = firstRow(product);
    const submitted = index % 2 === 0;
    const outcome = outcomeOf(product);
    return {
      at: new Date(Date.parse(AT) + 60_000 + index).toISOString(),
      batch_id: BATCH_ID,
      row,
      event: submitted
        ? 'submitted'
        : outcome === 'pending_data'
          ? 'questions'
          : outcome === 'failed'
            ? 'failed'
            : 'resolved',
      who: submitted ? 'ana.souza@example.com' : '',
      classification_id: classificationId(product + 1),
      detail: submitted ? '' : outcome === 'resolved' ? `NCM ${NCMS[product % NCMS.length]}, 91 %` : '',
      sku: rowRecord(row).product?.sku ?? null,
    };
  };
  const auditPage = (after: string | null, limit: number): AuditEvent[] => {
    // Keys grow with the index: the first after `after` found by halving.
    let low = 0;
    let high = logged.length * 2;
    while (after !== null && low < high) {
      const middle = Math.floor((low + high) / 2);
      if (auditEventKey(eventAt(middle)) <= after) low = middle + 1;
      else high = middle;
    }
    return Array.from({ length: Math.max(0, Math.min(limit, logged.length * 2 - low)) }, (_, i) =>
      eventAt(low + i),
    );
  };

  return { record, rowRecord, reviewItems, auditPage };
};

// ---------------------------------------------------------------------------
// Ports: a batch table that makes its pages, a bucket that reads uploads and keeps their sizes
// ---------------------------------------------------------------------------

const benchPorts = (
  rows: number,
  products: number,
  running: boolean,
  options: Options,
  onPage: () => void,
) => {
  const batch = syntheticBatch(rows, products, running);
  let record = batch.record;
  let pages = 0;
  const batches: Pick<
    BatchStore,
    'getBatch' | 'updateBatch' | 'claimAuditPosition' | 'getRow' | 'moveRow' | 'rowsPage'
  > = {
    getBatch: async (id) => (id === BATCH_ID ? structuredClone(record) : null),
    updateBatch: async (_id, patch) => {
      record = { ...record, ...patch };
    },
    claimAuditPosition: async (_id, move) => {
      record = { ...record, audit_through: move.to };
      return true;
    },
    getRow: async (_id, row) => (row >= 1 && row <= rows ? batch.rowRecord(row) : null),
    // Every row of a finalizing batch has ended: a move is never asked for; refused if it is.
    moveRow: async () => false,
    rowsPage: async (_id, page) => {
      pages += 1;
      onPage();
      const from = (page.after ?? 0) + 1;
      const to = Math.min(rows, from + page.limit - 1);
      const pageRows = Array.from({ length: Math.max(0, to - from + 1) }, (_, i) =>
        batch.rowRecord(from + i),
      );
      // A real table's Query answers a promise's turn later; so does this one.
      await new Promise(setImmediate);
      return { rows: pageRows, next: to < rows ? to : null };
    },
  };

  const bytes: Record<string, number> = {};
  const objects = createS3ObjectStore({
    client: benchS3Client(rows, options, (name, length) => {
      bytes[name] = (bytes[name] ?? 0) + length;
    }),
    bucket: 'bench',
    uploadStream,
  });
  const ports = {
    clock: { now: () => new Date(AT), span: (ms: number) => ms },
    objects,
    batches,
    reviews: { listByBatch: async () => batch.reviewItems() },
    checks: { listByBatch: async () => [] },
    audit: {
      record: async () => {},
      page: async (_id: string, from: { after: string | null; limit: number }) => {
        // A real table's Query answers a promise's turn later; so does this one.
        await new Promise(setImmediate);
        return batch.auditPage(from.after, from.limit);
      },
    },
    events: { batchCompleted: async () => {} },
  } as unknown as FinalizePorts;
  return { ports, bytes, pages: () => pages, sample: batch.rowRecord };
};

/** The parts of a multipart upload by upload id, kept on disk with `--out` only. */
const uploadedParts = new Map<string, { name: string; parts: Map<number, string> }>();

/**
 * An S3 client whose requests never leave the process: the real S3 adapter and its uploads in
 * parts (shared/aws/s3-object-store.ts) run as on AWS, and each request's body is read to its end
 * at the pace asked, its size kept (with `--out`, its bytes too).
 */
const benchS3Client = (rows: number, options: Options, received: (name: string, length: number) => void) => {
  const perByteMs = options.uploadMibPerSecond > 0 ? 1000 / MIB / options.uploadMibPerSecond : 0;
  const readBody = async (body: unknown, name: string, file: string | null): Promise<void> => {
    const write = file ? createWriteStream(file) : null;
    const chunks: Iterable<Uint8Array> | AsyncIterable<Uint8Array> =
      body instanceof Uint8Array || typeof body === 'string'
        ? [typeof body === 'string' ? Buffer.from(body) : body]
        : body && typeof body === 'object' && Symbol.asyncIterator in body
          ? (body as AsyncIterable<Uint8Array>)
          : [];
    let owed = 0;
    for await (const chunk of chunks) {
      received(name, chunk.byteLength);
      write?.write(chunk);
      owed += chunk.byteLength * perByteMs;
      if (owed >= 5) {
        await sleep(owed);
        owed = 0;
      }
    }
    if (write) await new Promise((resolve) => write.end(resolve));
  };
  const bodyBytes = async (body: unknown): Promise<Buffer> => {
    if (body instanceof Uint8Array || typeof body === 'string') return Buffer.from(body);
    const chunks: Buffer[] = [];
    for await (const chunk of body as AsyncIterable<Uint8Array>) chunks.push(Buffer.from(chunk));
    return Buffer.concat(chunks);
  };
  const answer = (body = '', headers: Record<string, string> = {}) => ({
    response: { statusCode: 200, headers: { ...headers }, body: Readable.from([Buffer.from(body)]) },
  });
  let uploads = 0;
  const kept = new Map<string, Buffer>();
  return new S3Client({
    region: 'us-east-1',
    credentials: { accessKeyId: 'bench', secretAccessKey: 'bench' },
    requestChecksumCalculation: 'WHEN_REQUIRED',
    requestHandler: {
      handle: async (request: {
        method: string;
        path: string;
        query?: Record<string, string | string[] | null>;
        body?: unknown;
      }) => {
        const name = decodeURIComponent(request.path.split('/').at(-1) ?? '');
        const query = request.query ?? {};
        const out = options.out ? join(options.out, `${rows}-${name}`) : null;
        if (request.method === 'POST' && 'uploads' in query) {
          const id = `upload-${++uploads}`;
          uploadedParts.set(id, { name, parts: new Map() });
          return answer(
            `<?xml version="1.0" encoding="UTF-8"?><InitiateMultipartUploadResult><Bucket>bench</Bucket><Key>${name}</Key><UploadId>${id}</UploadId></InitiateMultipartUploadResult>`,
          );
        }
        if (request.method === 'PUT' && typeof query.partNumber === 'string') {
          const upload = uploadedParts.get(String(query.uploadId))!;
          const part = out ? `${out}.part${query.partNumber}` : null;
          if (part) upload.parts.set(Number(query.partNumber), part);
          await readBody(request.body, name, part);
          return answer('', { etag: `"part-${query.partNumber}"` });
        }
        if (request.method === 'POST' && typeof query.uploadId === 'string') {
          await readBody(request.body, `${name} (complete)`, null);
          const upload = uploadedParts.get(query.uploadId)!;
          if (out) {
            const whole = createWriteStream(out);
            for (const [, part] of [...upload.parts].sort(([a], [b]) => a - b)) {
              whole.write(readFileSync(part));
              rmSync(part);
            }
            await new Promise((resolve) => whole.end(resolve));
          }
          uploadedParts.delete(query.uploadId);
          return answer(
            `<?xml version="1.0" encoding="UTF-8"?><CompleteMultipartUploadResult><Bucket>bench</Bucket><Key>${name}</Key><ETag>"whole"</ETag></CompleteMultipartUploadResult>`,
          );
        }
        if (
          request.method === 'PUT' &&
          !('x-amz-copy-source' in (request as { headers?: object }).headers!)
        ) {
          // What a leg keeps for the next (its tally) is read back: kept, a few KB.
          if (request.path.includes('/work/')) {
            kept.set(request.path, await bodyBytes(request.body));
            return answer('', { etag: '"whole"' });
          }
          await readBody(request.body, name, out);
          return answer('', { etag: '"whole"' });
        }
        // A listing (the NCM tables dropped into reference/ncm/): none, so the carried table is read.
        if (request.method === 'GET' && query['list-type'] === '2')
          return answer(
            '<?xml version="1.0" encoding="UTF-8"?><ListBucketResult><Name>bench</Name><KeyCount>0</KeyCount><IsTruncated>false</IsTruncated></ListBucketResult>',
          );
        if (request.method === 'GET' && kept.has(request.path))
          return answer(kept.get(request.path)!.toString('utf8'), {
            'content-length': String(kept.get(request.path)!.byteLength),
          });
        if (request.method === 'PUT')
          return answer(
            '<?xml version="1.0" encoding="UTF-8"?><CopyObjectResult><ETag>"copy"</ETag></CopyObjectResult>',
          );
        if (request.method === 'HEAD') {
          // The earlier batch's PDFs are there; nothing of this batch's outbox is yet.
          if (request.path.includes(`/${EARLIER_BATCH}/`))
            return answer('', { etag: '"pdf"', 'content-length': '40000' });
          return { response: { statusCode: 404, headers: {}, body: Readable.from([]) } };
        }
        throw new Error(`the bench's S3 does not answer ${request.method} ${request.path}`);
      },
    },
  });
};

// ---------------------------------------------------------------------------
// The child: one step, one size, one mode
// ---------------------------------------------------------------------------

const collect = (): void => {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('finalize-memory needs --expose-gc');
  gc();
  gc();
};

const memoryNow = () => {
  const m = process.memoryUsage();
  return { rss: m.rss / MIB, heapUsed: m.heapUsed / MIB, external: m.external / MIB };
};

const kernelPeakRss = (): number | null => {
  try {
    const kib = /VmHWM:\s+(\d+) kB/.exec(readFileSync('/proc/self/status', 'utf8'))?.[1];
    return kib ? Number(kib) / 1024 : null;
  } catch {
    return null;
  }
};

const runChild = async (rows: number, step: Step, mode: Mode, options: Options): Promise<Measured> => {
  // Loaded here, not by the parent: the baseline below includes the step's code, as a warm Lambda's does.
  const { finalizeBatch } = await import('../../shared/pipeline/finalize/finalize-batch.js');
  const { writePartialResults } = await import('../../shared/pipeline/finalize/partial-results.js');
  const peak = { rss: 0, heapUsed: 0, external: 0 };
  const probe = () => {
    const m = memoryNow();
    peak.rss = Math.max(peak.rss, m.rss);
    peak.heapUsed = Math.max(peak.heapUsed, m.heapUsed);
    peak.external = Math.max(peak.external, m.external);
  };
  let liveMost: Measured['liveMost'] = mode === 'live' ? { heapUsed: 0, external: 0 } : null;
  const pagesPerPass = Math.ceil(rows / 500);
  const liveEvery = Math.max(1, Math.floor(pagesPerPass / 8));
  let seen = 0;
  const onPage = () => {
    seen += 1;
    probe();
    if (liveMost && seen % liveEvery === 0) {
      collect();
      const m = memoryNow();
      liveMost = {
        heapUsed: Math.max(liveMost.heapUsed, m.heapUsed),
        external: Math.max(liveMost.external, m.external),
      };
    }
  };
  const bench = benchPorts(rows, options.products, step === 'partial', options, onPage);
  // The records must be ones the pipeline could hold: a leader and a follower of each outcome.
  for (let row = 1; row <= Math.min(rows, 50); row++) RowRecordSchema.parse(bench.sample(row));
  collect();
  const baseline = memoryNow();
  writeFileSync('/proc/self/clear_refs', '5');
  const timer = setInterval(probe, 20);
  const startedAt = performance.now();
  try {
    if (step === 'finalize') {
      const result = await finalizeBatch(bench.ports, { prepare: { batch_id: BATCH_ID, next: 'wait' } });
      if (result.rows_total !== rows)
        throw new Error(`finalize counted ${result.rows_total} rows, not ${rows}`);
    } else {
      const report = await writePartialResults(bench.ports as never, BATCH_ID);
      if (!report.written) throw new Error(`no partial results: ${report.why}`);
    }
  } finally {
    clearInterval(timer);
  }
  probe();
  return {
    rows,
    step,
    mode,
    seconds: (performance.now() - startedAt) / 1000,
    baseline,
    peak,
    peakRssKernel: kernelPeakRss(),
    liveMost,
    bytes: bench.bytes,
    pages: bench.pages(),
  };
};

// ---------------------------------------------------------------------------
// The parent: each size and step in a fresh process, then a table
// ---------------------------------------------------------------------------

const spawnChild = (rows: number, step: Step, mode: Mode, options: Options): Promise<Measured> =>
  new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ['--expose-gc', '--import', 'tsx', SELF, '--child', JSON.stringify({ rows, step, mode, options })],
      // The SDK's notice about Node versions is not the measurement's.
      { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_NO_WARNINGS: '1' } },
    );
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{'))
        reject(new Error(`${step} of ${rows} rows (${mode}) ended with ${signal ?? `exit status ${code}`}`));
      else resolve(JSON.parse(last) as Measured);
    });
  });

const parseArgs = (args: string[]): { sizes: number[]; options: Options } => {
  const options: Options = {
    products: 200,
    steps: ['finalize', 'partial'],
    uploadMibPerSecond: 0,
    out: null,
  };
  const sizes: number[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const value = () => {
      const next = args[++i];
      if (next === undefined) throw new Error(`${arg} needs a value`);
      return next;
    };
    if (arg === '--products') options.products = Number(value());
    else if (arg === '--steps') options.steps = value().split(',') as Step[];
    else if (arg === '--upload-mib-per-second') options.uploadMibPerSecond = Number(value());
    else if (arg === '--out') options.out = value();
    else {
      const rows = Number(arg.replaceAll('_', ''));
      if (!Number.isInteger(rows) || rows < 1) throw new Error(`"${arg}" is not a row count`);
      sizes.push(rows);
    }
  }
  if (sizes.length === 0) sizes.push(2_000, 100_000);
  if (!(options.products >= 1)) throw new Error('--products: a count of products');
  if (options.steps.some((step) => step !== 'finalize' && step !== 'partial'))
    throw new Error('--steps: finalize, partial or both');
  for (const rows of sizes)
    if (rows < options.products) throw new Error(`${rows} rows: fewer than the products`);
  return { sizes, options };
};

const mib = (value: number) => value.toFixed(0);

const main = async () => {
  const args = process.argv.slice(2);
  if (args[0] === '--child') {
    const { rows, step, mode, options } = JSON.parse(args[1]!) as {
      rows: number;
      step: Step;
      mode: Mode;
      options: Options;
    };
    process.stdout.write(`${JSON.stringify(await runChild(rows, step, mode, options))}\n`);
    return;
  }
  const { sizes, options } = parseArgs(args);
  if (options.out) mkdirSync(options.out, { recursive: true });
  const measured: { natural: Measured; live: Measured }[] = [];
  console.log(
    `products ${options.products}; upload ${options.uploadMibPerSecond > 0 ? `${options.uploadMibPerSecond} MiB/s` : 'as fast as read'}`,
  );
  console.log(
    '| step | rows | time | baseline RSS | peak RSS (kernel) | peak − baseline | peak heapUsed | peak external | live after GC (heap / external) | results.xlsx | results.csv |',
  );
  console.log('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  for (const step of options.steps) {
    for (const rows of sizes) {
      const natural = await spawnChild(rows, step, 'natural', options);
      const live = await spawnChild(rows, step, 'live', options);
      measured.push({ natural, live });
      const peakRss = Math.max(natural.peak.rss, natural.peakRssKernel ?? 0);
      const xlsx = natural.bytes['results.xlsx'] ?? natural.bytes['results.partial.xlsx'] ?? 0;
      const csv = natural.bytes['results.csv'] ?? natural.bytes['results.partial.csv'] ?? 0;
      console.log(
        [
          '',
          step,
          rows.toLocaleString('en-US'),
          `${natural.seconds.toFixed(1)} s`,
          mib(natural.baseline.rss),
          mib(peakRss),
          `+${mib(peakRss - natural.baseline.rss)}`,
          mib(natural.peak.heapUsed),
          mib(natural.peak.external),
          `${mib(live.liveMost!.heapUsed)} / ${mib(live.liveMost!.external)}`,
          `${(xlsx / MIB).toFixed(1)} MiB`,
          `${(csv / MIB).toFixed(1)} MiB`,
          '',
        ]
          .join(' | ')
          .trim(),
      );
    }
  }
  if (options.out)
    writeFileSync(join(options.out, 'finalize-memory.json'), JSON.stringify(measured, null, 2));
};

main().catch((error: unknown) => {
  console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
});
