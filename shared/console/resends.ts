/**
 * Rows sent again from the console ("Reenviar" on a batch's page) go the way a resend file goes:
 * written as the file a person would drop (pipeline/answers/resend-file.ts, `resend_row` and the
 * corrected cells) into `answers/<batch-id>/`, where its arrival starts a round of the batch that
 * plans each row again with Prepare's own checks (pipeline/answers/resend-rows.ts). The console
 * adds no second way into the pipeline; it only refuses, before writing anything, what the round
 * would refuse outright: a row that is not rejected or failed, one that follows another, a new
 * sheet that did not arrive. Cells that still fail Prepare's checks are the round's to report.
 */
import { buildResendCsv } from '../pipeline/answers/resend-file.js';
import { mapLimited } from '../pipeline/core/calls-in-parallel.js';
import type { RowRecord } from '../pipeline/core/records.js';
import { RESENDABLE_STATUSES, resultNow } from '../pipeline/core/row-life.js';
import { type ResendAccepted, ResendSubmission, type RowResend } from './api.js';
import { type ConsolePorts, type ConsoleUser, checkUploadedSheet, dropPerBatch } from './ports.js';
import { batchNotFound, ConsoleRefusal, invalidRequest } from './refusals.js';

/** Rows read at once: 500 rows are never read one after another. */
const READS_IN_FLIGHT = 16;

/** The row may go again: rejected or failed (as it shows now), following no other; else a refusal. */
const checkResendable = (row: RowRecord | null, given: RowResend, batchName: string): void => {
  const status = row ? resultNow(row).status : null;
  if (row === null || row.follows !== undefined || status === null || !RESENDABLE_STATUSES.includes(status))
    throw new ConsoleRefusal(
      409,
      'not_resendable',
      `Row ${given.row} of batch ${batchName} cannot be sent again: only a rejected or failed row that follows no other goes again. Nothing was sent.`,
      { row: given.row, batch_name: batchName },
    );
};

/**
 * Takes rejected or failed rows of one batch with their corrected cells, and the signed-in person,
 * and drops one resend file into the batch's answers folder as that person; gives the file's key and
 * rows. Every row is checked before anything is written: a refusal writes nothing.
 */
export const submitResend = async (
  ports: Pick<ConsolePorts, 'batches' | 'objects' | 'writers' | 'clock'>,
  body: unknown,
  user: ConsoleUser,
): Promise<ResendAccepted> => {
  const parsed = ResendSubmission.safeParse(body);
  if (!parsed.success) throw invalidRequest('resends', parsed.error.issues);
  const { batch_id: batchId, rows: given } = parsed.data;
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  const numbers = given.map((row) => row.row);
  const twice = numbers.find((number, index) => numbers.indexOf(number) !== index);
  if (twice !== undefined)
    throw new ConsoleRefusal(400, 'invalid_request', `Row ${twice} is sent twice.`, { field: 'rows' });

  const rows = await mapLimited(given, READS_IN_FLIGHT, (row) => ports.batches.getRow(batchId, row.row));
  for (const [index, row] of given.entries()) checkResendable(rows[index] ?? null, row, batch.name);
  // A new sheet, when one is given, must be in the batch's answers folder (POST /answer-sheets).
  await mapLimited(given, READS_IN_FLIGHT, async (row) => {
    const sheet = row.sheet?.trim() ?? '';
    if (sheet !== '')
      await checkUploadedSheet(ports, batchId, sheet, { row: row.row, batchName: batch.name });
  });

  const lines = given.map((row) => ({
    item: { batch_id: batchId, row: row.row },
    line: {
      row: row.row,
      description: row.description?.trim() ?? '',
      operation: row.operation?.trim() ?? '',
      country: row.country?.trim() ?? '',
      sheet: row.sheet?.trim() ?? '',
    },
  }));
  const files = await dropPerBatch(
    ports,
    lines,
    (batchRows) => buildResendCsv(batchRows.map((r) => r.line)),
    user,
  );
  return { files };
};
