/**
 * Zod schemas of the spreadsheet core. The schema is the type: every type of
 * `shared/spreadsheet/` that crosses a module boundary is inferred from here.
 *
 * Flow: bytes → `readSpreadsheet` (decode, parse, match columns) → `SpreadsheetRead`
 * whose `rows` are `MappedRow`s → `normaliseRow` → `RowOutcome` (a `ProductRow` the
 * pipeline can send, or a `RowRejection` with a stable reason code).
 */
import * as z from 'zod';
import { CountryCode, Operation } from '../tcs/schemas.js';
import { Message, MessageParams } from '../wording/message.js';

// ---------------------------------------------------------------------------
// Reading
// ---------------------------------------------------------------------------

/**
 * `sped`: a SPED EFD ICMS/IPI text file, read for its item registers (0200); `nfe`: one NF-e XML or a
 * ZIP of them, read for their items (`det/prod`). Both are told by their content, never their name.
 */
const SPREADSHEET_FORMATS = ['csv', 'xlsx', 'sped', 'nfe'] as const;
export const SpreadsheetFormat = z.enum(SPREADSHEET_FORMATS);
export type SpreadsheetFormat = z.infer<typeof SpreadsheetFormat>;

/** The three list separators Excel and ERPs write: `;` in pt-BR/es-AR, `,` in en, tab for "Text". */
export const DELIMITERS = [',', ';', '\t'] as const;
export const Delimiter = z.enum(DELIMITERS);
export type Delimiter = z.infer<typeof Delimiter>;

/**
 * How the bytes of a text file were decoded. `utf-8+windows-1252`: a file mixing both, each
 * byte sequence read in the encoding it is valid in. `cesu-8`: UTF-8 whose characters beyond
 * U+FFFF are written as two encoded surrogates (what Java and some databases write), which
 * UTF-8 does not allow. UTF-16 when the file starts with its BOM, or when its first bytes
 * alternate text and zero bytes as UTF-16 does (Excel's "Unicode Text" saved without its BOM).
 */
const TEXT_ENCODINGS = [
  'utf-8',
  'windows-1252',
  'utf-8+windows-1252',
  'cesu-8',
  'utf-16le',
  'utf-16be',
] as const;
export const TextEncoding = z.enum(TEXT_ENCODINGS);
export type TextEncoding = z.infer<typeof TextEncoding>;

/** The columns the pipeline understands. Every other column is passed through untouched. */
export const PIPELINE_COLUMNS = [
  'description',
  'operation',
  'country',
  'sheet',
  'external_reference',
  'sku',
  'current_ncm',
] as const;
export const PipelineColumn = z.enum(PIPELINE_COLUMNS);
export type PipelineColumn = z.infer<typeof PipelineColumn>;

/** A column of the file: its 0-based position and its header exactly as written. */
export const ColumnRef = z.object({ index: z.number().int().min(0), header: z.string() });
export type ColumnRef = z.infer<typeof ColumnRef>;

export const ColumnMapping = z.object({
  /** Pipeline column → the file's column holding it; absent when the file has no such column. */
  fields: z.partialRecord(PipelineColumn, ColumnRef),
  /** Columns the pipeline does not know, in file order: written back to the output as they came. */
  passthrough: z.array(ColumnRef),
});
export type ColumnMapping = z.infer<typeof ColumnMapping>;

/**
 * What makes a row's cells unfit to keep as read (cell-limits.ts): a cell longer than a workbook
 * cell holds, a row too large to store, a control character that is not text. The row is
 * rejected for it; its cells are kept cut to fit, a control character shown as U+FFFD.
 */
export const CellFlaw = z.discriminatedUnion('kind', [
  /** `index`: the cell's 0-based column; `characters`: its length as read. */
  z.object({
    kind: z.literal('cell_too_long'),
    index: z.number().int().min(0),
    characters: z.number().int(),
  }),
  /** `bytes`: the row's cells in UTF-8, as read; `index`: its largest cell, of `characters`. */
  z.object({
    kind: z.literal('row_too_large'),
    bytes: z.number().int(),
    index: z.number().int().min(0),
    characters: z.number().int(),
  }),
  /** `code`: the first control character's code point (0 for NUL). */
  z.object({ kind: z.literal('control_character'), index: z.number().int().min(0), code: z.number().int() }),
]);
export type CellFlaw = z.infer<typeof CellFlaw>;

