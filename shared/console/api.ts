/**
 * The operations console's HTTP API, written once: every route, what it takes and what it
 * answers, as zod schemas. The handlers (functions/console-*) parse requests with them, the
 * browser app (web/, through shared/console/web-contract.ts) parses responses with them, the
 * CDK app makes one HTTP API route per entry of CONSOLE_ROUTES, and the local console serves
 * the same table.
 *
 * Nothing here carries a secret: no API key, no task token, no signed URL but the short-lived
 * ones made for the person who asked (an upload form, a download link).
 *
 * Messages a person reads are not written here in English only: a refusal carries a `code` and
 * its `params`, which the page words in the reader's language, and a `detail` in English for
 * logs and scripts.
 */
import * as z from 'zod';
import { BatchOptions } from '../pipeline/core/batch-options-schema.js';
import { BatchStage } from '../pipeline/core/batch-stage.js';
import { RowStatus } from '../pipeline/core/row-statuses.js';
import { Message } from '../wording/message.js';

// ---------------------------------------------------------------------------
// Routes
// ---------------------------------------------------------------------------

/** The console's Lambda functions, by what their roles may reach (functions/console-catalogue.ts). */
export const CONSOLE_HANDLER_NAMES = ['console-read', 'console-files', 'console-answers'] as const;
export type ConsoleHandlerName = (typeof CONSOLE_HANDLER_NAMES)[number];

/**
 * Every route: `METHOD /path` as API Gateway writes a route key (path parameters in braces),
 * and the function that answers it. Paths are relative to the API's base URL (`apiUrl` in the
 * page's config.json): on AWS the HTTP API's URL, locally `http://127.0.0.1:<port>/api`.
 */
export const CONSOLE_ROUTES = {
  'GET /session': 'console-read',
  'GET /batches': 'console-read',
  'GET /batches/{batchId}': 'console-read',
  'GET /batches/{batchId}/rows': 'console-read',
  'GET /questions': 'console-read',
  'POST /uploads': 'console-files',
  'POST /batches/{batchId}/run': 'console-files',
  'POST /answer-sheets': 'console-files',
  'GET /batches/{batchId}/files/{file}': 'console-files',
  'GET /batches/{batchId}/rows/{row}/verdict': 'console-files',
  'GET /batches/{batchId}/rows/{row}': 'console-read',
  'POST /answers': 'console-answers',
  'GET /checks': 'console-read',
  'POST /decisions': 'console-answers',
  'POST /approvals': 'console-answers',
  'POST /resends': 'console-answers',
  'GET /batches/{batchId}/audit': 'console-read',
} as const satisfies Record<string, ConsoleHandlerName>;
export type ConsoleRouteKey = keyof typeof CONSOLE_ROUTES;

// ---------------------------------------------------------------------------
// Limits a person meets
// ---------------------------------------------------------------------------

export const CONSOLE_LIMITS = {
  /** A PDF technical sheet: the service's own limit (POST /uploads answers 413 above it). */
  sheetBytes: 10 * 1024 * 1024,
  /**
   * A catalogue file. 400,000 rows of a few hundred bytes each fit well under it; a larger file
   * is split into batches (README, "Limits").
   */
  catalogueBytes: 200 * 1024 * 1024,
  /** Sheets sent with one catalogue. */
  sheetsPerBatch: 2000,
  /**
   * results.xlsx with its verdict PDFs as one ZIP (shared/console/results-bundle.ts): made in
   * memory by a function of 512 MB within API Gateway's 29 s, so at most this many bytes.
   */
  bundleBytes: 100 * 1024 * 1024,
  /** How long an upload form or a download link works. */
  linkSeconds: 10 * 60,
  /** Rows on one page of a batch's rows. */
  rowsPageMax: 200,
  /** Batches on one page of the list. */
  batchesPageMax: 50,
  /** The service's limit on one answer. */
  answerChars: 500,
  /** Rows answered in one submission. */
  answersPerSubmission: 500,
  /** Rows decided at once (an entry of the "To check" list and its identical products). */
  decisionsPerSubmission: 500,
  /** Entries of the "To check" list approved at once. */
  entriesPerApproval: 200,
  /** Rows sent again in one request (POST /resends): one resend file, one round. */
  resendsPerSubmission: 500,
  /** A decision's note. */
  noteChars: 500,
  /** Audit events on one page of a batch's audit. */
  auditPageMax: 200,
} as const;

