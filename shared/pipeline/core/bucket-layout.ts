/**
 * The bucket's layout, written once: every key the pipeline reads or writes, and the
 * prefixes the stack grants and the lifecycle rules name, are built here.
 *
 *   inbox/<batch name>/<file>.csv|.xlsx   a catalogue; its batch.json and sheets beside it
 *   answers/<batch id>/<file>.csv|.xlsx   a filled review file; new sheets beside it
 *   outbox/<batch id>/                    results.csv, review.csv, summary.json, pdfs/<verdict>.pdf
 *                                         (a reused verdict's: pdfs/<batch that made it>/<verdict>.pdf)
 *   work/<batch id>/uploads/<row>-<tag>.json   the sheet's file_url kept per attempt (expires in 7 days)
 *   work/<batch id>/finalize/<name>            what Finalize hands from one leg to the next (7 days)
 *   requests/<batch id>/<anything>        a person asks for the batch's partial results (expires in 1 day)
 */

/** The top-level prefixes, each ending with `/`. */
export const BUCKET_PREFIXES = {
  inbox: 'inbox/',
  answers: 'answers/',
  outbox: 'outbox/',
  work: 'work/',
  requests: 'requests/',
  /** Reference data a person drops in: a newer NCM table under `reference/ncm/` (shared/ncm-table/). */
  reference: 'reference/',
} as const;
/** The name of one top-level area of the bucket (`inbox`, `outbox`, ...). */
export type BucketArea = keyof typeof BUCKET_PREFIXES;

/** Where dropped files arrive: a catalogue in `inbox/`, a filled review file in `answers/`. */
export type DropArea = 'inbox' | 'answers';

/**
 * The extensions of a file that starts work when dropped in a drop area, any case: CSV, Excel's
 * "Unicode Text" and "Text (tab delimited)" saves (`.txt`, `.tsv`, read by their content), XLSX.
 */
const DROPPED_FILE_EXTENSIONS = ['csv', 'txt', 'tsv', 'xlsx'] as const;

/**
 * A catalogue dropped in `inbox/` may also be an NF-e's XML or a ZIP of them (read by their content);
 * a filled review file in `answers/` never is.
 */
const CATALOGUE_FILE_EXTENSIONS = [...DROPPED_FILE_EXTENSIONS, 'xml', 'zip'] as const;

/** The extensions of a file that starts work when dropped in `area`. */
export const droppedFileExtensions = (area: DropArea): readonly string[] =>
  area === 'inbox' ? CATALOGUE_FILE_EXTENSIONS : DROPPED_FILE_EXTENSIONS;

/** A dropped file's folder: `inbox/<batch name>/` or `answers/<batch id>/`. */
export const dropFolder = (area: DropArea, folderName: string): string =>
  `${BUCKET_PREFIXES[area]}${folderName}/`;

/** The answers folder of a batch: the answers file and the sheets it names live here. */
export const answersFolder = (batchId: string): string => dropFolder('answers', batchId);

/**
 * A batch name names one folder of `inbox/`: once trimmed, not empty, not `.` or `..`, and no
 * slash, backslash or control character.
 */
export const isBatchFolderName = (name: string): boolean => {
  const trimmed = name.trim();
  return trimmed !== '' && trimmed !== '.' && trimmed !== '..' && !/[/\\\p{Cc}]/u.test(trimmed);
};

/** The batch name of an `inbox/<name>/` folder. */
export const batchNameOfFolder = (folder: string): string =>
  folder.slice(BUCKET_PREFIXES.inbox.length, folder.endsWith('/') ? -1 : undefined);

/** A batch's outbox folder: `outbox/<batch id>/`. */
export const outboxFolder = (batchId: string): string => `${BUCKET_PREFIXES.outbox}${batchId}/`;

/** A file in a batch's outbox, by its path relative to the outbox (`results.csv`, `pdfs/x.pdf`). */
export const outboxKey = (batchId: string, relative: string): string => `${outboxFolder(batchId)}${relative}`;

/** What the pipeline told people about a batch, in its outbox (shared/pipeline/notices/tell.ts). */
export const NOTIFICATIONS_LOG = 'notifications.log';

/**
 * One answers round's own answers-report.csv in its batch's outbox, kept when a later round
 * writes answers-report.csv again: `answers-report-<round's start, UTC>-<round's digest>.csv`,
 * so the names sort by when each round started.
 */
export const roundReportFile = (round: { batch_id: string; started_at: string }): string => {
  const when = round.started_at.replace(/\.\d+Z$/, 'Z').replace(/[-:]/g, '');
  const digest = round.batch_id.slice(round.batch_id.lastIndexOf('~') + 1).replace(/[^A-Za-z0-9_-]/g, '');
  return `answers-report-${when}-${digest}.csv`;
};

/** Whether `name` is one round's own answers report (`roundReportFile`). */
export const isRoundReportFile = (name: string): boolean =>
  /^answers-report-\d{8}T\d{6}Z-[A-Za-z0-9_-]+\.csv$/.test(name);

/** audit.csv's name in a batch's outbox (shared/pipeline/audit/audit-file.ts writes it). */
export const AUDIT_FILE = 'audit.csv';

/**
 * The outbox folder where each write of audit.csv keeps its own copy, the log keys it read and the
 * late events it added: the pipeline's own, not a file for the person who reads the results.
 */
