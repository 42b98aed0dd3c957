/**
 * One file uploaded in parts across several legs (an S3 multipart upload, through the object
 * store): bytes are appended as they are made, a part goes when `partBytes` are ready, and when a
 * leg's time is spent what is not yet a part (under S3's least part size of 5 MiB) waits in the
 * bucket's `work/` for the next leg, under a name that says which part it begins.
 *
 *   leg 1: parts 1..3 sent, 2.1 MiB left  ─▶ work/<batch>/finalize/results.csv.4   { parts 1..3 }
 *   leg 2: reads .4 back, parts 4..6, the last part, complete
 *
 * The multipart upload starts with the first full part: a file smaller than a part is put whole
 * at its end, one request instead of three.
 */
import * as z from 'zod';
import { finalizeWorkKey } from '../core/bucket-layout.js';
import type { ObjectStore } from '../core/ports.js';

/**
 * Where an upload stands between legs (its id, the parts sent, where unsent bytes wait): small,
 * whatever the file's size.
 */
export const PartsUploadProgress = z.object({
  /** Null until the first part is sent: a file that never fills a part is put whole, one request. */
  upload_id: z.string().min(1).nullable(),
  parts: z.array(z.object({ number: z.number().int().min(1), etag: z.string() })),
  /** Bytes made but not sent (under a part's size) wait under this key in `work/`; null: none. */
  carried: z.string().nullable(),
});
export type PartsUploadProgress = z.infer<typeof PartsUploadProgress>;

type UploadPorts = Pick<ObjectStore, 'startUpload' | 'uploadPart' | 'completeUpload' | 'getBytes' | 'put'>;

/** A file being uploaded in parts: append bytes, then pause at a leg's end or complete at the file's. */
export type PartsUpload = {
  /** Adds bytes at the file's end; sends a part when enough are ready. */
  append(bytes: Uint8Array): Promise<void>;
  /**
   * At a leg's end: keeps what is not a part yet in `work/`, and gives the progress the next leg
   * resumes from.
   */
  pause(): Promise<PartsUploadProgress>;
  /** The rest as the last part, and the file put together. */
  complete(): Promise<void>;
};

/**
 * Starts the upload of `key`, or resumes it from an earlier leg's progress, and gives the upload
 * to append to. `name` names its carried bytes in `work/` (`<name>.<first part they begin>`).
 * Throws when the bytes an earlier leg carried are gone.
 */
export const partsUpload = async (
  objects: UploadPorts,
  target: { batchId: string; key: string; name: string; contentType: string; partBytes: number },
  from: PartsUploadProgress | null,
): Promise<PartsUpload> => {
  // Started at the first full part: a small file is one PutObject at its end, not three requests.
  let uploadId = from?.upload_id ?? null;
  const parts = [...(from?.parts ?? [])];
  const pending: Uint8Array[] = [];
  let pendingBytes = 0;
  const hold = (bytes: Uint8Array) => {
    if (bytes.byteLength === 0) return;
    pending.push(bytes);
    pendingBytes += bytes.byteLength;
  };
  if (from?.carried) {
    const carried = await objects.getBytes(from.carried);
    if (!carried) throw new Error(`The bytes ${target.key} carried to this leg are gone (${from.carried}).`);
    hold(carried);
  }
  const nextNumber = () => (parts.at(-1)?.number ?? 0) + 1;
  const take = (): Uint8Array => {
    const bytes = new Uint8Array(Buffer.concat(pending));
    pending.length = 0;
    pendingBytes = 0;
    return bytes;
  };
  const send = async () => {
    uploadId ??= await objects.startUpload(target.key, target.contentType);
    const number = nextNumber();
    const etag = await objects.uploadPart(target.key, uploadId, number, take());
    parts.push({ number, etag });
  };
  return {
    async append(bytes) {
      hold(bytes);
      if (pendingBytes >= target.partBytes) await send();
    },
    async pause() {
      if (pendingBytes >= target.partBytes) await send();
      let carried: string | null = null;
      if (pendingBytes > 0) {
        carried = finalizeWorkKey(target.batchId, `${target.name}.${nextNumber()}`);
        await objects.put(carried, take(), 'application/octet-stream');
      }
      return { upload_id: uploadId, parts: [...parts], carried };
    },
    async complete() {
      if (uploadId === null) {
        // Never a full part: the whole file in one request, whole or not at all like an upload.
        await objects.put(target.key, take(), target.contentType);
        return;
      }
      if (pendingBytes > 0 || parts.length === 0) await send();
      await objects.completeUpload(target.key, uploadId, parts);
    },
  };
};