/** What a file must be to be sent through the console: its extension and the type the browser declares. */
export const UPLOAD_TYPES = {
  csv: { extension: '.csv', contentType: 'text/csv' },
  // Excel's "Unicode Text" and "Text (tab delimited)" saves: read by their content, as a CSV is.
  txt: { extension: '.txt', contentType: 'text/plain' },
  tsv: { extension: '.tsv', contentType: 'text/tab-separated-values' },
  xlsx: {
    extension: '.xlsx',
    contentType: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  },
  // NF-e invoices: one XML, or a ZIP of many; read by their content, and they name no sheets.
  xml: { extension: '.xml', contentType: 'application/xml' },
  zip: { extension: '.zip', contentType: 'application/zip' },
  pdf: { extension: '.pdf', contentType: 'application/pdf' },
} as const;

// ---------------------------------------------------------------------------
// Refusals
// ---------------------------------------------------------------------------

export const CONSOLE_ERROR_CODES = [
  'unauthorized',
  'forbidden',
  'internal',
  'not_found',
  'batch_not_found',
  'row_not_found',
  'file_not_found',
  'verdict_not_found',
  'invalid_request',
  'invalid_batch_name',
  'invalid_file_name',
  'wrong_file_type',
  'file_too_large',
  'too_many_files',
  'invalid_options',
  'classification_not_found',
  'not_pending',
  'answer_missing',
  'answer_too_long',
  'unknown_question',
  'sheet_not_uploaded',
  'not_a_plan',
  'plan_not_ready',
  'plan_already_run',
  'plan_input_gone',
  'plan_input_changed',
  'check_not_found',
  'already_decided',
  'invalid_ncm',
  'ncm_not_in_force',
  'sim_not_offered',
  'not_services_choice',
  'bundle_too_large',
  'not_resendable',
] as const;
export const ConsoleErrorCode = z.enum(CONSOLE_ERROR_CODES);
export type ConsoleErrorCode = z.infer<typeof ConsoleErrorCode>;

/** A refusal (RFC 9457 problem details, plus our `code` and its `params` for the page's wording). */
export const ConsoleProblem = z.object({
  status: z.number().int(),
  code: ConsoleErrorCode,
  title: z.string(),
  /** English, precise: what is wrong and where. */
  detail: z.string(),
  params: z.record(z.string(), z.union([z.string(), z.number()])).default({}),
});
export type ConsoleProblem = z.infer<typeof ConsoleProblem>;

// ---------------------------------------------------------------------------
// GET /session
// ---------------------------------------------------------------------------

export const SessionView = z.object({
  /** Who is signed in (the token's name, else its email or username); locally the person at the machine. */
  user: z.string(),
  /** `local`: loopback, no sign-in; `aws`: Cognito. */
  where: z.enum(['local', 'aws']),
  limits: z.object({
    sheet_bytes: z.number(),
    catalogue_bytes: z.number(),
    sheets_per_batch: z.number(),
    answer_chars: z.number(),
  }),
});
export type SessionView = z.infer<typeof SessionView>;

// ---------------------------------------------------------------------------
// Batches
// ---------------------------------------------------------------------------

/** Rows by status, working ones (queued, submitting, in_progress, following) included; zeros left out. */
export const RowCounts = z.partialRecord(RowStatus, z.number().int().min(0));
export type RowCounts = z.infer<typeof RowCounts>;

