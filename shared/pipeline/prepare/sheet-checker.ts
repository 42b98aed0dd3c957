/**
 * Checking the technical sheets a file names, in the bucket, before anything is sent: a batch's
 * sheets (in `inbox/<name>/`) and the new sheets an answers file names (in `answers/<batch-id>/`).
 * Each path is checked once (several rows often share one sheet): present, at most the service's
 * size, a PDF by its content, and whole.
 */
import { posix } from 'node:path';
import type { SheetRejectionReason } from '../../spreadsheet/schemas.js';
import { LIMITS } from '../../tcs/schemas.js';
import { sha256Hex } from '../core/keys.js';
import type { ObjectStore } from '../core/ports.js';
import type { SheetRef } from '../core/records.js';
import { pdfHasTextLayer } from './sheet-text-layer.js';

/** Why a sheet a row names cannot be sent: the reason code, the sentence, and what its message names. */
export type SheetProblem = {
  reason: SheetRejectionReason;
  /** Follows the sheet's path in a sentence: `"fichas/a.pdf" was not found in …`. */
  why: string;
  /** What its message names besides the path: a size, a limit. */
  params?: Record<string, string | number>;
};
/** What checking a sheet gives: the sheet, found whole, or why it cannot be sent. */
export type SheetCheck = { sheet: SheetRef } | SheetProblem;

const PDF_MAGIC = '%PDF-';
/** Where readers look for a PDF's end: its last 1,024 bytes, as Acrobat does (trailing bytes tolerated). */
const PDF_TAIL_BYTES = 1024;

/**
 * Says what is wrong with a file that starts as a PDF but cannot be one, or null when its end is
 * whole. A PDF ends with `%%EOF` (readers look for it in the last 1,024 bytes, tolerating a few
 * bytes after): a file without it was cut short (an upload or a copy interrupted, a download saved
 * early) or is bytes behind a PDF header, and the service fails such a sheet as `unreadable_pdf`.
 * Said at Prepare, before anything is paid, and never taken for a scan. Only the end of the bytes
 * is looked at; a damaged table of objects that readers rebuild is left to them.
 */
export const pdfDamage = (bytes: Uint8Array): string | null => {
  const tail = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    .subarray(Math.max(0, bytes.byteLength - PDF_TAIL_BYTES))
    .toString('latin1');
  return tail.includes('%%EOF')
    ? null
    : 'is cut short: it does not end as a PDF does (no "%%EOF" marker), so it was not saved or copied whole';
};
const megabytes = (bytes: number): string => `${(bytes / (1024 * 1024)).toFixed(1)} MB`;

/** Windows and macOS file systems ignore case and Unicode form; S3 does not. Compare as they do. */
const looseKey = (key: string): string => key.normalize('NFC').toLowerCase();

/**
 * Gives a checker of sheet paths relative to `folder`: each path is checked once (present, at most
 * the service's size, a PDF, whole) and gives the sheet or the problem. A path that differs from
 * the object only in case or Unicode form (`Fichas/Café.PDF` for `fichas/café.pdf`, written on
 * Windows or macOS where both open the same file) finds it when it is the only match. `folderName`
 * is how a missing sheet's message names the folder.
 */
export const sheetChecker = (objects: ObjectStore, folder: string, folderName = folder) => {
  const checks = new Map<string, Promise<SheetCheck>>();
  let folderKeys: Promise<Map<string, string[]>> | null = null;
  const keysByLooseKey = () => {
    folderKeys ??= objects.list(folder).then((keys) => {
      const index = new Map<string, string[]>();
      for (const key of keys) index.set(looseKey(key), [...(index.get(looseKey(key)) ?? []), key]);
      return index;
    });
    return folderKeys;
  };
  const notFound: SheetProblem = { reason: 'sheet_not_found', why: `was not found in ${folderName}` };
  // The uploader found a link there and did not follow it out of the folder (ObjectHead.notFollowed).
  const linkOutside: SheetProblem = {
    reason: 'sheet_outside_folder',
    why:
      'is a link to a file outside the batch folder; links out of the folder are not followed. ' +
      'Put the file itself in the folder',
  };

  const check = async (relativePath: string): Promise<SheetCheck> => {
    let key = `${folder}${relativePath}`;
    let head = await objects.head(key);
    if (!head) {
      const [only, ...others] = (await keysByLooseKey()).get(looseKey(key)) ?? [];
      if (only && others.length === 0) {
        key = only;
        head = await objects.head(key);
      }
    }
    if (!head) return notFound;
    if (head.notFollowed === 'link_outside_folder') return linkOutside;
    if (head.size > LIMITS.sheetMaxBytes) {
      return {
        reason: 'sheet_too_large',
        why: `is ${megabytes(head.size)}; the service accepts technical sheets up to ${megabytes(LIMITS.sheetMaxBytes)}`,
        params: { size_bytes: head.size, limit_bytes: LIMITS.sheetMaxBytes },
      };
    }
    const prefix = await objects.getPrefix(key, PDF_MAGIC.length);
    if (!prefix || new TextDecoder('latin1').decode(prefix) !== PDF_MAGIC) {
      return { reason: 'sheet_not_pdf', why: 'is not a PDF file (its content does not start with "%PDF-")' };
    }
    const bytes = await objects.getBytes(key);
    if (!bytes) return notFound;
    const damage = pdfDamage(bytes);
    if (damage) return { reason: 'sheet_damaged', why: `${damage}. Save or export it again` };
    return {
      sheet: {
        key,
        sha256: sha256Hex(bytes),
        size: bytes.byteLength,
        file_name: posix.basename(key),
        text_layer: pdfHasTextLayer(bytes),
      },
    };
  };

  return (relativePath: string): Promise<SheetCheck> => {
    let pending = checks.get(relativePath);
    if (!pending) {
      pending = check(relativePath);
      checks.set(relativePath, pending);
    }
    return pending;
  };
};
