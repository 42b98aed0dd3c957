/**
 * `classify --status <batch-id>`: partial results of a batch, on request (shared/pipeline/finalize/
 * partial-results.ts). Only one pipeline may run on a data folder, so:
 *
 *   no classify running on it ─▶ this command starts the pipeline, writes the partial files of
 *                                 the batch as it stands and copies them to --out
 *   a classify running on it   ─▶ this command leaves a request in <data>/requests/; the running
 *                                 classify sees it within seconds (servePartialRequests), writes
 *                                 the files, copies them to the --out asked for, and answers
 *
 * The running classify also copies the partial files a finishing row asked for to its own --out.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { NOTIFICATIONS_LOG } from '../../shared/pipeline/core/bucket-layout.js';
import { PartialSummary } from '../../shared/pipeline/finalize/partial-results.js';
import { PARTIAL_FILES } from '../../shared/pipeline/outbox/results-files.js';
import { dataDirOwner } from '../runtime/data-lock.js';
import type { LocalPipeline } from '../runtime/pipeline.js';
import { shown, startCommandPipeline } from './shared.js';

const PartialRequest = z.object({ batch_id: z.string().min(1), out: z.string().min(1) });
const PartialAnswer = z.object({
  written: z.boolean(),
  ended: z.boolean().optional(),
  why: z.string().optional(),
});

const requestsDir = (dataDir: string) => join(dataDir, 'requests');
const safeName = (batchId: string) => batchId.replace(/[^A-Za-z0-9._~-]/g, '_');

/** Writes the batch's partial files and copies them to `out`; what happened, in a sentence if not. */
const writeAndCopy = async (pipeline: LocalPipeline, batchId: string, out: string) => {
  const report = (await pipeline.invoke('write-partial-results', { batch_id: batchId })) as {
    written?: boolean;
    ended?: boolean;
    why?: string;
  };
  if (report.ended) {
    // Its final files, then, which is what the person asking wants to work on.
    await pipeline.copyOutbox(batchId, out);
    return { written: false, ended: true };
  }
  if (!report.written) return { written: false, why: report.why ?? 'nothing was written' };
  await pipeline.copyPartialResults(batchId, out);
  return { written: true };
};

/**
 * What a running classify does every few seconds: answers requests left by `--status`, and copies
 * the partial files a finishing row asked for to its own out folder when they are new.
 */
export const partialResultsServer = (
  pipeline: LocalPipeline,
  dataDir: string,
  own: { batchId: string; out: string },
) => {
  return async (): Promise<void> => {
    const dir = requestsDir(dataDir);
    for (const name of existsSync(dir) ? readdirSync(dir).filter((n) => n.endsWith('.request.json')) : []) {
      const path = join(dir, name);
      const request = PartialRequest.safeParse(JSON.parse(readFileSync(path, 'utf8')));
      rmSync(path, { force: true });
      if (!request.success) continue;
      const answer = await writeAndCopy(pipeline, request.data.batch_id, request.data.out);
      writeFileSync(path.replace(/\.request\.json$/, '.answer.json'), JSON.stringify(answer));
    }
    await pipeline.copyPartialResults(own.batchId, own.out);
  };
};

/** Asks the classify running on the data folder, and waits for its answer (60 s at most). */
const askRunningClassify = async (dataDir: string, batchId: string, out: string) => {
  const dir = requestsDir(dataDir);
  mkdirSync(dir, { recursive: true });
  const base = join(dir, `${safeName(batchId)}-${process.pid}`);
  writeFileSync(`${base}.request.json`, JSON.stringify({ batch_id: batchId, out }));
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (existsSync(`${base}.answer.json`)) {
      const answer = PartialAnswer.parse(JSON.parse(readFileSync(`${base}.answer.json`, 'utf8')));
      rmSync(`${base}.answer.json`, { force: true });
      return answer;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  rmSync(`${base}.request.json`, { force: true });
  throw new Error(`the classify running on ${shown(dataDir)} did not answer within 60 s`);
};

/** What matters first, as the partial summary says it: none before anything was sent. */
const coverageLine = ({ coverage }: PartialSummary): string[] =>
  coverage && coverage.classifications_pct > 0
    ? [
        `With a verdict: ${coverage.rows_pct} % of the rows` +
          `${coverage.value_pct === null ? '' : `, ${coverage.value_pct} % of the value`}` +
          `, after ${coverage.classifications_pct} % of the classifications.`,
      ]
    : [];

const printStatus = (batchId: string, out: string) => {
  const summary = PartialSummary.parse(JSON.parse(readFileSync(join(out, PARTIAL_FILES.summary), 'utf8')));
  const final = Object.entries(summary.by_status).filter(([, n]) => n > 0);
  const finalCount = final.reduce((sum, [, n]) => sum + n, 0);
  const working = Object.entries(summary.working).filter(([, n]) => n > 0);
  console.log(
    [
      `Batch ${batchId} as of ${summary.as_of}: ${finalCount}/${summary.rows_total} rows final` +
        `${final.length ? ` (${final.map(([s, n]) => `${s} ${n}`).join(', ')})` : ''}` +
        `${working.length ? `; still working: ${working.map(([s, n]) => `${s} ${n}`).join(', ')}` : ''}.`,
      ...coverageLine(summary),
      `Billed so far $${summary.billed_usd.toFixed(2)}.`,
      `Partial results: ${shown(out)}/ (${PARTIAL_FILES.results_workbook}, ${PARTIAL_FILES.results}, ${PARTIAL_FILES.summary})`,
    ].join('\n'),
  );
};

/**
 * What people were told about the batch (its notifications.log, copied with the outbox): each
 * notice's day, subject and text, as the topic's subscribers read them on AWS.
 */
const printNotices = (out: string) => {
  const path = join(out, NOTIFICATIONS_LOG);
  if (!existsSync(path)) return;
  const entries = readFileSync(path, 'utf8')
    .split('\n\n')
    .map((entry) => entry.split('\n'))
    .filter((lines) => lines.length >= 3);
  if (entries.length === 0) return;
  console.log(`Told (${shown(path)}):`);
  for (const [head = '', subject = '', ...text] of entries)
    console.log(`  ${head.slice(0, 10)} ${subject}\n    ${text.join(' ')}`);
};

/** `--status`: returns the exit code (1 when nothing could be written, saying why). */
export const status = async (args: { batchId: string; dataDir: string; outDir: string }): Promise<number> => {
  let answer: { written: boolean; ended?: boolean | undefined; why?: string | undefined };
  if (dataDirOwner(args.dataDir) !== null) {
    answer = await askRunningClassify(args.dataDir, args.batchId, args.outDir);
  } else {
    const { pipeline } = await startCommandPipeline({ dataDir: args.dataDir, timeScale: null });
    try {
      answer = await writeAndCopy(pipeline, args.batchId, args.outDir);
    } finally {
      await pipeline.close();
    }
  }
  if (answer.ended) {
    console.log(
      `Batch ${args.batchId} has ended: its final results are in ${shown(args.outDir)}/ (results.xlsx, results.csv, summary.json).`,
    );
    printNotices(args.outDir);
    return 0;
  }
  if (!answer.written) {
    console.error(`classify: batch ${args.batchId}: ${answer.why ?? 'no partial results'}`);
    return 1;
  }
  printStatus(args.batchId, args.outDir);
  return 0;
};
