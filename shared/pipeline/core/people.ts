/**
 * Who did something, and how the pipeline knows it (docs/architecture.md, "Who, proven"). A person
 * is named only from a source a writer cannot set: the console's verified sign-in, the IAM
 * principal S3 reports for a write, or the user of this machine's CLI. A name a file states about
 * itself (its `answered-by` metadata, batch.json's `requested_by`) is kept beside, as `stated_by`,
 * and never taken for the person.
 *
 * A writer record says who wrote one object version into `answers/` or `inbox/`: the console
 * records its signed-in person for each file it writes; S3's record of the write (a CloudTrail data
 * event on AWS, the local S3's permission gate here) records the principal. PrepareAnswers looks
 * the answers object up by its key and ETag or version before it takes a single answer.
 */
import * as z from 'zod';

/** How a person was known: the console's verified token, S3's record of an IAM principal, or this machine's CLI. */
const KNOWN_BY = ['console', 'iam', 'cli'] as const;
export const KnownBy = z.enum(KNOWN_BY);
export type KnownBy = z.infer<typeof KnownBy>;

/** A person as the pipeline records them: a name to show, a steady id, and how they were known. */
export const Person = z.object({
  /** The name people read: the token's `name` (else its email), the role session or user of a principal, the OS user. */
  name: z.string(),
  /** What tells two people of one name apart: the token's `sub`, the principal's ARN, `cli:<os user>`; "" when unknown. */
  id: z.string(),
  known_by: KnownBy,
  /** The signed-in person's email, when the console knew it. */
  email: z.string().optional(),
});
export type Person = z.infer<typeof Person>;

/** Who wrote one object version, as the console or S3 recorded it. */
export const WriterRecord = z.object({
  key: z.string().min(1),
  /** The version S3 gave the write (AWS); null where the bucket keeps none (the local S3). */
  version_id: z.string().nullable(),
  /** The object's ETag, quotes removed; null when the record's source does not say it (CloudTrail, an upload form). */
  etag: z.string().nullable(),
  person: Person,
  /** When the write was recorded (ISO). */
  at: z.string(),
});
export type WriterRecord = z.infer<typeof WriterRecord>;

/** An object version to look a writer up by: its key, and its ETag and version as its event gives them. */
export type WrittenObject = { key: string; etag: string | null; versionId: string | null };

/** An ETag without the quotes S3 puts around it in headers, so records and events compare. */
export const bareEtag = (etag: string): string => etag.replace(/"/g, '');

/**
 * Takes the writer records found for one object version and gives the person who wrote it, or
 * null: the console's record first (the console function's own write carries a role, not a
 * person), else the principal S3 recorded.
 */
export const writerOf = (records: readonly WriterRecord[]): Person | null =>
  records.find((record) => record.person.known_by === 'console' && !isUploadGrant(record))?.person ??
  records.find((record) => record.person.known_by === 'iam')?.person ??
  null;

/**
 * A console record of the person it gave an upload form for a key (the browser writes the object,
 * so no ETag or version is known): it names who wrote the object only when S3's record says the
 * console's own role wrote it, through that form (people/batch-sender.ts).
 */
export const isUploadGrant = (record: WriterRecord): boolean =>
  record.person.known_by === 'console' && record.etag === null && record.version_id === null;

/**
 * Takes an IAM principal's ARN as S3 or CloudTrail report it and gives the person it names: an
 * assumed role's session (`…:assumed-role/Ops/jose@acme` → `jose@acme (Ops)`), a user's name, else
 * the ARN itself; the ARN is the person's id either way.
 */
export const personOfPrincipal = (arn: string): Person => {
  const assumed = /^arn:aws[\w-]*:sts::\d*:assumed-role\/([^/]+)\/(.+)$/.exec(arn);
  if (assumed) return { name: `${assumed[2]} (${assumed[1]})`, id: arn, known_by: 'iam' };
  const user = /^arn:aws[\w-]*:iam::\d*:user\/(?:.*\/)?([^/]+)$/.exec(arn);
  return { name: user?.[1] ?? arn, id: arn, known_by: 'iam' };
};

/** The user of this machine's CLI: their OS user name, known by the CLI. */
export const cliPerson = (user: string): Person => ({ name: user, id: `cli:${user}`, known_by: 'cli' });

/**
 * Nobody the pipeline could prove: S3 reported no principal for the write in time. Named by the
 * account S3's event gives (`detail.requester`, which the writer cannot set), id empty.
 */
export const unprovenPerson = (account: string | null): Person => ({
  name: account ? `account ${account}` : 'unknown',
  id: '',
  known_by: 'iam',
});