export const BatchListItem = z.object({
  batch_id: z.string(),
  name: z.string(),
  file_name: z.string(),
  state: z.enum(['preparing', 'running', 'finalizing', 'completed', 'failed']),
  stage: BatchStage,
  plan_only: z.boolean(),
  rows_total: z.number().int().min(0),
  by_status: RowCounts,
  billed_usd: z.number(),
  started_at: z.string(),
  finished_at: z.string().nullable(),
  /** Why the batch stopped early (a 401/403 from the service, a budget, bad options), in English. */
  /** `type`: the service's Problem type (a URL), or the pipeline's own code (`invalid_options`, a file's). */
  stop: z.object({ type: z.string(), title: z.string(), detail: z.string() }).nullable(),
});
export type BatchListItem = z.infer<typeof BatchListItem>;

/** GET /batches?limit=&after= : `after` is the previous page's `next`. */
export const BatchesQuery = z.object({
  limit: z.coerce.number().int().min(1).max(CONSOLE_LIMITS.batchesPageMax).default(20),
  after: z.string().max(1024).optional(),
});
export type BatchesQuery = z.infer<typeof BatchesQuery>;

export const BatchList = z.object({ batches: z.array(BatchListItem), next: z.string().nullable() });
export type BatchList = z.infer<typeof BatchList>;

/** Files of a batch's outbox a person can download (GET /batches/{id}/files/{file}). */
export const BATCH_FILES = [
  'results.xlsx',
  'results.csv',
  'erp-update.csv',
  'review.xlsx',
  'review.csv',
  'summary.json',
  'plan.json',
  'plan.csv',
  'answers-report.csv',
  'results.partial.xlsx',
  'results.partial.csv',
  'summary.partial.json',
] as const;
export const BatchFileName = z.enum(BATCH_FILES);

/**
 * results.xlsx with its verdict PDFs in `pdfs/` beside it, as one ZIP made when first asked for
 * (`GET /batches/{id}/files/results-with-pdfs.zip`, shared/console/results-bundle.ts): the
 * workbook's links open once it is unpacked.
 */
export const RESULTS_BUNDLE = 'results-with-pdfs.zip';
export type BatchFileName = z.infer<typeof BatchFileName>;

/**
 * The official NCM table rows' codes are checked against (shared/ncm-table/), as a page names it:
 * the day it speaks for (ISO date; null when the table says none) and the act it follows.
 */
export const NcmTableSaid = z.object({ as_of: z.string().nullable(), act: z.string() });
export type NcmTableSaid = z.infer<typeof NcmTableSaid>;

export const BatchView = BatchListItem.extend({
  rows_dispatched: z.number().int().min(0),
  saved_usd: z.number().nullable(),
  /** Where `saved_usd` came from (earlier verdicts reused, identical rows classified once), as a message. */
  saving: Message,
  /** Slot leases held now by every batch sharing the cap, and the cap; null when unknown. */
  slots: z.object({ in_use: z.number().int().min(0), cap: z.number().int().min(1).nullable() }),
  /** Rows with an output status. */
  rows_done: z.number().int().min(0),
  /** While Prepare reads the file: the rows read so far (every 10,000); null otherwise. */
  rows_read: z.number().int().min(0).nullable(),
  /**
   * What matters first, while the batch runs: the share of its rows with a verdict, of the value
   * they carry (null where the file gives none) and of its classifications over, in whole
   * percents; null before any classification ended or once over.
   */
  coverage: z
    .object({
      rows: z.number().int().min(0).max(100),
      value: z.number().int().min(0).max(100).nullable(),
      classifications: z.number().int().min(0).max(100),
    })
    .nullable(),
  /** Seconds until the last row is expected to be final, from the pace so far; null when unknown. */
  eta_seconds: z.number().min(0).nullable(),
  /** Rows waiting for answers (pending_data). */
  pending_questions: z.number().int().min(0),
  /** What went wrong, and what to look at in the file, as messages: the page words them in its language. */
  problems: z.array(Message),
  warnings: z.array(Message),
  options: BatchOptions.nullable(),
  /** Which of BATCH_FILES are in the outbox now. */
  files: z.array(BatchFileName),
  /**
   * The NCM table the batch's codes are checked against: a finished batch's results, the one its
   * summary.json names (the table in force when they were written); else the table in force now.
   */
  ncm_table: NcmTableSaid,
  /** Each answers round's own report (answers-report.csv keeps only the latest), oldest first: its file and when the round started. */
  round_reports: z.array(z.object({ file: z.string(), at: z.string() })),
  /** Rows whose declared NCM is not the verdict's ("NCM divergente"), from a finished batch's summary; null while it runs. */
  divergent_rows: z.number().int().min(0).nullable(),
});
export type BatchView = z.infer<typeof BatchView>;

