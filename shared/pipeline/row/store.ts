import { Readable } from 'node:stream';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { TcsError } from '../../tcs/errors.js';
import { detailMessage, detailMessagesOf, detailOf } from '../../wording/details.js';
import type { Message } from '../../wording/message.js';
import { verdictPdfName, verdictPdfPaths } from '../core/bucket-layout.js';
import { scrubErrorText } from '../core/error-text.js';
import { originOf, originOfKey } from '../core/origins.js';
import type { PipelinePorts, WholeObjects } from '../core/ports.js';
import { RowState, type RowStep } from '../core/records.js';
import { resolvedResult } from '../core/row-results.js';
import { simWatchOfVerdict } from '../core/sim-watch.js';
import { lookUpOrigins } from '../reuse/origin-lookups.js';
import { classificationInStatus } from './route-classification.js';
import { finalStep, loadRow } from './row-state.js';
import { markVerdictToCheck } from './verdict-to-check.js';

/**
 * Store, the Row workflow's step for a resolved classification: copies the verdict PDF to the
 * batch's outbox and gives the step that ends the row with the verdict's columns. A verdict under
 * the batch's `check_below`, or whose SIM opening waits for a choice, is marked `to_check` and
 * gets its check item before the result is final; a verdict whose SIM openings are not confirmed
 * yet gets a watch. A PDF the service cannot give leaves the row resolved, saying so. A leader
 * whose followers are of other origins keeps their tariffs and SIM openings with its verdict.
 */
export const storeRow = async (
  ports: Pick<PipelinePorts, 'clock' | 'service' | 'batches' | 'checks' | 'simWatches'> & {
    objects: WholeObjects;
  },
  input: unknown,
): Promise<RowStep> => {
  const state = RowState.parse(input);
  const found = await classificationInStatus(ports, state, 'resolved');
  if ('rerouted' in found) return found.rerouted;
  const { classification: c, run } = found;
  const row = await loadRow(ports.batches, state.batch_id, state.row);
  const name = verdictPdfName(row.row, row.product?.sku ?? null, c.chosen_ncm);
  const paths = verdictPdfPaths(state.batch_id, name);
  let verdictPdf: string | null = paths.relative;
  let pdfNote: Message | null = null;
  try {
    const pdf = await ports.service.downloadVerdictPdf(c.id);
    // Streamed from the signed URL straight to the bucket; the URL itself is never kept.
    await ports.objects.put(paths.key, Readable.fromWeb(pdf.body as WebReadableStream), 'application/pdf');
  } catch (error) {
    // The verdict is billed and valid without its PDF: the row stays resolved and says so.
    // A failure of our bucket is not the service's: thrown, for the workflow's Retry.
    if (!(error instanceof TcsError)) throw error;
    verdictPdf = null;
    pdfNote = detailMessage('verdict_pdf_missing', { text: scrubErrorText(error.message) });
  }
  const result = resolvedResult(c, {
    currentNcm: row.product?.current_ncm ?? null,
    verdictPdf,
    appUrl: row.app_url ?? null,
  });
  if (pdfNote) Object.assign(result, detailOf([...detailMessagesOf(result), pdfNote]));
  // Rows of other origins follow this one: their tariffs (and SIM openings) are kept with the verdict.
  const ownOrigin = originOf(row.product);
  const others = (row.other_origins ?? []).flatMap((key) => originOfKey(key) ?? []);
  if (ownOrigin && others.length > 0 && c.chosen_ncm) {
    const lookups = await lookUpOrigins(ports.service, c.chosen_ncm, ownOrigin, others);
    if (Object.keys(lookups).length > 0) result.origin_lookups = lookups;
  }
  const reasons = await markVerdictToCheck(ports, c, row, { verdictPdf, now: ports.clock.now() });
  if (reasons.length > 0) result.check = 'to_check';
  // SIM openings the registry has not confirmed yet: the daily sweep asks again.
  const simWatch = simWatchOfVerdict(row, c, ports.clock.now().toISOString());
  if (simWatch) await ports.simWatches.put(simWatch);
  return finalStep(result, run);
};
