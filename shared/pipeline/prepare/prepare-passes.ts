/**
 * The two reads of Prepare's input file, each a chunk of rows at a time, so memory holds a chunk
 * and what the batch keeps per product, never the file:
 *
 *   survey   every row read and planned, nothing written: that the file reads to its end, which
 *            products reuse a verdict (any of their rows may hold it), which come in several
 *            origins, the warnings
 *   records  every row planned again, the same way, as the records Prepare writes or plans
 */

import type { TableInForce } from '../../ncm-table/reference-table.js';
import { inputWarningCollector } from '../../spreadsheet/input-warnings.js';
import { MAX_DATA_ROWS, type SpreadsheetFile } from '../../spreadsheet/read-spreadsheet.js';
import type { MappedRow } from '../../spreadsheet/schemas.js';
import type { Message } from '../../wording/message.js';
import type { BatchOptions } from '../core/batch-options-schema.js';
import { garbageCollector } from '../core/garbage-collection.js';
import { originKey, originOf, sameOrigin } from '../core/origins.js';
import type { PipelinePorts } from '../core/ports.js';
import type {
  BatchRecord,
  CachedVerdict,
  ExposureSummary,
  PendingClassification,
  RowRecord,
} from '../core/records.js';
import { resultNcmDigits } from '../core/row-results.js';
import { originLookupMemory } from '../reuse/origin-lookups.js';
import { declaredNcmCollector } from './declared-ncm-warnings.js';
import { centsOf, exposureColumnsOf, exposureRanker, type RankedExposure } from './exposure-order.js';
import { type FileProblem, fileProblemOf, readProblemMessage } from './input-file.js';
import { productOriginsCollector } from './product-origins.js';
import { type ProductRows, productRowsCollector } from './reused-products.js';
import {
  classificationJoiner,
  openClassificationFinder,
  type RowPlan,
  reusableProductFinder,
  reusedVerdicts,
  type rowRecordPlanner,
} from './row-plans.js';
import { rowWarningCollector } from './row-warnings.js';

type PassPorts = Pick<PipelinePorts, 'cache'> &
  Partial<Pick<PipelinePorts, 'reviews'>> & {
    service?: Pick<PipelinePorts['service'], 'getTariffs' | 'getSimOpenings'>;
  };

/** The input file's shape as the batch records it, for its output files. */
export type FileShape = Pick<BatchRecord, 'header' | 'delimiter' | 'columns' | 'warnings'> & {
  format: BatchRecord['format'];
};

/**
 * How Prepare reads a file: rows held at once (read, planned, written and sent together), and the
 * most a file may have. Tests make chunks small to prove nothing depends on holding the file.
 */
export type PrepareSettings = {
  /** Rows read, planned, written and sent together. */
  rowsPerChunk: number;
  /** The most data rows a file may have; a longer one is refused. */
  maxRows: number;
  /** How long one leg writes rows before handing on to the next invocation (a Lambda runs 15 min at most). */
  legMs: number;
};
/** The settings Prepare runs with: 500 rows a chunk, the largest file the reader takes, 8 minutes a leg. */
export const PREPARE_SETTINGS: PrepareSettings = {
  rowsPerChunk: 500,
  maxRows: MAX_DATA_ROWS,
  legMs: 8 * 60_000,
};

/** How often the survey says how many rows it has read: one write to the batch record per this many rows. */
const READ_REPORT_ROWS = 10_000;

/**
 * Yields the items of a pass in lists of `size` (the last may be shorter), in order, collecting
 * garbage every few thousand rows so a long pass stays small.
 */
export async function* inChunks<T>(items: AsyncIterable<T>, size: number): AsyncGenerator<T[]> {
  let chunk: T[] = [];
  const handled = garbageCollector();
  for await (const item of items) {
    chunk.push(item);
    if (chunk.length >= size) {
      yield chunk;
      handled(chunk.length);
      chunk = [];
    }
  }
  if (chunk.length > 0) yield chunk;
}