// ---------------------------------------------------------------------------
// GET /batches/{batchId}/rows?status=&q=&not_in_force=&divergent=&after=&limit=
// ---------------------------------------------------------------------------

export const RowsQuery = z.object({
  /** One status, or several separated by commas. */
  status: z
    .string()
    .optional()
    .transform((value) => (value ? value.split(',').filter((part) => part !== '') : []))
    .pipe(z.array(RowStatus)),
  /** Searched in SKU, description, NCM (with or without dots) and external reference; case and accents ignored. */
  q: z.string().max(120).optional(),
  /**
   * `1`: only rows whose declared NCM or verdict's NCM is not in the NCM table in force; found a
   * page at a time, as a search's rows are.
   */
  not_in_force: z
    .enum(['0', '1'])
    .optional()
    .transform((value) => value === '1'),
  /** `1`: only rows whose declared NCM is not the verdict's; found a page at a time, as a search's rows are. */
  divergent: z
    .enum(['0', '1'])
    .optional()
    .transform((value) => value === '1'),
  /** The last row number of the previous page. */
  after: z.coerce.number().int().min(0).optional(),
  limit: z.coerce.number().int().min(1).max(CONSOLE_LIMITS.rowsPageMax).default(100),
});
export type RowsQuery = z.infer<typeof RowsQuery>;

export const RowView = z.object({
  row: z.number().int().min(1),
  status: RowStatus,
  sku: z.string().nullable(),
  description: z.string().nullable(),
  external_reference: z.string().nullable(),
  /** The supplier, from a column the file names so (Fornecedor, Proveedor, Supplier…); null when none. */
  supplier: z.string().nullable(),
  /** The NCM the row declared (its catalogue's NCM column), dotted when it has 8 digits; null when none. */
  declared_ncm: z.string().nullable(),
  /** Whether the declared NCM is a code in the NCM table in force; null when the row declared none. */
  declared_ncm_in_force: z.boolean().nullable(),
  /** Whether the declared NCM is the verdict's; null when the row declared none or has no verdict. */
  declared_ncm_matches: z.boolean().nullable(),
  /** Dotted (8471.30.12); null until a verdict. */
  ncm: z.string().nullable(),
  ncm_description: z.string().nullable(),
  /** Whether the verdict's NCM is a code in the NCM table in force; null without a verdict. */
  ncm_in_force: z.boolean().nullable(),
  confidence: z.number().nullable(),
  /** A rejected, failed or error row's reason code and detail, in English. */
  reason: z.string().nullable(),
  detail: z.string().nullable(),
  /** `detail` as messages, which the page words in its language (shared/wording/). */
  detail_messages: z.array(Message),
  cost_usd: z.number(),
  /** This row's verdict PDF can be opened (GET /batches/{id}/rows/{row}/verdict). */
  has_verdict_pdf: z.boolean(),
  /** The earlier row of the same product whose classification this row shares. */
  follows: z.number().int().nullable(),
  /** `to_check`: the verdict waits for a person's check; `approved`: a person decided it. */
  check: z.enum(['to_check', 'approved']).nullable(),
  /** What the person approved (dotted) and who; null unless `approved`. */
  approved_ncm: z.string().nullable(),
  decided_by: z.string().nullable(),
  /** Why a verdict marked `to_check` waits: its confidence under the batch's `check_below`, a SIM opening to choose. */
  check_reasons: z.array(z.enum(['low_confidence', 'sim_pending_choice'])),
  /**
   * A rejected or failed row that may be sent again (not one following another): the cells it would
   * go with now, whole, as the form to correct them starts. Null for any other row.
   */
  resend: z
    .object({ description: z.string(), operation: z.string(), country: z.string(), sheet: z.string() })
    .nullable(),
});
export type RowView = z.infer<typeof RowView>;

