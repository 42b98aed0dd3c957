/** Console: upload forms for inbox/ and answers/, links to outbox files and verdict PDFs (shared/console/file-links.ts). */
import { consoleHandler } from '../console-runtime.js';

export const handler = consoleHandler('console-files');
