/**
 * Files between the browser and the bucket, never through the API: upload forms (presigned
 * POSTs) for a catalogue with its sheets into `inbox/<batch name>/`, or a new sheet into
 * `answers/<batch-id>/sheets/`, and short-lived links to a batch's outbox files and verdict PDFs
 * (and to results.xlsx with its PDFs as one ZIP, results-bundle.ts).
 *
 * Each form allows exactly one key, one content type and a size range (checked by S3 itself),
 * so a form cannot be used to write anywhere else or anything else. The catalogue's form is
 * the last one the page uses: its arrival starts the batch, exactly as a drop does, and the
 * sheets and batch.json must be there by then.
 */
import { posix } from 'node:path';
import { BatchOptions } from '../pipeline/core/batch-options-schema.js';
import {
  answersFolder,
  dropFolder,
  isBatchFolderName,
  isRoundReportFile,
  outboxKey,
} from '../pipeline/core/bucket-layout.js';
import { isPendingPdfCopy } from '../pipeline/reuse/reuse.js';
import { XLSX_CONTENT_TYPE } from '../spreadsheet/xlsx-layout.js';
import {
  type AnswerSheetForm,
  AnswerSheetRequest,
  BatchFileName,
  CONSOLE_LIMITS,
  type DownloadLink,
  type FileToSend,
  RESULTS_BUNDLE,
  UPLOAD_TYPES,
  type UploadForm,
  type UploadPlan,
  UploadRequest,
} from './api.js';
import { type ConsolePorts, type ConsoleUser, personOfUser } from './ports.js';
import { batchNotFound, ConsoleRefusal, invalidRequest, rowNotFound } from './refusals.js';
import { resultsBundle } from './results-bundle.js';

type UploadKind = keyof typeof UPLOAD_TYPES;

const kindOf = (name: string): UploadKind | null => {
  const lower = name.toLowerCase();
  const found = Object.entries(UPLOAD_TYPES).find(([, type]) => lower.endsWith(type.extension));
  return found ? (found[0] as UploadKind) : null;
};

/** One folder of inbox/: no slash, not `.` or `..`, printable. */
const checkBatchName = (name: string): string => {
  if (!isBatchFolderName(name))
    throw new ConsoleRefusal(
      400,
      'invalid_batch_name',
      `Batch name "${name}" is not usable: it names one folder of inbox/ (no slashes, not empty).`,
      { name },
    );
  return name.trim();
};

/** A relative POSIX path with no empty, `.` or `..` segment and no control characters. */
const checkPath = (file: FileToSend, what: string): string => {
  const segments = file.name.split('/');
  const bad = segments.some((segment) => segment.trim() === '' || segment === '.' || segment === '..');
  if (bad || /[\\\p{Cc}]/u.test(file.name))
    throw new ConsoleRefusal(400, 'invalid_file_name', `${what} "${file.name}" is not a usable file name.`, {
      file: file.name,
    });
  return file.name;
};

const checkFile = (file: FileToSend, allowed: readonly UploadKind[], maxBytes: number, what: string) => {
  const path = checkPath(file, what);
  const kind = kindOf(path);
  if (kind === null || !allowed.includes(kind))
    throw new ConsoleRefusal(
      415,
      'wrong_file_type',
      `${what} "${file.name}" is not ${allowed.map((k) => UPLOAD_TYPES[k].extension).join(' or ')}.`,
      { file: file.name, allowed: allowed.map((k) => UPLOAD_TYPES[k].extension).join(', ') },
    );
  if (file.size < 1 || file.size > maxBytes)
    throw new ConsoleRefusal(
      413,
      'file_too_large',
      file.size < 1
        ? `${what} "${file.name}" is empty.`
        : `${what} "${file.name}" has ${file.size} bytes; the most is ${maxBytes}.`,
      { file: file.name, size: file.size, max: maxBytes },
    );
  return { path, kind };
};

const expiry = (ports: Pick<ConsolePorts, 'clock'>): string =>
  new Date(ports.clock.now().getTime() + CONSOLE_LIMITS.linkSeconds * 1000).toISOString();