/**
 * Everything about one row (GET /batches/{batchId}/rows/{row}): the row as the table shows it, every
 * cell of the file under its header, the descriptions of the NCM declared and returned, the answers
 * given to the service's questions, a person's decision and note, who sent the row again, and when
 * it was sent and ended.
 */
export const RowDetail = z.object({
  view: RowView,
  /** Every cell of the input row, in the file's order, under its header. */
  cells: z.array(z.object({ header: z.string(), value: z.string() })),
  /** The declared NCM's description in the NCM table in force; null when none or not in it. */
  declared_ncm_description: z.string().nullable(),
  /** The verdict's reason and detail in full (the table cuts them). */
  classification_id: z.string().nullable(),
  submitted_at: z.string().nullable(),
  finished_at: z.string().nullable(),
  answers: z
    .object({
      by: z.string(),
      at: z.string().nullable(),
      given: z.array(z.object({ question: z.string(), answer: z.string() })),
    })
    .nullable(),
  decision: z
    .object({ ncm: z.string(), sim: z.string().nullable(), note: z.string(), by: z.string(), at: z.string() })
    .nullable(),
  resent: z.object({ by: z.string(), at: z.string() }).nullable(),
});
export type RowDetail = z.infer<typeof RowDetail>;

export const RowList = z.object({
  rows: z.array(RowView),
  /**
   * Pass as `after` for the next page; null on the last. A filtered page reads a bounded number of
   * rows: it may end before `limit` rows matched, with `next` where its reading stopped.
   */
  next: z.number().int().nullable(),
  /**
   * Rows of the batch matching the filter, all pages, from the batch's counters: every row without
   * a filter, the statuses' counts with one. Null with a search (`q`): its matches are found a page
   * at a time and not counted; a page may then hold fewer than `limit` rows (even none) and still
   * have a `next`.
   */
  matching: z.number().int().min(0).nullable(),
  /** The whole batch's rows by status, from its counters (a finished batch: its summary.json). */
  by_status: RowCounts,
  /** The NCM table in force the rows' codes were checked against for this page. */
  ncm_table: NcmTableSaid,
});
export type RowList = z.infer<typeof RowList>;

// ---------------------------------------------------------------------------
// Downloads: GET /batches/{batchId}/files/{file}, GET /batches/{batchId}/rows/{row}/verdict
// ---------------------------------------------------------------------------

export const DownloadLink = z.object({
  /** A presigned GET; open it at once, never store it. */
  url: z.string(),
  file_name: z.string(),
  expires_at: z.string(),
});
export type DownloadLink = z.infer<typeof DownloadLink>;

// ---------------------------------------------------------------------------
// Uploads: POST /uploads, POST /answer-sheets
// ---------------------------------------------------------------------------

export const FileToSend = z.object({
  /**
   * The file's name; for a sheet, its path inside the batch folder as the catalogue's sheet
   * column names it (`sheets/pump.pdf` when the folder `sheets` was chosen), POSIX slashes.
   */
  name: z.string().min(1).max(255),
  size: z.number().int().min(0),
  /** The type the browser declares (File.type); may be empty, then the extension decides. */
  type: z.string().max(255).default(''),
});
export type FileToSend = z.infer<typeof FileToSend>;

export const UploadRequest = z.object({
  /** The batch's folder, `inbox/<batch_name>/`; default: the catalogue's name without extension. */
  batch_name: z.string().max(100).optional(),
  catalogue: FileToSend,
  sheets: z.array(FileToSend).default([]),
  /** batch.json, checked as Prepare checks it; written beside the catalogue before any upload. */
  options: z.record(z.string(), z.unknown()).default({}),
});
export type UploadRequest = z.input<typeof UploadRequest>;

