/**
 * A new NCM table dropped under `reference/ncm/` (or an invocation with no S3 event): every earlier
 * verdict whose code the table in force no longer holds, listed in `outbox/rechecks/<table date>/`
 * (recheck.csv, then recheck.json), in legs that hand on by an object under `work/rechecks/`.
 * See shared/pipeline/reuse/recheck-verdicts.ts.
 */
import {
  readRecheckProgress,
  recheckAskedBy,
  recheckVerdicts,
} from '../../shared/pipeline/reuse/recheck-verdicts.js';
import { objects } from '../bucket-port.js';
import { cache, clock } from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';

export const handler = async (event: unknown) => {
  const asked = recheckAskedBy(event);
  if ('ignore' in asked) {
    logger.info('recheck: nothing to do', { why: asked.ignore });
    return { done: false, why: asked.ignore };
  }
  const ports = await portsFor('recheck-verdicts', { clock, objects, cache });
  let from = null;
  if ('continueFrom' in asked) {
    from = await readRecheckProgress(ports.objects, asked.continueFrom);
    // Expired, or a retry after the run went on: nothing to go on from.
    if (!from) return { done: false, why: `${asked.continueFrom} is gone` };
  }
  const report = await recheckVerdicts(ports, from);
  logger.info('recheck', report.done ? { folder: report.folder, ...report.summary } : report);
  return report;
};
