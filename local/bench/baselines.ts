/**
 * The two scripts the pipeline is measured against (`npm run bench`), written the way a
 * team without the pipeline would: the service client, a loop, and polling every 3 s.
 *
 * - naive: one classification at a time, start to finish.
 * - concurrent: up to 10 at a time (the cap), each polled every 3 s; a 429 waits as asked.
 */
import { randomUUID } from 'node:crypto';
import type { TcsClient } from '../../shared/tcs/client.js';
import { isFinalStatus } from '../../shared/tcs/schemas.js';

export type BenchRow = { description: string; operation: 'import' | 'export'; country: string };

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Creates one classification and polls it until it is final or waits on questions. */
const classifyOne = async (client: TcsClient, row: BenchRow, pollMs: number): Promise<string> => {
  const { classification } = await client.createClassification(
    {
      operation: row.operation,
      country: row.country,
      description: row.description,
      file_url: null,
      external_reference: null,
    },
    { idempotencyKey: `bench_${randomUUID().replaceAll('-', '')}` },
  );
  let status = classification.status;
  while (!isFinalStatus(status) && status !== 'pending_data') {
    await sleep(pollMs);
    status = (await client.getClassification(classification.id)).status;
  }
  return status;
};

export const runNaive = async (client: TcsClient, rows: readonly BenchRow[], pollMs: number) => {
  for (const row of rows) await classifyOne(client, row, pollMs);
};

export const runConcurrent = async (
  client: TcsClient,
  rows: readonly BenchRow[],
  pollMs: number,
  concurrency: number,
) => {
  let next = 0;
  const worker = async () => {
    while (next < rows.length) {
      const row = rows[next++] as BenchRow;
      await classifyOne(client, row, pollMs);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
};