export const AUDIT_WRITES_FOLDER = '.audit/';

const escaped = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const AUDIT_RECORD = new RegExp(
  `^${escaped(BUCKET_PREFIXES.outbox)}[^/]+/(${escaped(AUDIT_FILE)}|${escaped(AUDIT_WRITES_FOLDER)}audit-[^/]+\\.csv)$`,
);

/**
 * Takes a key and says whether it is a version of a batch's audit record: its audit.csv, or the
 * copy one write of it made (`.audit/audit-<write>.csv`). On AWS those are written under Object Lock.
 */
export const isAuditRecordKey = (key: string): boolean => AUDIT_RECORD.test(key);

/**
 * File name of a row's verdict PDF inside `outbox/<batch-id>/pdfs/`: the row number (padded
 * so a folder listing sorts in input order) and the SKU, else the NCM, cleaned to a safe name.
 */
export const verdictPdfName = (row: number, sku: string | null, ncm: string | null): string => {
  const label = (sku ?? ncm ?? '')
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .replace(/[^A-Za-z0-9._-]+/g, '-')
    .replace(/^[-.]+|[-.]+$/g, '')
    .slice(0, 60);
  const number = String(row).padStart(5, '0');
  return label ? `${number}-${label}.pdf` : `${number}.pdf`;
};

/** A row's verdict PDF: its object key, and its path relative to the outbox (the CSV's `verdict_pdf`). */
export const verdictPdfPaths = (batchId: string, name: string): { key: string; relative: string } => {
  const relative = `pdfs/${name}`;
  return { key: outboxKey(batchId, relative), relative };
};

/**
 * Where a verdict PDF reused from an earlier batch is copied in this batch's outbox, relative to
 * it: under the folder of the batch that made it, by the name it has there
 * (`outbox/<earlier>/pdfs/<name>` ─▶ `pdfs/<earlier>/<name>`). Names are unique within a batch,
 * so the path is unique across batches, and it is found from the kept key alone: every row and
 * every pass of Finalize names the same copy without a table of copies (one per classification,
 * however many rows reuse it).
 */
export const reusedPdfRelative = (keptKey: string): string => {
  const [area, madeBy, folder, ...name] = keptKey.split('/');
  if (`${area}/` === BUCKET_PREFIXES.outbox && madeBy && folder === 'pdfs' && name.length > 0)
    return `pdfs/${madeBy}/${name.join('/')}`;
  // Not an outbox PDF (never written so by Complete): kept under its whole key, still unique.
  return `pdfs/earlier/${keptKey.replace(/^\/+/, '')}`;
};

/**
 * Where Submit keeps the `file_url` of a sheet it uploaded, per row attempt (`a<attempt>`) or
 * per answers key, so a retried Submit sends the same body under the same Idempotency-Key.
 */
export const uploadRecordKey = (batchId: string, row: number, tag: string): string =>
  `${BUCKET_PREFIXES.work}${batchId}/uploads/${row}-${tag}.json`;

/**
 * The key of a file one of Finalize's legs leaves the next in the bucket, because it is too large
 * for the workflow's state: the tally so far, the bytes of a results file not yet sent as a part.
 * Each name says the point it was written at, so a retried leg reads what its first attempt read,
 * not what it wrote.
 */
export const finalizeWorkKey = (batchId: string, name: string): string =>
  `${BUCKET_PREFIXES.work}${batchId}/finalize/${name}`;

/** The batch a request object under `requests/<batch id>/` is about, or null for any other key. */
export const batchIdOfRequestKey = (key: string): string | null => {
  if (!key.startsWith(BUCKET_PREFIXES.requests)) return null;
  const [batchId, ...rest] = key.slice(BUCKET_PREFIXES.requests.length).split('/');
  return batchId && rest.length > 0 && rest.join('/') !== '' ? batchId : null;
};

/**
 * The folder where the recheck after the NCM table changes writes its list, one folder per table
 * by the table's date: `outbox/rechecks/<date>/` holds recheck.csv and recheck.json.
 */
export const recheckFolder = (tableDate: string): string => `${BUCKET_PREFIXES.outbox}rechecks/${tableDate}/`;

/**
 * The recheck's working folder for a table date, relative to `work/`: the bytes of its files not
 * yet uploaded as a part wait under `work/rechecks/<date>/finalize/`.
 */
export const recheckWorkFolder = (tableDate: string): string => `rechecks/${tableDate}`;

/**
 * The key where one leg of the recheck writes where it stopped (`work/rechecks/<date>/<run>.leg-<n>.json`):
 * writing it raises an Object Created event that calls the recheck again for the next leg.
 */
export const recheckContinuationKey = (tableDate: string, run: string, leg: number): string =>
  `${BUCKET_PREFIXES.work}${recheckWorkFolder(tableDate)}/${run}.leg-${leg}.json`;

/**
 * The key pattern the event rule matches to call the recheck again: every key
 * `recheckContinuationKey` makes.
 */
export const RECHECK_CONTINUATION_PATTERN = `${BUCKET_PREFIXES.work}rechecks/*.leg-*.json`;

/**
 * Whether an object key is one a recheck leg wrote to call the next (as `recheckContinuationKey`
 * makes it).
 */
export const isRecheckContinuationKey = (key: string): boolean =>
  /^work\/rechecks\/[^/]+\/recheck-\d+\.leg-\d+\.json$/.test(key);
