/**
 * The console page's one front door into the code it shares with the pipeline: the API's
 * schemas, the rows' statuses with their words in each language, the bucket layout's rules,
 * and every message's wording (shared/wording/). The page (web/) imports from here and nowhere
 * else under shared/, so what the browser bundle takes from the pipeline is one list, read in one
 * place.
 */

export { isBatchFolderName } from '../pipeline/core/bucket-layout.js';
export { STATUS_ORDER, STATUS_WORDS, WORKING_STATUSES } from '../pipeline/core/row-statuses.js';
export * from '../wording/index.js';
export * from './api.js';
