/**
 * Deterministic identities: the batch id, the row key and the Idempotency-Keys.
 *
 * Every retry of the same thing (a Lambda retry, an SQS redelivery, a Step Functions
 * Retry, a re-delivered S3 event) must send the same key, or the service may create and
 * bill a second classification (spec, Idempotency). So keys are pure functions of what
 * identifies the work, never of time, randomness or anything that changes on a retry:
 *
 *   input object (bucket, key, version or ETag) ──▶ batch id
 *   batch id + row number                       ──▶ row key
 *   row key + attempt + request hash            ──▶ creation key   (new attempt ⇒ new key: spec rule 4)
 *   classification id + answers hash            ──▶ answers key    (same file dropped twice ⇒ same key)
 *
 * The request hash covers the sheet's bytes, not its `file_url`: each upload grant yields
 * a new URL, and a retry that uploads the sheet again must still send the same key.
 */
import { createHash } from 'node:crypto';
import { IDEMPOTENCY_KEY_PATTERN, type Operation } from '../../tcs/schemas.js';

/** What identifies one input object: the same object delivered twice is one batch. */
export type InputObjectIdentity = {
  bucket: string;
  key: string;
  /** The S3 version id when the bucket is versioned, else the ETag. */
  versionOrEtag: string;
};

/** The fields of a creation request that decide its outcome. */
export type CreationFingerprint = {
  operation: Operation;
  country: string;
  description: string | null;
  externalReference: string | null;
  /** sha256 hex of the sheet's bytes, or null without a sheet. */
  sheetSha256: string | null;
};

const sha256 = (text: string): Buffer => createHash('sha256').update(text, 'utf8').digest();

/** URL- and key-safe digest: base64url keeps to `[A-Za-z0-9_-]`. */
const digest = (text: string, length: number): string => sha256(text).toString('base64url').slice(0, length);

/** Ten characters of `[A-Za-z0-9]`: safe in a DynamoDB key, an S3 key and an execution name. */
export const shortDigest = (text: string): string => digest(text, 10).replace(/[-_]/g, 'x');

/** Canonical text of a value: keys sorted, so the same content always hashes the same. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)),
        )
      : v,
  );

/** The sha256 of some bytes, as 64 lowercase hex characters: how a sheet's content is named. */
export const sha256Hex = (bytes: Uint8Array): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Gives a batch's id, `<batch-name>-<hash>`, from its folder's name and the input object's identity:
 * readable in the outbox and in `external_reference`, the same for the same object version and
 * different for any other. The name is cut and cleaned so the id stays a safe S3 prefix.
 */
export const deriveBatchId = (batchName: string, input: InputObjectIdentity): string => {
  const name =
    batchName
      .normalize('NFD')
      .replace(/\p{Diacritic}/gu, '')
      .replace(/[^A-Za-z0-9_-]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 40) || 'batch';
  const hash = shortDigest(canonical(input));
  return `${name}-${hash}`;
};

/** One row of one batch, stable across attempts: `<batch-id>:<row>`. */
export const deriveRowKey = (batchId: string, row: number): string => `${batchId}:${row}`;

/**
 * Gives the Idempotency-Key of one attempt (1-based) of a row's creation request: the same for the
 * same row, attempt and request, a new one for a new attempt. Throws on an attempt below 1.
 */
export const deriveCreationKey = (rowKey: string, attempt: number, request: CreationFingerprint): string => {
  if (!Number.isInteger(attempt) || attempt < 1)
    throw new Error(`attempt must be a positive integer, got ${attempt}`);
  const key = `c_${digest(rowKey, 16)}_a${attempt}_${digest(canonical(request), 16)}`;
  return assertKeyFormat(key);
};

/**
 * Gives the Idempotency-Key of posting answers to a classification: the same for the same answers
 * (in any order) and sheet, so a file dropped twice posts them once.
 */
export const deriveAnswersKey = (
  classificationId: string,
  answers: readonly { question_id: string; answer: string }[],
  sheetSha256: string | null = null,
): string => {
  const sorted = [...answers].sort((a, b) => a.question_id.localeCompare(b.question_id));
  const key = `a_${classificationId}_${digest(canonical({ answers: sorted, sheetSha256 }), 22)}`;
  return assertKeyFormat(key);
};

const assertKeyFormat = (key: string): string => {
  if (!IDEMPOTENCY_KEY_PATTERN.test(key)) throw new Error(`derived key breaks the spec's pattern: ${key}`);
  return key;
};

/**
 * Gives the product-cache key of a verdict by its fingerprint alone (`h:<fingerprint>`). Complete
 * writes a resolved verdict under it too (for a row with a SKU), so a later batch reuses it for any
 * row of the same product, whatever its SKU: a follower in this batch is reused in the next.
 */
export const fingerprintKey = (fingerprint: string): string => `h:${fingerprint}`;

/**
 * Gives the product-cache key of a verdict by its product fingerprint (`p:<product fingerprint>`):
 * what decides the NCM whatever the origin, where a row of another country or operation without a
 * SKU finds the verdict of the same goods.
 */
export const goodsKey = (productFingerprint: string): string => `p:${productFingerprint}`;