/** What the first pass found, for the second: the file, how to plan a chunk, and what the whole file told. */
export type PlannedBatch = {
  file: SpreadsheetFile;
  planChunk: (rows: readonly MappedRow[]) => Promise<RowPlan[]>;
  /** The products that reuse a verdict, and the cache key it is under. */
  keyByFingerprint: ReadonlyMap<string, string>;
  /**
   * Reused verdicts already read by this invocation, by cache key, the first few thousand: the
   * count of the batch and the pass that stores its rows read each once (`reusedVerdicts`).
   */
  verdictsRead?: Map<string, CachedVerdict>;
  /** Each of those products' first row and how many rows it has. */
  reusedProducts: ReadonlyMap<string, ProductRows>;
  /** Under `reclassify: ended_codes`, the products whose verdict's code is no longer in force. */
  recheckFingerprints?: ReadonlySet<string>;
  /** The products waiting for answers to an earlier batch's classification (they join it). */
  openByFingerprint: ReadonlyMap<string, PendingClassification>;
  /** A product's origins other than `own`, by its product fingerprint (`productOriginsCollector`). */
  otherOrigins?: (productFingerprint: string, own: string) => string[];
  /** In exposure order: each product's place in the send order, and what the ranking found. */
  exposure?: { ranked: RankedExposure; summary: ExposureSummary };
  /** Every product of the file reuses a verdict (a night with nothing changed): nothing will be sent. */
  everyProductReused?: boolean;
  options: BatchOptions;
  shape: FileShape;
  /** What the file's reader found wrong with the file, as messages. */
  readProblems: Message[];
  settings: PrepareSettings;
};

/**
 * Takes a planned batch and gives how to read a row record's value in cents, from the file's value
 * column (exposure order found one; 0 without), for the value of the rows final at birth.
 */
export const rowValueCents = (planned: Pick<PlannedBatch, 'file' | 'exposure'>) => {
  const header = planned.exposure?.summary.value_header;
  const index = header === undefined ? -1 : planned.file.header.indexOf(header);
  return (record: RowRecord): number => (index < 0 ? 0 : centsOf(record.cells[index] ?? ''));
};

/**
 * The first pass: every row read and planned, nothing written. It gives what only the whole file
 * tells: that it can be read to its end (else the problem), which products reuse a verdict (any of
 * their rows may hold it) or join a classification waiting for answers, and the warnings.
 */
export const surveyRows = async (
  ports: PassPorts,
  file: SpreadsheetFile,
  pass: {
    planChunk: PlannedBatch['planChunk'];
    options: BatchOptions;
    now: Date;
    settings: PrepareSettings;
    batchId: string;
    /** The NCM table in force, which the declared NCMs are checked against. */
    ncm: TableInForce;
    /** Told how many rows have been read so far, every `READ_REPORT_ROWS` rows, so people see Prepare move. */
    onRead?: (rows: number) => Promise<void>;
  },
): Promise<
  | {
      keyByFingerprint: ReadonlyMap<string, string>;
      reusedProducts: ReadonlyMap<string, ProductRows>;
      recheckFingerprints: ReadonlySet<string>;
      openByFingerprint: ReadonlyMap<string, PendingClassification>;
      otherOrigins: (productFingerprint: string, own: string) => string[];
      exposure?: PlannedBatch['exposure'];
      everyProductReused: boolean;
      warnings: Message[];
      problems: Message[];
    }
  | FileProblem
