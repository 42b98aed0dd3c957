/**
 * How `classify` shows a batch moving: one live line on a terminal, plain lines when the
 * output is a file or a CI log. Pure formatting here; the CLI decides when to print.
 */

import type { BatchStage } from '../../shared/pipeline/core/batch-stage.js';
import {
  OUTPUT_STATUSES,
  type RowStatus,
  STATUS_ORDER,
  STATUS_WORDS,
} from '../../shared/pipeline/core/row-statuses.js';
import type { LocalPipeline } from '../runtime/pipeline.js';
import type { BatchProgress } from '../runtime/progress.js';

/** The statuses' English words, as the workbooks and the console write them, in lower case mid-line. */
const wordOf = (status: RowStatus): string => STATUS_WORDS.en[status].toLowerCase();

/** A stage as the line says it: its one value read aloud (`waiting_on_service`: waiting on service). */
const wordsOfStage = (stage: BatchStage): string => stage.replaceAll('_', ' ');

const finishedRows = (progress: BatchProgress): number =>
  OUTPUT_STATUSES.reduce((sum, status) => sum + (progress.byStatus[status] ?? 0), 0);

export const formatDuration = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000));
  if (seconds < 60) return `${seconds} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min ${seconds % 60} s`;
  return `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
};

/**
 * Time left from the rate rows have finished so far. Rows finished at Prepare (rejected,
 * reused, not sent) say nothing about the service's pace, so only rows that went out count.
 * Rows following another row of the same product (`following`) finish with it.
 */
const estimateRemainingMs = (progress: BatchProgress, startedAtMs: number, nowMs: number): number | null => {
  const done = finishedRows(progress);
  if (progress.rowsTotal === 0 || done >= progress.rowsTotal) return 0;
  const instant =
    (progress.byStatus.rejected ?? 0) +
    (progress.byStatus.reused ?? 0) +
    (progress.byStatus.not_submitted ?? 0);
  const served = done - instant;
  if (served < 1) return null;
  const elapsed = nowMs - startedAtMs;
  // Rows of a product already on its way end with it: only the others take the service's time.
  const toServe = progress.rowsTotal - done - (progress.byStatus.following ?? 0);
  return (elapsed / served) * Math.max(0, toServe);
};

const bar = (fraction: number, width: number): string => {
  const filled = Math.round(Math.min(1, Math.max(0, fraction)) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
};

export const formatProgressLine = (
  progress: BatchProgress,
  options: { startedAtMs: number; nowMs: number; live: boolean },
): string => {
  const done = finishedRows(progress);
  // The one order statuses are shown in, so the line does not jump about as counts appear.
  const counts = STATUS_ORDER.map((status) => [status, progress.byStatus[status] ?? 0] as const)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${wordOf(status)} ${count}`)
    .join(' · ');
  const slots =
    progress.cap === null ? `slots ${progress.leasesHeld}` : `slots ${progress.leasesHeld}/${progress.cap}`;
  const remaining = estimateRemainingMs(progress, options.startedAtMs, options.nowMs);
  const eta = remaining === null ? '' : remaining === 0 ? '' : ` · ~${formatDuration(remaining)} left`;
  // While Prepare reads a large file there is no total yet: how far it has read.
  const reading = progress.state === 'preparing' && progress.rowsRead > 0;
  const head = reading
    ? `${progress.rowsRead.toLocaleString('en-US')} rows read`
    : options.live
      ? `${bar(progress.rowsTotal ? done / progress.rowsTotal : 0, 20)} ${done}/${progress.rowsTotal}`
      : `${done}/${progress.rowsTotal} rows`;
  // What matters first, once classifications have ended: how much of the batch they already cover.
  const covered =
    progress.covered.classifications > 0 && progress.covered.classifications < 100
      ? ` · ${progress.covered.rows} % of rows${progress.covered.value === null ? '' : `, ${progress.covered.value} % of value,`} with a verdict after ${progress.covered.classifications} % of the classifications`
      : '';
  return `${head} · ${wordsOfStage(progress.stage)}${counts ? ` · ${counts}` : ''} · ${slots} · billed $${progress.billedUsd.toFixed(2)}${covered}${eta}`;
};

/**
 * Shows a batch (or an answers round) moving: one live line on a terminal, cleared by `done`;
 * a plain line every 5 s when the output is a file or a CI log.
 */
const progressPrinter = (startedAtMs: number) => {
  const live = Boolean(process.stdout.isTTY);
  let lastPlain = 0;
  return {
    onProgress: (progress: BatchProgress): void => {
      const now = Date.now();
      const line = formatProgressLine(progress, { startedAtMs, nowMs: now, live });
      if (live) process.stdout.write(`\r\x1b[2K${line}`);
      else if (now - lastPlain >= 5_000) {
        lastPlain = now;
        console.log(line);
      }
    },
    done: (): void => {
      if (live) process.stdout.write('\r\x1b[2K');
    },
  };
};

/** Waits for a batch (or an answers round), printing its progress as it goes. */
export const waitPrintingProgress = async (
  pipeline: LocalPipeline,
  id: string,
  startedAtMs: number,
  signal: AbortSignal,
): ReturnType<LocalPipeline['waitForBatch']> => {
  const progress = progressPrinter(startedAtMs);
  const outcome = await pipeline.waitForBatch(id, {
    onProgress: progress.onProgress,
    progressEveryMs: 500,
    signal,
  });
  progress.done();
  return outcome;
};