/** One data row of the file, with cells as text, before any normalisation. */
export const MappedRow = z.object({
  /** 1-based data row number: blank rows and the header are not counted. The number users see. */
  row: z.number().int().min(1),
  /**
   * 1-based physical line of the CSV where the row starts, or the XLSX sheet row, or the line of an
   * NF-e item's `<det>` in its XML: for error messages.
   */
  line: z.number().int().min(1),
  /** Every cell, padded with "" to the header's width; cells beyond the header are kept at the end. */
  cells: z.array(z.string()),
  /** Raw text of the pipeline columns the file has. */
  fields: z.partialRecord(PipelineColumn, z.string()),
  /** Raw text of the passthrough columns, aligned with `ColumnMapping.passthrough`. */
  passthrough: z.array(z.string()),
  /** Present when cells had to be cut or cleaned to be kept (`CellFlaw`): the row is rejected for it. */
  flaws: z.array(CellFlaw).optional(),
});
export type MappedRow = z.infer<typeof MappedRow>;

/** Something worth telling the user about the file that does not stop it from being read. */
const SPREADSHEET_PROBLEM_CODES = [
  'row_longer_than_header',
  'csv_malformed_quotes',
  'text_looks_double_encoded',
  'other_sheets_ignored',
  'sped_registers_skipped',
  'sped_line_not_a_register',
  'nfe_documents_read',
  'nfe_country_unknown',
] as const;
const SpreadsheetProblemCode = z.enum(SPREADSHEET_PROBLEM_CODES);

export const SpreadsheetProblem = z.object({
  code: SpreadsheetProblemCode,
  /** The English sentence (logs, tests). */
  message: z.string(),
  /** The same as a message each reader words in its language (shared/wording/problems.ts). */
  said: Message.optional(),
  row: z.number().int().min(1).optional(),
  line: z.number().int().min(1).optional(),
});
export type SpreadsheetProblem = z.infer<typeof SpreadsheetProblem>;

/** Why a whole file cannot be read (thrown as `SpreadsheetError`). */
export const SPREADSHEET_ERROR_CODES = [
  'file_empty',
  'no_data_rows',
  'not_a_text_file',
  'xlsx_invalid',
  'xls_not_supported',
  'csv_unterminated_quote',
  'duplicate_column',
  'no_description_or_sheet_column',
  'too_many_rows',
  'file_too_large',
  'line_too_long',
  'xlsx_entity_declared',
  'xlsx_part_too_large',
  'xlsx_cell_too_large',
  'header_too_long',
  'header_too_large',
  'sped_no_items',
  'nfe_not_an_invoice',
  'nfe_entity_declared',
  'nfe_xml_malformed',
  'zip_damaged',
  'zip_no_invoices',
  'nfe_too_large',
  'zip_too_large',
] as const;
export const SpreadsheetErrorCode = z.enum(SPREADSHEET_ERROR_CODES);
export type SpreadsheetErrorCode = z.infer<typeof SpreadsheetErrorCode>;

export const SpreadsheetRead = z.object({
  format: SpreadsheetFormat,
  /** CSV only. */
  encoding: TextEncoding.optional(),
  /** CSV only. */
  delimiter: Delimiter.optional(),
  /** Header cells exactly as written (trailing unnamed empty columns dropped). */
  header: z.array(z.string()),
  columns: ColumnMapping,
  rows: z.array(MappedRow),
  problems: z.array(SpreadsheetProblem),
  /** CSV only: what to check before paying (text read from bytes that were not UTF-8). */
  warnings: z.array(z.string()).optional(),
});
export type SpreadsheetRead = z.infer<typeof SpreadsheetRead>;