/** A presigned POST: send `fields` first, then the file as the form's `file` field, to `url`. */
export const UploadForm = z.object({
  file_name: z.string(),
  key: z.string(),
  url: z.string(),
  fields: z.record(z.string(), z.string()),
  content_type: z.string(),
  max_bytes: z.number().int(),
});
export type UploadForm = z.infer<typeof UploadForm>;

export const UploadPlan = z.object({
  batch_name: z.string(),
  folder: z.string(),
  /** Sheets first, the catalogue last: its arrival starts the batch, and the sheets must be there by then. */
  forms: z.array(UploadForm),
  expires_at: z.string(),
  /**
   * The server's time before any file of this upload arrived: the batch the catalogue starts is
   * the one of this folder and file started at or after it (the page follows it there).
   */
  planned_at: z.string(),
});
export type UploadPlan = z.infer<typeof UploadPlan>;

/**
 * POST /batches/{batchId}/run: a planned batch (plan_only) run for real, without sending its files
 * again: its catalogue, its folder's sheets and its options (plan_only off) are copied into a
 * folder of their own, `inbox/<planned batch id>/`, the catalogue last, whose arrival starts the
 * batch as a drop does. A plan runs once: its folder then holds the catalogue.
 */
export const PlanRun = z.object({
  /** The new batch's name: its folder, the planned batch's id. */
  batch_name: z.string(),
  folder: z.string(),
  file_name: z.string(),
  /** Sheets copied with the catalogue. */
  sheets: z.number().int().min(0),
  /** The server's time before the catalogue was copied: the new batch starts at or after it. */
  requested_at: z.string(),
});
export type PlanRun = z.infer<typeof PlanRun>;

export const AnswerSheetRequest = z.object({ batch_id: z.string().min(1), sheet: FileToSend });
export type AnswerSheetRequest = z.input<typeof AnswerSheetRequest>;

export const AnswerSheetForm = z.object({
  form: UploadForm,
  /** The sheet's path inside `answers/<batch-id>/`, for the `sheet` of an answer. */
  sheet: z.string(),
});
export type AnswerSheetForm = z.infer<typeof AnswerSheetForm>;

// ---------------------------------------------------------------------------
// Questions inbox: GET /questions, POST /answers
// ---------------------------------------------------------------------------

const QuestionView = z.object({ text: z.string(), options: z.array(z.string()) });

export const PendingRowView = z.object({
  batch_id: z.string(),
  batch_name: z.string(),
  row: z.number().int().min(1),
  classification_id: z.string(),
  sku: z.string().nullable(),
  description: z.string().nullable(),
  provisional_ncm: z.string().nullable(),
  provisional_confidence: z.number().nullable(),
  abandons_at: z.string(),
  /** Whole days until the service abandons the classification (0: today). */
  days_left: z.number().int(),
  /** This row's question ids, in the group's question order. */
  question_ids: z.array(z.string()),
  /** Rows of the same product that resume with this row's answers. */
  same_product_rows: z.array(z.number().int()),
});
export type PendingRowView = z.infer<typeof PendingRowView>;

/** Rows asked exactly the same questions (same texts, same options, same order): answered once for all. */
export const QuestionGroup = z.object({
  key: z.string(),
  questions: z.array(QuestionView),
  rows: z.array(PendingRowView),
});
export type QuestionGroup = z.infer<typeof QuestionGroup>;

export const QuestionInbox = z.object({ groups: z.array(QuestionGroup), rows: z.number().int().min(0) });
export type QuestionInbox = z.infer<typeof QuestionInbox>;

export const RowAnswers = z.object({
  batch_id: z.string().min(1),
  classification_id: z.string().min(1),
  answers: z
    .array(z.object({ question_id: z.string().min(1), answer: z.string() }))
    .min(1)
    .max(5),
  /** A new technical sheet, as POST /answer-sheets named it. */
  sheet: z.string().optional(),
});
export type RowAnswers = z.infer<typeof RowAnswers>;

export const AnswersSubmission = z.object({
  rows: z.array(RowAnswers).min(1).max(CONSOLE_LIMITS.answersPerSubmission),
});
export type AnswersSubmission = z.input<typeof AnswersSubmission>;

