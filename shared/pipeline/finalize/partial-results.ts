/**
 * Partial results while a long batch runs: `results.partial.csv`, `results.partial.xlsx` and
 * `summary.partial.json` in the outbox, with every row's state now, so people can work on the
 * rows already final long before the last one ends. Written at most every `partial_every_minutes`
 * while rows finish (a finishing row asks, in row/complete.ts) and whenever someone asks (a
 * request object under `requests/<batch-id>/`, or `npm run classify -- --status <batch-id>`).
 *
 * A row already final reads exactly as it will in results.csv; a follower whose leader is final
 * shows the leader's outcome, worked out as it is read and never written; a row still on its way
 * shows its working status. Finalize replaces the files' contents with the final ones, so a
 * partial file left in the outbox never says less than results.csv.
 *
 * Two passes, each in legs like Finalize's: the rows added up (the tally kept in `work/` between
 * legs), then results.partial.csv and .xlsx written together, as Finalize writes the final ones.
 * No workflow runs this function, so a leg whose time is spent drops a request object for the
 * next, whose Object Created event calls the function again.
 */

import * as z from 'zod';
import { tableInForce } from '../../ncm-table/reference-table.js';
import { BUCKET_PREFIXES, batchIdOfRequestKey, outboxKey } from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord } from '../core/records.js';
import { coverageShares } from '../core/row-counts.js';
import { BatchSummary, OUTPUT_FILES, PARTIAL_FILES } from '../outbox/results-files.js';
import { FINALIZE_SETTINGS, type FinalizeSettings } from './finalize-settings.js';
import { loadTally, pageTally, saveTally, type TallyRead, tallyKey } from './outbox-rows.js';
import { ResultsWriting, writeResultsFiles } from './results-in-legs.js';
import { standingRowPages } from './standing-rows.js';

/**
 * summary.partial.json: the batch's summary as of `as_of`, with how many rows are still working, by
 * status.
 */
export const PartialSummary = BatchSummary.extend({
  /** True while the batch runs; false once Finalize replaced it with the final state. */
  partial: z.boolean(),
  as_of: z.string(),
  /** Rows still on their way, by working status (`queued`, `submitting`, `in_progress`, `following`). */
  working: z.record(z.string(), z.number().int().min(0)),
  /**
   * What matters first, in whole percents: the rows with a verdict now, the value they carry (of
   * the file's value column; null where it has none), and the classifications over, out of all
   * the batch sends ("61 % of the rows, 74 % of the value, after 9 % of the classifications").
   * Absent once the batch has ended.
   */
  coverage: z
    .object({
      rows_pct: z.number().int().min(0).max(100),
      value_pct: z.number().int().min(0).max(100).nullable(),
      classifications_pct: z.number().int().min(0).max(100),
    })
    .optional(),
});
export type PartialSummary = z.infer<typeof PartialSummary>;

/**
 * What one call of `writePartialResults` did: wrote the files (`written`), wrote nothing and says
 * `why`, or stopped with more to do (`continues`).
 */
export type PartialReport = {
  batch_id: string;
  written: boolean;
  /** The batch has ended: its final files stand, and no partial files are written. */
  ended?: boolean;
  why?: string;
  /** The work goes on in another invocation, asked for by the request object it dropped. */
  continues?: boolean;
};

/**
 * Where a partial write stopped when a leg's time was spent: saved as the request object the leg
 * drops for the next (`requests/<batch>/partial.<run>.<leg>.json`), whose Object Created event
 * calls the function again. The tally and the bytes not yet sent as a part wait in `work/`.
 */
export const PartialProgress = z.object({
  /** Names this write's objects: `partial-<ms>`, when it began. */
  run: z.string().regex(/^partial-\d+$/),
  /** Legs so far: names the request object each drops. */
  leg: z.number().int().min(1),
  as_of: z.string(),
  pass: z.enum(['tally', 'results']),
  tallied_through: z.number().int().min(0),
  writing: ResultsWriting.nullable(),
});
export type PartialProgress = z.infer<typeof PartialProgress>;

type PartialPorts = Pick<PipelinePorts, 'clock' | 'objects' | 'batches'>;

/**
 * The partial summary's coverage from the tally, in the shares the progress line and the console
 * say (`coverageShares`): a classification is over once its row no longer works (a working row
 * that follows another sends none of its own).
 */
