/**
 * The console page's one front door into the code it shares with the pipeline: the API's
 * schemas, a batch's stages, the rows' statuses with their words in each language, the audit's
 * kinds of event, the bucket layout's rules, and how the pipeline reads a catalogue's rows (which
 * header names which column, which paths a sheet takes, which rows Prepare rejects), so the page
 * names the sheets a catalogue asks for and the rows it would reject before anything is sent. The page
 * (web/) imports from here and nowhere else under shared/, so what the browser bundle takes
 * from the pipeline is one list, read in one place.
 */

export { AUDIT_EVENTS } from '../pipeline/core/audit-records.js';
export { BatchOptions } from '../pipeline/core/batch-options-schema.js';
export { BatchStage } from '../pipeline/core/batch-stage.js';
export { isBatchFolderName } from '../pipeline/core/bucket-layout.js';
export { STATUS_ORDER, STATUS_WORDS, WORKING_STATUSES } from '../pipeline/core/row-statuses.js';
export { columnForHeader, mapRow, matchColumns } from '../spreadsheet/columns.js';
export { normaliseRow, normaliseSheetPath, parseOperation } from '../spreadsheet/normalise-row.js';
export type { ColumnMapping, RejectionReason } from '../spreadsheet/schemas.js';
// Every message's wording (problems, warnings, row details): the page words them in its language.
export * from '../wording/details.js';
export * from '../wording/index.js';
export * from '../wording/message.js';
export * from './api.js';
