/** Console: batches, a batch with its progress, its rows, the questions inbox (shared/console/). */
import { consoleHandler } from '../console-runtime.js';

export const handler = consoleHandler('console-read');