const formFor = async (
  ports: Pick<ConsolePorts, 'links'>,
  key: string,
  fileName: string,
  kind: UploadKind,
  maxBytes: number,
): Promise<UploadForm> => {
  const contentType = UPLOAD_TYPES[kind].contentType;
  const { url, fields } = await ports.links.uploadForm({
    key,
    contentType,
    maxBytes,
    expiresSeconds: CONSOLE_LIMITS.linkSeconds,
  });
  return { file_name: fileName, key, url, fields, content_type: contentType, max_bytes: maxBytes };
};

const checkOptions = (options: Record<string, unknown>) => {
  const parsed = BatchOptions.safeParse(options);
  if (parsed.success) return;
  const issue = parsed.error.issues[0];
  const field =
    issue?.path.map(String).join('.') || (issue && 'keys' in issue ? String(issue.keys) : 'options');
  throw new ConsoleRefusal(400, 'invalid_options', `batch.json: ${field}: ${issue?.message ?? 'invalid'}`, {
    field,
  });
};

/**
 * Checks the catalogue, its sheets and its options, writes batch.json (always: an earlier
 * batch's options in the same folder must not apply), and returns a form per file, sheets first.
 */
export const planUpload = async (
  ports: Pick<ConsolePorts, 'links' | 'objects' | 'clock' | 'writers'>,
  body: unknown,
  user: ConsoleUser | null = null,
): Promise<UploadPlan> => {
  const plannedAt = ports.clock.now().toISOString();
  const parsed = UploadRequest.safeParse(body);
  if (!parsed.success) throw invalidRequest('upload', parsed.error.issues);
  const request = parsed.data;
  const catalogue = checkFile(
    request.catalogue,
    ['csv', 'txt', 'tsv', 'xlsx', 'xml', 'zip'],
    CONSOLE_LIMITS.catalogueBytes,
    'The catalogue',
  );
  if (catalogue.path.includes('/'))
    throw new ConsoleRefusal(
      400,
      'invalid_file_name',
      `The catalogue "${catalogue.path}" must be a file name, not a path.`,
      {
        file: catalogue.path,
      },
    );
  const batchName = checkBatchName(
    request.batch_name ?? posix.basename(catalogue.path, posix.extname(catalogue.path)),
  );
  if (request.sheets.length > CONSOLE_LIMITS.sheetsPerBatch)
    throw new ConsoleRefusal(
      400,
      'too_many_files',
      `${request.sheets.length} sheets; one batch takes at most ${CONSOLE_LIMITS.sheetsPerBatch}.`,
      {
        count: request.sheets.length,
        max: CONSOLE_LIMITS.sheetsPerBatch,
      },
    );
  const sheets = request.sheets.map((sheet) =>
    checkFile(sheet, ['pdf'], CONSOLE_LIMITS.sheetBytes, 'The sheet'),
  );
  const duplicate = sheets.find(
    (sheet, index) => sheets.findIndex((other) => other.path === sheet.path) !== index,
  );
  if (duplicate)
    throw new ConsoleRefusal(400, 'invalid_file_name', `The sheet "${duplicate.path}" is given twice.`, {
      file: duplicate.path,
    });
  checkOptions(request.options);
  const folder = dropFolder('inbox', batchName);
  // The signed-in person sends the batch: the form is theirs (recorded for the catalogue's key, so
  // Prepare names them when S3 says this function's form wrote it), and batch.json states it too.
  if (user)
    await ports.writers.record({
      key: `${folder}${catalogue.path}`,
      etag: null,
      version_id: null,
      person: personOfUser(user),
      at: plannedAt,
    });
  const options = user ? { ...request.options, requested_by: user.name.slice(0, 200) } : request.options;
  await ports.objects.put(`${folder}batch.json`, `${JSON.stringify(options, null, 2)}\n`, 'application/json');
  const forms = [
    ...(await Promise.all(
      sheets.map((sheet) =>
        formFor(ports, `${folder}${sheet.path}`, sheet.path, 'pdf', CONSOLE_LIMITS.sheetBytes),
      ),
    )),
    await formFor(
      ports,
      `${folder}${catalogue.path}`,
      catalogue.path,
      catalogue.kind,
      CONSOLE_LIMITS.catalogueBytes,
    ),
  ];
  return { batch_name: batchName, folder, forms, expires_at: expiry(ports), planned_at: plannedAt };
};