export const AnswersAccepted = z.object({
  /** One answers file per batch, dropped into `answers/<batch-id>/`: each starts a round. */
  files: z.array(z.object({ batch_id: z.string(), key: z.string(), rows: z.array(z.number().int()) })),
});
export type AnswersAccepted = z.infer<typeof AnswersAccepted>;

// ---------------------------------------------------------------------------
// The "To check" list: GET /checks, POST /decisions
// ---------------------------------------------------------------------------

/** One row waiting for a person's check (a check item), as the entry lists it. */
const CheckRowView = z.object({
  batch_id: z.string(),
  batch_name: z.string(),
  row: z.number().int().min(1),
  classification_id: z.string(),
  /** Rows of the same product in its batch that follow it: the decision settles them too. */
  followers: z.number().int().min(0),
  created_at: z.string(),
});

/**
 * Identical products waiting for a check (the same classification, else the same product
 * fingerprint), decided once for all their rows, in every batch they are in.
 */
export const CheckEntryView = z.object({
  /** Stable while the same rows wait: a hash of their batches and rows. */
  key: z.string(),
  rows: z.array(CheckRowView),
  /** Rows the decision settles, followers included, and how many batches they are in. */
  row_count: z.number().int().min(1),
  batch_count: z.number().int().min(1),
  sku: z.string().nullable(),
  description: z.string().nullable(),
  title: z.string().nullable(),
  reasons: z.array(z.enum(['low_confidence', 'sim_pending_choice'])),
  /** The lowest threshold among the rows' batches (percent), null when none set one. */
  check_below: z.number().nullable(),
  /** The service's NCM (8 digits) and its confidence. */
  ncm: z.string().nullable(),
  confidence: z.number().nullable(),
  candidates: z.array(
    z.object({
      rank: z.number().int(),
      ncm: z.string(),
      description: z.string(),
      confidence: z.number().nullable(),
      rationale: z.string(),
      chosen: z.boolean(),
    }),
  ),
  /** The SIM openings to choose from (10 digits), of the service's NCM. */
  sim_options: z.array(z.object({ code: z.string(), description: z.string() })),
  /** A row whose verdict PDF the page opens (GET /batches/{id}/rows/{row}/verdict); null when none. */
  verdict: z.object({ batch_id: z.string(), row: z.number().int() }).nullable(),
});
export type CheckEntryView = z.infer<typeof CheckEntryView>;

export const CheckList = z.object({
  entries: z.array(CheckEntryView),
  /** Rows waiting, followers included. */
  rows: z.number().int().min(0),
});
export type CheckList = z.infer<typeof CheckList>;

/** Rows of one entry: each must still wait for a check, and none may be given twice. */
const DecidedRows = z
  .array(z.object({ batch_id: z.string().min(1), row: z.number().int().min(1) }))
  .min(1)
  .max(CONSOLE_LIMITS.decisionsPerSubmission);

export const DecisionSubmission = z.object({
  /** The entry's rows: every one is decided, or none is. */
  rows: DecidedRows,
  /** A candidate's NCM or one typed, dotted or not: it must be in the NCM table in force. */
  ncm: z.string().max(20),
  /** One of the entry's SIM openings (10 digits, dotted or not), or none. */
  sim: z.string().max(20).nullable().default(null),
  note: z.string().max(CONSOLE_LIMITS.noteChars).default(''),
});
export type DecisionSubmission = z.input<typeof DecisionSubmission>;

export const DecisionAccepted = z.object({
  /** One decisions file per batch, dropped into `answers/<batch-id>/`: each starts a round. */
  files: z.array(z.object({ batch_id: z.string(), key: z.string(), rows: z.array(z.number().int()) })),
  /** The NCM decided (8 digits) and the SIM opening (10 digits) or null. */
  ncm: z.string(),
  sim: z.string().nullable(),
});
export type DecisionAccepted = z.infer<typeof DecisionAccepted>;

/**
 * Many entries of the "To check" list approved at once, each at the service's own NCM (the page
 * sends the one it showed: it must still be the verdict's), with a SIM opening or none, under one note.
 */
