/**
 * The technical sheet of a row attempt, uploaded once: each upload grant yields a new
 * `file_url`, so the first upload's URL is kept in the bucket and every retry sends it again.
 */
import * as z from 'zod';
import { sha256Hex } from '../core/keys.js';
import type { PipelinePorts, WholeObjects } from '../core/ports.js';
import type { SheetRef } from '../core/records.js';

const UploadRecord = z.object({ file_url: z.string(), sha256: z.string() });

const parseJsonOrNull = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
};

/** A failure of the row's own input, not of the service: recorded, never retried. */
export class RowInputError extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

/**
 * Gives the sheet's `file_url` for this row attempt (null for a row without a sheet), uploading
 * the sheet only the first time; throws `RowInputError` when the sheet is gone or changed. Each
 * upload grant yields a new URL, and the same Idempotency-Key with another body is
 * `422 idempotency-key-reused`: so the first upload's `file_url` is kept (per attempt) and every
 * retry of the attempt sends it again.
 *
 *   Submit ─▶ record? ── yes ─────────────────────────────────────▶ POST (same body)
 *                     └─ no ─▶ read sheet ─▶ upload ─▶ keep record ─▶ POST
 *
 * A creation keeps its record per attempt (`<row>-a<attempt>.json`), an answers round per
 * answers key (`<row>-<answers key>.json`): the key changes with the answers and the sheet.
 */
export const sheetFileUrl = async (
  ports: Pick<PipelinePorts, 'service'> & { objects: WholeObjects },
  sheet: SheetRef | undefined,
  recordKey: string,
): Promise<string | null> => {
  if (!sheet) return null;
  const kept = await ports.objects.getBytes(recordKey);
  if (kept) {
    // An unreadable record is as good as none: the sheet is uploaded again.
    const parsed = UploadRecord.safeParse(parseJsonOrNull(new TextDecoder().decode(kept)));
    if (parsed.success && parsed.data.sha256 === sheet.sha256) return parsed.data.file_url;
  }
  const bytes = await ports.objects.getBytes(sheet.key);
  if (!bytes)
    throw new RowInputError('sheet_not_found', `sheet ${sheet.file_name} is no longer in the bucket`);
  if (sha256Hex(bytes) !== sheet.sha256) {
    throw new RowInputError('sheet_changed', `sheet ${sheet.file_name} changed after the batch was read`);
  }
  const upload = await ports.service.uploadSheet({ filename: sheet.file_name, bytes });
  await ports.objects.put(
    recordKey,
    JSON.stringify({ file_url: upload.fileUrl, sha256: sheet.sha256 }),
    'application/json',
  );
  return upload.fileUrl;
};
