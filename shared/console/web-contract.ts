/**
 * The console page's one front door into the code it shares with the pipeline: the API's
 * schemas, a batch's stages, the rows' statuses with their words in each language, the audit's
 * kinds of event, the bucket layout's rules, and how the pipeline reads a catalogue's sheet
 * column (which header names it, which paths it takes), so the page names the sheets a catalogue asks for before anything is sent. The page
 * (web/) imports from here and nowhere else under shared/, so what the browser bundle takes
 * from the pipeline is one list, read in one place.
 */

export { AUDIT_EVENTS } from '../pipeline/core/audit-records.js';
export { BatchStage } from '../pipeline/core/batch-stage.js';
export { isBatchFolderName } from '../pipeline/core/bucket-layout.js';
export { STATUS_ORDER, STATUS_WORDS, WORKING_STATUSES } from '../pipeline/core/row-statuses.js';
export { columnForHeader } from '../spreadsheet/columns.js';
export { normaliseSheetPath } from '../spreadsheet/normalise-row.js';
// Every message's wording (problems, warnings, row details): the page words them in its language.
export * from '../wording/index.js';
export * from '../wording/message.js';
export * from './api.js';
