/** Console: answers to pending rows, dropped as a review file into answers/<batch-id>/ (shared/console/answers.ts). */
import { consoleHandler } from '../console-runtime.js';

export const handler = consoleHandler('console-answers');