> => {
  const reusable = reusableProductFinder(ports, {
    options: pass.options,
    now: pass.now,
    inForce: (ncm) => pass.ncm.table.inForce(ncm),
  });
  const open = openClassificationFinder(ports, { batchId: pass.batchId, now: pass.now });
  const fileWarnings = inputWarningCollector(file.columns);
  const planWarnings = rowWarningCollector(file.columns.fields.description?.header);
  const declared = declaredNcmCollector(pass.ncm, file.columns.fields.current_ncm?.header);
  const productRows = productRowsCollector();
  const origins = productOriginsCollector(pass.options);
  const exposure =
    pass.options.order === 'exposure' ? exposureRanker(pass.options, exposureColumnsOf(file.columns)) : null;
  const rows = file.readRows();
  let read = 0;
  let reported = 0;
  // A chunk's product-cache reads run while the next chunk is read and planned: the survey waits
  // on whichever is slower, not on both. Each chunk's reads start once the previous chunk's are
  // settled, so a product found reused is never looked up again (and answers come in file order).
  let lookingUp: Promise<void> = Promise.resolve();
  try {
    for await (const chunk of inChunks(rows.rows, pass.settings.rowsPerChunk)) {
      read += chunk.length;
      if (pass.onRead && read - reported >= READ_REPORT_ROWS) {
        reported = read;
        await pass.onRead(read);
      }
      for (const row of chunk) fileWarnings.add(row);
      const plans = await pass.planChunk(chunk);
      productRows.add(plans);
      origins.add(plans);
      exposure?.add(plans);
      planWarnings.add(plans);
      declared.add(plans);
      await lookingUp;
      lookingUp = (async () => {
        await reusable.add(plans);
        await open.add(plans, reusable.keyByFingerprint);
      })();
      // Observed at the next chunk or after the loop; never an unhandled rejection meanwhile.
      lookingUp.catch(() => undefined);
    }
    await lookingUp;
  } catch (error) {
    // Nothing of this survey left running once it answers.
    await lookingUp.catch(() => undefined);
    const problem = fileProblemOf(error);
    if (problem) return problem;
    throw error;
  }
  const finished = rows.finished();
  return {
    keyByFingerprint: reusable.keyByFingerprint,
    reusedProducts: productRows.ofReused(reusable.keyByFingerprint),
    recheckFingerprints: reusable.recheckFingerprints,
    openByFingerprint: open.openByFingerprint,
    otherOrigins: origins.othersOf,
    ...(exposure ? { exposure: { summary: exposure.rank(), ranked: exposure } } : {}),
    everyProductReused: productRows.allReused(reusable.keyByFingerprint),
    // The reader's first (text read from bytes that were not UTF-8: check it before the rest).
    warnings: [
      ...finished.messages,
      ...fileWarnings.messages(),
      ...declared.messages(),
      ...planWarnings.messages(),
    ],
    problems: finished.problems.map(readProblemMessage),
  };
};

/**
 * The second pass: yields each chunk's rows planned (the same way again) as the records to write,
 * with their plans and the verdicts they reuse. Rows that join an earlier batch's open
 * classification are added to its review item first; a plan-only batch (`join.write` false)
 * writes nothing.
 */
export async function* recordChunks(
  ports: PassPorts,
  planned: PlannedBatch,
  planner: ReturnType<typeof rowRecordPlanner>,
  join: { batchId: string; now: Date; write: boolean },
): AsyncGenerator<{ plans: RowPlan[]; records: RowRecord[]; verdicts: ReadonlyMap<string, CachedVerdict> }> {
  const joinChunk = classificationJoiner(
    ports,
    { ...join, options: planned.options },
    planned.openByFingerprint,
  );
  const lookups = ports.service ? originLookupMemory(ports.service) : null;
  for await (const chunk of inChunks(planned.file.readRows().rows, planned.settings.rowsPerChunk)) {
    const plans = await planned.planChunk(chunk);
    const verdicts = await reusedVerdicts(ports, plans, planned.keyByFingerprint, planned.verdictsRead);
    const joins = await joinChunk(plans, verdicts);
    await lookups?.add(originsToLookUp(plans, verdicts));
    yield {
      plans,
      records: planner.recordsOf(plans, verdicts, joins, planned.recheckFingerprints, (ncm) =>
        lookups?.of(ncm),
      ),
      verdicts,
    };
  }
}

/**
 * The NCMs and origins a chunk's reused rows need looked up: a row of another origin than its
 * verdict's, when the verdict does not keep that origin's look-up.
 */
const originsToLookUp = (plans: readonly RowPlan[], verdicts: ReadonlyMap<string, CachedVerdict>) =>
  plans.flatMap((plan) => {
    if (plan.kind !== 'valid') return [];
    const verdict = verdicts.get(plan.identity.fingerprint);
    const ncm = verdict ? resultNcmDigits(verdict.result) : null;
    const origin = originOf(plan.product);
    if (!verdict?.origin || !ncm || !origin || sameOrigin(verdict.origin, origin)) return [];
    if (verdict.result.origin_lookups?.[originKey(origin)]) return [];
    return [{ ncm, verdictOrigin: verdict.origin, origin }];
  });

/** Reads the file through once, keeping nothing: gives its problems, or why it cannot be read to its end. */
export const readsToItsEnd = async (
  file: SpreadsheetFile,
): Promise<{ problems: Message[] } | FileProblem> => {
  const rows = file.readRows();
  try {
    for await (const _row of rows.rows);
  } catch (error) {
    const problem = fileProblemOf(error);
    if (problem) return problem;
    throw error;
  }
  return { problems: rows.finished().problems.map(readProblemMessage) };
};