export const ApprovalSubmission = z
  .object({
    entries: z
      .array(
        z.object({
          rows: DecidedRows,
          ncm: z.string().max(20),
          sim: z.string().max(20).nullable().default(null),
        }),
      )
      .min(1)
      .max(CONSOLE_LIMITS.entriesPerApproval),
    note: z.string().max(CONSOLE_LIMITS.noteChars).default(''),
  })
  .refine(
    (submission) =>
      submission.entries.reduce((sum, entry) => sum + entry.rows.length, 0) <=
      CONSOLE_LIMITS.decisionsPerSubmission,
    { message: `at most ${CONSOLE_LIMITS.decisionsPerSubmission} rows at once`, path: ['entries'] },
  );
export type ApprovalSubmission = z.input<typeof ApprovalSubmission>;

export const ApprovalAccepted = z.object({
  /** One decisions file per batch, every approved row of that batch in it: each starts a round. */
  files: z.array(z.object({ batch_id: z.string(), key: z.string(), rows: z.array(z.number().int()) })),
  entries: z.number().int().min(1),
});
export type ApprovalAccepted = z.infer<typeof ApprovalAccepted>;

// ---------------------------------------------------------------------------
// Rows sent again: POST /resends
// ---------------------------------------------------------------------------

/**
 * One row of a batch sent again: each cell given replaces the row's (absent or "" keeps it); `sheet`
 * is a new technical sheet as POST /answer-sheets named it.
 */
export const RowResend = z.object({
  row: z.number().int().min(1),
  description: z.string().max(5000).optional(),
  operation: z.string().max(40).optional(),
  country: z.string().max(80).optional(),
  sheet: z.string().max(1024).optional(),
});
export type RowResend = z.infer<typeof RowResend>;

/** Rejected or failed rows of one batch sent again, as one round of it. */
export const ResendSubmission = z.object({
  batch_id: z.string().min(1),
  rows: z.array(RowResend).min(1).max(CONSOLE_LIMITS.resendsPerSubmission),
});
export type ResendSubmission = z.input<typeof ResendSubmission>;

export const ResendAccepted = z.object({
  /** The resend file dropped into `answers/<batch-id>/`: its arrival starts the round. */
  files: z.array(z.object({ batch_id: z.string(), key: z.string(), rows: z.array(z.number().int()) })),
});
export type ResendAccepted = z.infer<typeof ResendAccepted>;

// ---------------------------------------------------------------------------
// A batch's audit: GET /batches/{batchId}/audit?after=&limit=
// ---------------------------------------------------------------------------

export const AuditQuery = z.object({
  /** The previous page's `next`. */
  after: z.string().max(200).optional(),
  limit: z.coerce.number().int().min(1).max(CONSOLE_LIMITS.auditPageMax).default(100),
});
export type AuditQuery = z.infer<typeof AuditQuery>;

export const AuditEventView = z.object({
  at: z.string(),
  row: z.number().int(),
  event: z.string(),
  /** The person; "" for the pipeline. */
  who: z.string(),
  /** What tells the person apart (the sign-in's `sub`, a principal's ARN); null for the pipeline and older events. */
  who_id: z.string().nullable(),
  /** How the person was known: `console`, `iam` (S3's record of who wrote the file), `cli`; null as above. */
  known_by: z.string().nullable(),
  /** The name the file stated about itself, when it was another. */
  stated_by: z.string().nullable(),
  classification_id: z.string().nullable(),
  detail: z.string(),
  /** An `answered` event's content: each question as the service asked it, and the answer given. */
  answers: z.array(z.object({ question: z.string(), answer: z.string() })).nullable(),
  /** A `decided` event's content: the note the person wrote with the decision ("" when none). */
  note: z.string().nullable(),
});
export type AuditEventView = z.infer<typeof AuditEventView>;

export const AuditPage = z.object({
  events: z.array(AuditEventView),
  /** Pass as `after` for the next page; null on the last. */
  next: z.string().nullable(),
});
export type AuditPage = z.infer<typeof AuditPage>;
