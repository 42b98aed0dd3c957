/**
 * Under `--nightly-check-below`, after night 2: a person decides every verdict night 2 left to
 * check, as the console would (one decisions file, each line the service's own NCM), and the bench
 * measures the answers round that applies them: how long, what it asked of DynamoDB, and that
 * every row marked `to_check` came out `approved` (one check item per product covers all its rows:
 * docs/architecture.md, §12).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import { readResultsTable } from '../../shared/smoke/results-table.js';
import type { RequestCount } from '../runtime/permissions/request-counts.js';
import type { LocalPipeline } from '../runtime/pipeline.js';

export type DecisionsMeasured = {
  /** Lines of night 2's to-check.csv: one per product whose verdict waits. */
  items: number;
  /** Rows of results.csv marked `to_check` before the round, and after it. */
  rowsToCheckBefore: number;
  rowsToCheckAfter: number;
  /** Rows `approved` after the round. */
  rowsApproved: number;
  /** From the drop of the decisions file until the round ended. */
  seconds: number;
  requests: RequestCount[];
};

const rowsMarked = async (pipeline: LocalPipeline, batchId: string) => {
  const bytes = await pipeline.outboxFile(batchId, 'results.csv');
  if (!bytes) throw new Error(`batch ${batchId} has no results.csv`);
  const table = await readResultsTable(bytes);
  if ('problem' in table) throw new Error(`batch ${batchId}: ${table.problem}`);
  const marked = (check: string) => table.rows.filter((row) => row.result.check === check).length;
  return { toCheck: marked('to_check'), approved: marked('approved') };
};

/** Every verdict left to check decided with the service's NCM; undefined when none waits. */
export const decideEveryCheck = async (
  pipeline: LocalPipeline,
  batchId: string,
  folder: string,
  wakeOnEndMs: number,
): Promise<DecisionsMeasured | undefined> => {
  const listed = await pipeline.outboxFile(batchId, 'to-check.csv');
  if (!listed) return undefined;
  const lines = Papa.parse<Record<string, string>>(new TextDecoder().decode(listed).replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  }).data;
  if (lines.length === 0) return undefined;
  const before = await rowsMarked(pipeline, batchId);
  const file = join(folder, 'decisions.csv');
  writeFileSync(
    file,
    [
      'row,classification_id,decision_ncm,decision_sim,decision_note',
      ...lines.map(
        (line) => `${line.row},${line.classification_id},${(line.ncm ?? '').replace(/\D/g, '')},,`,
      ),
    ].join('\r\n'),
  );
  pipeline.resetFunctionRequests();
  const startedAt = Date.now();
  const { roundId } = await pipeline.submitAnswers({ file, batchId, answeredBy: 'bench.conferente' });
  const outcome = await pipeline.waitForBatch(roundId, { progressEveryMs: wakeOnEndMs });
  const seconds = (Date.now() - startedAt) / 1000;
  if (outcome.state !== 'completed') throw new Error(`the decisions round ${roundId} ended ${outcome.state}`);
  const requests = pipeline.functionRequests();
  const after = await rowsMarked(pipeline, batchId);
  return {
    items: lines.length,
    rowsToCheckBefore: before.toCheck,
    rowsToCheckAfter: after.toCheck,
    rowsApproved: after.approved,
    seconds,
    requests,
  };
};
