/**
 * Prepare on in-memory ports, started by one file landing in the bucket: what a test of Prepare
 * over one input file needs (its batch record, its rows in row order, the queue it filled).
 */
import type { RowRecord } from '../../shared/pipeline/core/records.js';
import { batchSourceFromEvent } from '../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../shared/pipeline/prepare/prepare-batch.js';
import { PREPARE_SETTINGS, type PrepareSettings } from '../../shared/pipeline/prepare/prepare-passes.js';
import {
  countingKick,
  fixedClock,
  memoryBatchStore,
  memoryObjectStore,
  memoryProductCache,
  memoryRowQueue,
  preparingService,
} from './memory-ports.js';
import { objectCreatedEvent } from './s3-events.js';

const BUCKET = 'catalogue-bucket';

/**
 * Gives in-memory ports holding `files` (the input at `key` among them), and `run`, which prepares
 * the batch `key` starts as its S3 event would, with `settings` (Prepare's own by default).
 */
export const prepareWorld = (
  key: string,
  files: Record<string, Uint8Array>,
  acceptedCountries: ReadonlySet<string>,
  settings: PrepareSettings = PREPARE_SETTINGS,
) => {
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const { service } = preparingService(acceptedCountries);
  const ports = {
    clock,
    service,
    objects: memoryObjectStore(files),
    queue: memoryRowQueue(clock),
    batches: memoryBatchStore(),
    cache: memoryProductCache(),
    kick: countingKick(),
  };
  const event = objectCreatedEvent(BUCKET, key);
  const batchId = batchSourceFromEvent(event)!.batchId;
  const run = () => prepareBatch(ports, { event, execution_id: 'exec-1' }, settings);
  const rows = (): RowRecord[] =>
    [...ports.batches.rows.values()].filter((r) => r.batch_id === batchId).sort((a, b) => a.row - b.row);
  const batch = () => ports.batches.batches.get(batchId)!;
  return { ...ports, run, rows, batch, batchId };
};