const coverageNow = (
  batch: Pick<BatchRecord, 'rows_total' | 'rows_dispatched'>,
  working: TallyRead['working'],
  covered: TallyRead['covered'],
): NonNullable<PartialSummary['coverage']> => {
  const stillSent = Object.values(working).reduce((sum, count) => sum + count, 0) - (working.following ?? 0);
  const shares = coverageShares({
    rows: batch.rows_total,
    covered: {
      rows: covered.rows,
      valueCents: covered.value,
      valueTotalCents: covered.value_total,
      classifications: Math.max(0, batch.rows_dispatched - stillSent),
      classificationsTotal: batch.rows_dispatched,
    },
  });
  return { rows_pct: shares.rows, value_pct: shares.value, classifications_pct: shares.classifications };
};

/**
 * Why no partial files are written now, or null when they are: no such batch, a batch that has
 * ended (its final files stand), or one whose rows Prepare is still storing (a partial file too
 * has a line for every input row, so none is written before each row is stored).
 */
const whyNotNow = (
  batch: BatchRecord | null,
  requested: BatchRecord | null,
): Pick<PartialReport, 'why' | 'ended'> | null => {
  if (!batch) return { why: 'no such batch' };
  if (batch.finished_at !== undefined && !requested?.round_of)
    return { ended: true, why: 'the batch has ended: its final files are in the outbox' };
  if (batch.storing)
    return {
      why: "Prepare is still storing the batch's rows: partial results follow once every row is stored",
    };
  return null;
};

/**
 * Writes the partial files of a batch (or of the batch an answers round resumes), from the start
 * or from where an earlier leg stopped (`from`), and reports what it did. When its time is spent
 * it saves where it stopped and drops a request object that calls it again. A batch that has
 * ended already has its final files: nothing is written.
 */
export const writePartialResults = async (
  ports: PartialPorts,
  requestedId: string,
  from: PartialProgress | null = null,
  settings: FinalizeSettings = FINALIZE_SETTINGS,
): Promise<PartialReport> => {
  const requested = await ports.batches.getBatch(requestedId);
  const batchId = requested?.round_of ?? requestedId;
  const batch = requested?.round_of ? await ports.batches.getBatch(batchId) : requested;
  const notNow = whyNotNow(batch, requested);
  if (!batch || notNow) return { batch_id: batchId, written: false, ...notNow };
  const now = ports.clock.now();
  const until = now.getTime() + settings.legMs;
  const run = from?.run ?? `partial-${now.getTime()}`;
  const asOf = from?.as_of ?? now.toISOString();
  const leg = (from?.leg ?? 0) + 1;
  const handOn = async (progress: Omit<PartialProgress, 'run' | 'leg' | 'as_of'>): Promise<PartialReport> => {
    await ports.objects.put(
      partialContinuationKey(batchId, run, leg),
      JSON.stringify({ ...progress, run, leg, as_of: asOf }),
      'application/json',
    );
    return { batch_id: batchId, written: false, continues: true };
  };

  // One pass adds up the rows as they stand; the files read the batch again as they are written.
  let tallied_through = from?.tallied_through ?? 0;
  const ncm = await tableInForce(ports.objects);
  const { table } = ncm;
  if (!from || from.pass === 'tally') {
    const tallied = pageTally(
      batch,
      from ? await loadTally(ports.objects, tallyKey(batchId, tallied_through, run)) : undefined,
    );
    const pages = standingRowPages(ports.batches, batchId, {
      after: tallied_through === 0 ? null : tallied_through,
      pageSize: settings.pageSize,
      table,
    });
    // A page read ahead: a leg stops early only when rows are left, and reads a page at least.
    for (let page = await pages.next(); !page.done; ) {
      tallied.add(page.value);
      tallied_through = page.value.at(-1)?.row.row ?? tallied_through;
      page = await pages.next();
      if (page.done || page.value.length === 0 || ports.clock.now().getTime() < until) continue;
      await pages.return(undefined);
      await saveTally(ports.objects, tallyKey(batchId, tallied_through, run), tallied.read);
      return handOn({ pass: 'tally', tallied_through, writing: null });
    }
    await saveTally(ports.objects, tallyKey(batchId, 'whole', run), tallied.read);
  }

  // A working row counts among the rows (and as a follower) but under no output status.
  const { tally, width, working, covered } = pageTally(
    batch,
    await loadTally(ports.objects, tallyKey(batchId, 'whole', run)),
  ).read;
  const counted = tally.summary(batch, new Date(asOf), ncm);
  const summary: PartialSummary = {
    ...counted,
    partial: true,
    as_of: asOf,
    working,
    coverage: coverageNow({ ...batch, rows_total: counted.rows_total }, working, covered),
  };
  const written = await writeResultsFiles(ports, batch, from?.pass === 'results' ? from.writing : null, {
    csv: { key: outboxKey(batchId, PARTIAL_FILES.results), name: `${run}/${PARTIAL_FILES.results}` },
    xlsx: {
      key: outboxKey(batchId, PARTIAL_FILES.results_workbook),
      name: `${run}/${PARTIAL_FILES.results_workbook}`,
      summary,
      at: new Date(asOf),
    },
    // A reused verdict's PDF is copied into this batch at its end: until then, nothing to link.
    linkReusedPdfs: false,
    width,
    table,
    until,
    pageSize: settings.pageSize,
    partBytes: settings.partBytes,
  });
  if (written.next === 'again') return handOn({ pass: 'results', tallied_through, writing: written.writing });
  await ports.objects.put(
    outboxKey(batchId, PARTIAL_FILES.summary),
    JSON.stringify(summary, null, 2),
    'application/json',
  );
  return { batch_id: batchId, written: true };
};