// ---------------------------------------------------------------------------
// Row normalisation
// ---------------------------------------------------------------------------

/** Values a batch applies to rows whose cell is empty. */
export const BatchDefaults = z.object({
  operation: Operation.optional(),
  country: CountryCode.optional(),
});
export type BatchDefaults = z.infer<typeof BatchDefaults>;

/** Remarks on a valid row: they do not block classification. */
const ROW_FLAGS = ['leading_zero_probably_lost', 'current_ncm_invalid'] as const;
export const RowFlag = z.enum(ROW_FLAGS);
export type RowFlag = z.infer<typeof RowFlag>;

/**
 * Reasons the pipeline finds by looking at the bucket (a sheet's object), not `normaliseRow`,
 * which does no I/O: the row names a sheet that is missing, over the service's 10 MB, not a PDF, a
 * PDF cut short or damaged, or a link to a file outside the folder (links out are not followed).
 */
export const SHEET_REJECTION_REASONS = [
  'sheet_not_found',
  'sheet_too_large',
  'sheet_not_pdf',
  'sheet_damaged',
  'sheet_outside_folder',
] as const;
export type SheetRejectionReason = (typeof SHEET_REJECTION_REASONS)[number];

/** Stable codes for a row that cannot be sent to the service. Written to the error file. */
export const REJECTION_REASONS = [
  'description_missing',
  'description_too_short',
  'description_too_long',
  'operation_missing',
  'operation_invalid',
  'country_missing',
  'country_invalid',
  'country_unknown',
  'sheet_path_invalid',
  'external_reference_too_long',
  'sku_too_long',
  'cell_too_long',
  'row_too_large',
  'control_character',
  ...SHEET_REJECTION_REASONS,
] as const;
export const RejectionReason = z.enum(REJECTION_REASONS);
export type RejectionReason = z.infer<typeof RejectionReason>;

export const ProductRow = z.object({
  row: z.number().int().min(1),
  /** Whitespace collapsed, 10..5000 characters; null when only a sheet describes the product. */
  description: z.string().nullable(),
  operation: Operation,
  country: CountryCode,
  /** Relative POSIX path of the technical sheet inside the batch folder, ending in `.pdf`. */
  sheet: z.string().nullable(),
  external_reference: z.string().nullable(),
  sku: z.string().nullable(),
  /**
   * The NCM the user declared, dots and spaces removed, never padded. An 8-digit NCM unless
   * `flags` holds `leading_zero_probably_lost` (7 digits) or `current_ncm_invalid` (as written).
   */
  current_ncm: z.string().nullable(),
  flags: z.array(RowFlag),
});
export type ProductRow = z.infer<typeof ProductRow>;

export const RowIssue = z.object({
  reason: RejectionReason,
  /** Null when the cell is in a column the pipeline does not read (a cell too long, a control character). */
  column: PipelineColumn.nullable(),
  /** The English sentence naming the column as the file wrote it: results.csv's `detail`. */
  detail: z.string(),
  /**
   * What the sentence names (the column's header, the value, the limit): with `reason` as its code,
   * the message each reader words in its language (shared/wording/rejections.ts). Absent on rows
   * rejected before messages had codes: their `detail` is shown as written.
   */
  params: MessageParams.optional(),
});
export type RowIssue = z.infer<typeof RowIssue>;

export const RowRejection = z.object({
  row: z.number().int().min(1),
  /** The first issue in column order; `issues` lists them all so one fix round is enough. */
  reason: RejectionReason,
  column: PipelineColumn.nullable(),
  detail: z.string(),
  params: MessageParams.optional(),
  issues: z.array(RowIssue).min(1),
});
export type RowRejection = z.infer<typeof RowRejection>;

export const RowOutcome = z.discriminatedUnion('status', [
  z.object({ status: z.literal('valid'), product: ProductRow }),
  z.object({ status: z.literal('rejected'), rejection: RowRejection }),
]);
export type RowOutcome = z.infer<typeof RowOutcome>;