/** A form for a new sheet sent with answers: `answers/<batch-id>/sheets/<name>`. */
export const answerSheetForm = async (
  ports: Pick<ConsolePorts, 'links' | 'batches'>,
  body: unknown,
): Promise<AnswerSheetForm> => {
  const parsed = AnswerSheetRequest.safeParse(body);
  if (!parsed.success) throw invalidRequest('answer sheet', parsed.error.issues);
  const { batch_id: batchId, sheet } = parsed.data;
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  const { path } = checkFile(sheet, ['pdf'], CONSOLE_LIMITS.sheetBytes, 'The sheet');
  const relative = `sheets/${posix.basename(path)}`;
  const form = await formFor(
    ports,
    `${answersFolder(batchId)}${relative}`,
    posix.basename(path),
    'pdf',
    CONSOLE_LIMITS.sheetBytes,
  );
  return { form, sheet: relative };
};

const CONTENT_TYPES: Record<string, string> = {
  '.csv': 'text/csv; charset=utf-8',
  '.json': 'application/json',
  '.pdf': 'application/pdf',
  '.xlsx': XLSX_CONTENT_TYPE,
  '.zip': 'application/zip',
};

const link = async (
  ports: Pick<ConsolePorts, 'links' | 'clock'>,
  key: string,
  fileName: string,
  disposition: 'attachment' | 'inline',
): Promise<DownloadLink> => ({
  url: await ports.links.downloadUrl({
    key,
    fileName,
    disposition,
    contentType: CONTENT_TYPES[posix.extname(fileName)] ?? 'application/octet-stream',
    expiresSeconds: CONSOLE_LIMITS.linkSeconds,
  }),
  file_name: fileName,
  expires_at: expiry(ports),
});

/** A link to one of a batch's outbox files, saved under a name that says which batch it is. */
export const batchFileLink = async (
  ports: Pick<ConsolePorts, 'links' | 'objects' | 'batches' | 'clock'>,
  batchId: string,
  file: string,
): Promise<DownloadLink> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  // results.xlsx with its verdict PDFs beside it, made when asked for.
  if (file === RESULTS_BUNDLE)
    return link(ports, await resultsBundle(ports, batch), `${batch.name}-results.zip`, 'attachment');
  // One of the outbox's files, or one answers round's own report.
  const name = BatchFileName.safeParse(file);
  const known = name.success ? name.data : isRoundReportFile(file) ? file : null;
  const key = known === null ? null : outboxKey(batchId, known);
  if (known === null || !key || !(await ports.objects.head(key)))
    throw new ConsoleRefusal(404, 'file_not_found', `Batch ${batch.name} has no ${file} (yet).`, {
      file,
      batch_name: batch.name,
    });
  return link(ports, key, `${batch.name}-${known}`, 'attachment');
};

/** A link to a row's verdict PDF, shown in the browser. */
export const verdictLink = async (
  ports: Pick<ConsolePorts, 'links' | 'objects' | 'batches' | 'clock'>,
  batchId: string,
  rowText: string,
): Promise<DownloadLink> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  const rowNumber = /^\d{1,7}$/.test(rowText) ? Number(rowText) : null;
  const row = rowNumber === null ? null : await ports.batches.getRow(batchId, rowNumber);
  if (!row) throw rowNotFound(batch.name, rowText);
  // A row of the same product shows its leader's verdict until Finalize writes it on the row.
  const leader =
    !row.result && row.follows !== undefined ? await ports.batches.getRow(batchId, row.follows) : null;
  const result = row.result ?? leader?.result;
  const relative = result?.verdict_pdf;
  // A reused row names the earlier batch's PDF (its key) until Finalize copies it into this outbox.
  const key = !relative ? null : isPendingPdfCopy(result) ? relative : outboxKey(batchId, relative);
  if (!relative || !key?.startsWith('outbox/') || !(await ports.objects.head(key)))
    throw new ConsoleRefusal(
      404,
      'verdict_not_found',
      `Row ${row.row} of batch ${batch.name} has no verdict PDF.`,
      {
        row: row.row,
      },
    );
  return link(ports, key, posix.basename(relative), 'inline');
};