/**
 * When a batch has partial files, makes them say what the final files say: results.partial.csv
 * and .xlsx become copies of results.csv and .xlsx, and summary.partial.json the final summary
 * marked `partial: false`. Does nothing when there are none. Finalize calls it last.
 */
export const replacePartialFiles = async (
  objects: Pick<PipelinePorts['objects'], 'head' | 'put' | 'copy'>,
  batchId: string,
  final: { summary: BatchSummary; at: string },
): Promise<void> => {
  if (!(await objects.head(outboxKey(batchId, PARTIAL_FILES.summary)))) return;
  // Copies of the final files, written just before: a large batch's results are not made twice.
  await objects.copy(outboxKey(batchId, OUTPUT_FILES.results), outboxKey(batchId, PARTIAL_FILES.results));
  await objects.copy(
    outboxKey(batchId, OUTPUT_FILES.results_workbook),
    outboxKey(batchId, PARTIAL_FILES.results_workbook),
  );
  const summary: PartialSummary = { ...final.summary, partial: false, as_of: final.at, working: {} };
  await objects.put(
    outboxKey(batchId, PARTIAL_FILES.summary),
    JSON.stringify(summary, null, 2),
    'application/json',
  );
};

const PartialResultsAsked = z.object({ batch_id: z.string().min(1) });
const RequestObjectCreated = z.object({
  'detail-type': z.literal('Object Created'),
  detail: z.object({ object: z.object({ key: z.string() }) }),
});

/**
 * The batch whose partial results an event asks for: `{ "batch_id": … }` (a finishing row, a
 * person invoking the function), or S3's *Object Created* for a request object dropped under
 * `requests/<batch id>/`. Null for anything else.
 */
export const partialResultsRequestOf = (event: unknown): string | null => {
  const asked = PartialResultsAsked.safeParse(event);
  if (asked.success) return asked.data.batch_id;
  const created = RequestObjectCreated.safeParse(event);
  if (!created.success) return null;
  try {
    // S3 form-encodes the key in the event, as it does for a dropped spreadsheet.
    return batchIdOfRequestKey(decodeURIComponent(created.data.detail.object.key.replace(/\+/g, ' ')));
  } catch {
    return null;
  }
};

/** The request object a leg of the partial results drops for the next. */
const partialContinuationKey = (batchId: string, run: string, leg: number): string =>
  `${BUCKET_PREFIXES.requests}${batchId}/partial.${run}.${leg}.json`;
const CONTINUATION = /^requests\/[^/]+\/partial\.partial-\d+\.\d+\.json$/;

/**
 * Where an earlier leg stopped, when the event is the Object Created of the request object it
 * dropped; null for any other event (a first request).
 */
export const partialProgressOf = async (
  objects: Pick<PipelinePorts['objects'], 'getBytes'>,
  event: unknown,
): Promise<PartialProgress | null> => {
  const created = RequestObjectCreated.safeParse(event);
  if (!created.success) return null;
  const key = decodeURIComponent(created.data.detail.object.key.replace(/\+/g, ' '));
  if (!CONTINUATION.test(key)) return null;
  const bytes = await objects.getBytes(key);
  return bytes ? PartialProgress.parse(JSON.parse(new TextDecoder().decode(bytes))) : null;
};
