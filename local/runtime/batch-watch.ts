/**
 * Watching a batch from outside, as an operator would on AWS: its progress from the tables,
 * its end from the batch record and the Batch workflow execution, its outcome from
 * `outbox/<batch-id>/summary.json`.
 */
import type { S3Client } from '@aws-sdk/client-s3';
import { outboxFolder } from '../../shared/pipeline/core/bucket-layout.js';
import type { BatchStore } from '../../shared/pipeline/core/ports.js';
import type { SlotLeases } from '../../shared/pipeline/core/slot-leases.js';
import { createTcsClient } from '../../shared/tcs/client.js';
import type { ExecutionRecord } from '../aws/step-functions.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { getBytes, listKeys } from './bucket.js';
import { type BatchProgress, readBatchProgress } from './progress.js';
import { sleep } from './sleep.js';

export type BatchOutcome = {
  batchId: string;
  state: 'completed' | 'failed';
  summary: Record<string, unknown>;
  outboxKeys: string[];
};

/**
 * How long to wait before looking at a batch again. Each look lists every row (the batch keeps no
 * counters: docs/architecture.md, property 10), so a large batch is looked at less often, a
 * millisecond per row: every 100 s at 100,000 rows, which run for days. The wait still ends at
 * once when the workflow ends.
 */
export const lookAgainAfterMs = (shortestMs: number, rowsTotal: number): number =>
  Math.max(shortestMs, rowsTotal);

export type WaitOptions = {
  onProgress?: (progress: BatchProgress) => void;
  /**
   * The shortest wait between two looks at the batch; a batch of more rows waits a millisecond
   * per row (see `lookAgainAfterMs`). @default 1000
   */
  progressEveryMs?: number;
  signal?: AbortSignal;
};

/** The organisation's balance is read at most this often for progress lines (it is an API call). */
const CAP_REFRESH_MS = 5 * 60_000;
const FAILED_ENDS = new Set(['FAILED', 'TIMED_OUT', 'ABORTED']);

/**
 * The cap in force: the organisation's concurrency limit (the sandbox's own figure, or the
 * service's `GET /balance`), lowered by the override. Null while the service cannot say.
 */
export const createCapReader = (source: {
  sandbox: Sandbox | null;
  service: { baseUrl: string; apiKey: string };
  capOverride: number | null;
}): (() => Promise<number | null>) => {
  let balance: { at: number; limit: Promise<number | null> } | null = null;
  const organisationLimit = (): Promise<number | null> => {
    if (source.sandbox) return Promise.resolve(source.sandbox.stats().concurrency_limit);
    if (!balance || Date.now() - balance.at > CAP_REFRESH_MS) {
      const client = createTcsClient({
        baseUrl: source.service.baseUrl,
        apiKey: source.service.apiKey,
        retry: { maxElapsedMs: 5_000 },
      });
      balance = {
        at: Date.now(),
        limit: client.getBalance().then(
          (found) => found.concurrency_limit,
          () => null,
        ),
      };
    }
    return balance.limit;
  };
  return async () => {
    const limit = await organisationLimit();
    if (source.capOverride === null) return limit;
    return limit === null ? source.capOverride : Math.min(limit, source.capOverride);
  };
};

export type BatchWatchPorts = {
  batches: BatchStore;
  leases: SlotLeases;
  cap: () => Promise<number | null>;
  s3: S3Client;
  bucket: string;
  /** The Batch workflow execution this process started for the batch, if any. */
  executionOf: (batchId: string) => ExecutionRecord | null;
  /** Subscribes to executions ending; returns an unsubscribe. */
  onExecutionEnded: (listener: (execution: ExecutionRecord) => void) => () => void;
  /** Aborted when the pipeline closes. */
  closing: AbortSignal;
};

/** Why a workflow skipped its file, from its output (PrepareAnswers' `detail`); null when it does not say. */
const skipDetailOf = (output: string | null): string | null => {
  try {
    const parsed = JSON.parse(output ?? 'null') as { prepare?: { detail?: unknown } } | null;
    return typeof parsed?.prepare?.detail === 'string' ? parsed.prepare.detail : null;
  } catch {
    return null;
  }
};

export const createBatchWatch = (ports: BatchWatchPorts) => {
  const progress = (batchId: string) => readBatchProgress(ports, batchId);

  /** A round's outcome is its batch's outbox, moved forward. */
  const readOutcome = async (
    batchId: string,
    outboxOf: string,
    state: 'completed' | 'failed',
  ): Promise<BatchOutcome> => {
    const prefix = outboxFolder(outboxOf);
    const bytes = await getBytes(ports.s3, ports.bucket, `${prefix}summary.json`);
    const summary = bytes ? (JSON.parse(new TextDecoder().decode(bytes)) as Record<string, unknown>) : {};
    return { batchId, state, summary, outboxKeys: await listKeys(ports.s3, ports.bucket, prefix) };
  };

  /** Until the next progress line, or sooner when the execution ends or a signal aborts. */
  const pause = async (ms: number, executionArn: string | null, signal: AbortSignal | undefined) => {
    const wake = new AbortController();
    const onAbort = () => wake.abort();
    const unsubscribe = ports.onExecutionEnded((ended) => {
      if (ended.executionArn === executionArn) wake.abort();
    });
    signal?.addEventListener('abort', onAbort, { once: true });
    ports.closing.addEventListener('abort', onAbort, { once: true });
    try {
      await sleep(ms, wake.signal);
    } finally {
      unsubscribe();
      signal?.removeEventListener('abort', onAbort);
      ports.closing.removeEventListener('abort', onAbort);
    }
  };

  /**
   * Resolves once the batch record is `completed` or `failed` and its workflow has ended;
   * rejects when the Batch execution itself failed, or when nothing can finish the batch.
   */
  const waitForBatch = async (batchId: string, options: WaitOptions = {}): Promise<BatchOutcome> => {
    for (;;) {
      if (options.signal?.aborted) throw new Error(`Stopped waiting for batch ${batchId}`);
      if (ports.closing.aborted) throw new Error('The local pipeline was closed');
      // The execution first: if it had ended before the record is read, the record is final.
      const execution = ports.executionOf(batchId);
      const current = await progress(batchId);
      options.onProgress?.(current);
      if (execution && FAILED_ENDS.has(execution.status)) {
        throw new Error(
          `The Batch workflow of ${batchId} ended ${execution.status}: ${execution.error ?? 'no error'}` +
            `${execution.cause ? ` (${execution.cause.slice(0, 500)})` : ''}`,
        );
      }
      const final = current.state === 'completed' || current.state === 'failed';
      if (final && execution?.status !== 'RUNNING') {
        return readOutcome(batchId, current.roundOf ?? batchId, current.state as 'completed' | 'failed');
      }
      if (!final && execution?.status === 'SUCCEEDED') {
        const why = skipDetailOf(execution.output) ?? 'a duplicate delivery, or not a batch file';
        throw new Error(`The workflow of ${batchId} ended without running it: ${why}`);
      }
      if (!final && !execution) {
        throw new Error(
          `Batch ${batchId} is ${current.state} but no workflow of this run carries it ` +
            '(it was interrupted when an earlier run stopped; drop the file again)',
        );
      }
      await pause(
        lookAgainAfterMs(options.progressEveryMs ?? 1_000, current.rowsTotal),
        execution?.executionArn ?? null,
        options.signal,
      );
    }
  };

  return { progress, waitForBatch };
};
