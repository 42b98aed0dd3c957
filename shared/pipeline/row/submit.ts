/**
 * Submit, the Row workflow's first task: upload the sheet (if any) and create the
 * classification with the attempt's Idempotency-Key (docs/architecture.md, property 4). In an
 * answers round it posts the answers instead (`submitAnswers`).
 */

import type { ProductRow } from '../../spreadsheet/schemas.js';
import { detailMessage } from '../../wording/details.js';
import { submittedEvent } from '../audit/audit-events.js';
import { type Who, whoAnswered, whoOf } from '../core/audit-records.js';
import { uploadRecordKey } from '../core/bucket-layout.js';
import { deriveCreationKey, deriveRowKey } from '../core/keys.js';
import type { PipelinePorts, WholeObjects } from '../core/ports.js';
import { type BatchRecord, type RowRecord, RowState, type RowStep } from '../core/records.js';
import { isFinalResult, resultNow } from '../core/row-life.js';
import { errorResult, stoppedResult } from '../core/row-results.js';
import { followAcceptedRun, followClassification } from './route-classification.js';
import { completionIdOf, finalStep, isSuperseded, loadRow } from './row-state.js';
import { sheetFileUrl } from './sheet-upload.js';
import { submitAnswers } from './submit-answers.js';
import { submitFailure } from './submit-failure.js';

type SubmitPorts = Pick<PipelinePorts, 'clock' | 'service' | 'batches' | 'audit'> & { objects: WholeObjects };

/**
 * Submit: uploads the row's sheet (if any), creates the classification under the attempt's key,
 * and gives the next step (wait 3 s, then Poll). A row already final, a stopped batch or a row
 * without a product end at once; a row whose attempt already created its classification follows
 * it instead of creating another; throws when a later dispatch owns the row.
 * Primary course: row ─▶ key ─▶ [upload] ─▶ POST ─▶ row in_progress ─▶ wait 3 s.
 */
export const submitRow = async (ports: SubmitPorts, input: unknown): Promise<RowStep> => {
  const state = RowState.parse(input);
  const now = ports.clock.now();
  // The row and the record its stop is kept on (the batch's, or the answers round's) at once: a
  // round trip less between the dispatch and the POST.
  const [row, stopRecord] = await Promise.all([
    loadRow(ports.batches, state.batch_id, state.row),
    ports.batches.getBatch(completionIdOf(state)),
  ]);
  // A late duplicate (the row was finished meanwhile): its result stands.
  const shown = resultNow(row);
  if (isFinalResult(shown)) {
    return finalStep(shown, {
      classification_id: row.classification_id,
      submitted_at: row.submitted_at,
    });
  }
  if (isSuperseded(row, state)) {
    throw new Error(
      `row ${state.row_key}: execution a${state.attempt}/d${state.dispatch} superseded by a${row.attempt}/d${row.dispatch}`,
    );
  }
  // A row an answers round resumed posts its answers; a row a resend round took is created anew below.
  if (state.round_id !== undefined && row.round?.kind !== 'resend')
    return submitAnswers(ports, { state, roundId: state.round_id, row, stop: stopRecord?.stop, now });
  if (stopRecord?.stop) return finalStep(stoppedResult(stopRecord.stop));
  const product = row.product;
  if (!product) return finalStep(errorResult(detailMessage('row_no_product', {}), { reason: 'no_product' }));

  // This attempt already created its classification (a row back after a run too long to poll,
  // or a dispatch after a lost Complete): look at it instead of creating again. Replaying the
  // POST would be safe for 24 hours only; after that the same key would create a second one.
  if (row.classification_id && row.submitted_attempt === state.attempt) {
    // Recorded again under the same key (the stored time): a Submit that died before it is not lost.
    await recordSubmitted(ports, row, row.classification_id, row.submitted_at, requesterOf(stopRecord, row));
    return followClassification(ports, state, {
      id: row.classification_id,
      submittedAt: row.submitted_at ?? now.toISOString(),
    });
  }
  return createClassification(ports, { state, row, product, now, requestedBy: requesterOf(stopRecord, row) });
};

/**
 * Who sent the row, named on its submission in audit.csv: for a row sent again, the person who sent
 * it again; else who sent the batch: the person Prepare proved, with the name batch.json states
 * beside it; without one, no person: only the stated name, as `stated_by`.
 */
const requesterOf = (
  batch: Pick<BatchRecord, 'options' | 'sent_by'> | null,
  row: Pick<RowRecord, 'round'>,
): Who => {
  if (row.round?.kind === 'resend') return whoAnswered(row.round);
  const stated = batch?.options?.requested_by;
  if (batch?.sent_by) return whoOf(batch.sent_by, stated);
  return stated ? { who: '', stated_by: stated } : { who: '' };
};

/** audit.csv's `submitted`, at the time stored on the row. */
const recordSubmitted = (
  ports: Pick<SubmitPorts, 'audit'>,
  row: Pick<RowRecord, 'batch_id' | 'row' | 'product'>,
  classificationId: string,
  at: string | undefined,
  who: Who,
) =>
  at === undefined
    ? Promise.resolve()
    : ports.audit.record([
        submittedEvent(
          { batch_id: row.batch_id, row: row.row, sku: row.product?.sku ?? null },
          { at, classification_id: classificationId, who },
        ),
      ]);

/** The POST of this attempt, under its deterministic key, and what the row does after it. */
const createClassification = async (
  ports: SubmitPorts,
  context: { state: RowState; row: RowRecord; product: ProductRow; now: Date; requestedBy: Who },
): Promise<RowStep> => {
  const { state, row, product, now } = context;
  const externalReference = product.external_reference ?? deriveRowKey(state.batch_id, state.row);
  const idempotencyKey = deriveCreationKey(deriveRowKey(state.batch_id, state.row), state.attempt, {
    operation: product.operation,
    country: product.country,
    description: product.description,
    externalReference,
    sheetSha256: row.sheet?.sha256 ?? null,
  });

  let accepted: Awaited<ReturnType<PipelinePorts['service']['createClassification']>>;
  try {
    const fileUrl = await sheetFileUrl(
      ports,
      row.sheet,
      uploadRecordKey(row.batch_id, row.row, `a${state.attempt}`),
    );
    accepted = await ports.service.createClassification(
      {
        operation: product.operation,
        country: product.country,
        description: product.description,
        file_url: fileUrl,
        external_reference: externalReference,
      },
      { idempotencyKey },
    );
  } catch (error) {
    return submitFailure(ports, state, error, now);
  }

  const id = accepted.classification.id;
  // A replay of this attempt's creation: the run started at the first submission.
  const submittedAt = row.classification_id === id && row.submitted_at ? row.submitted_at : now.toISOString();
  await ports.batches.moveRow(state.batch_id, state.row, {
    move: 'submitted',
    classification_id: id,
    submitted_attempt: state.attempt,
    app_url: accepted.classification.app_url ?? undefined,
    submitted_at: submittedAt,
    at: now.toISOString(),
  });
  await ports.audit.record([
    submittedEvent(
      { batch_id: row.batch_id, row: row.row, sku: product.sku },
      { at: submittedAt, classification_id: id, who: context.requestedBy },
    ),
  ]);
  return followAcceptedRun(ports, state, {
    id,
    submittedAt,
    status: accepted.classification.status,
  });
};
