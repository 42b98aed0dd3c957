/**
 * Running a plan: a batch planned with `plan_only` run for real without sending its files again.
 *
 * A batch starts when its catalogue arrives under `inbox/<name>/` (an "Object Created" event),
 * and its id is derived from that object, so a new batch needs a new object. The plan's files are
 * copied, inside the bucket, into a folder of their own named by the planned batch's id:
 *
 *   inbox/<name>/batch.json            ──▶  inbox/<planned id>/batch.json   its options, plan_only off
 *   inbox/<name>/**.pdf (the sheets)   ──▶  inbox/<planned id>/**.pdf      each keeping its path
 *   inbox/<name>/<catalogue>           ──▶  inbox/<planned id>/<catalogue>  last: its arrival starts it
 *
 * A folder of its own, not the plan's: an upload into the plan's folder since would otherwise mix
 * its files with the plan's, and the new batch's name says which plan it ran. A plan runs once:
 * once that folder holds the catalogue, another request is refused (409) and names it.
 */
import { BatchOptions } from '../pipeline/core/batch-options-schema.js';
import { dropFolder } from '../pipeline/core/bucket-layout.js';
import type { BatchRecord } from '../pipeline/core/records.js';
import { CONSOLE_LIMITS, type PlanRun } from './api.js';
import type { ConsolePorts } from './ports.js';
import { batchNotFound, ConsoleRefusal } from './refusals.js';

/** Sheets copied at once: 2,000 sheets copy well within the API's 29 seconds. */
const COPIES_IN_FLIGHT = 16;

const isSheetKey = (key: string): boolean => key.toLowerCase().endsWith('.pdf');

/** The options the plan was made with, plan_only off: the run is the batch the plan described. */
const runOptionsOf = (batch: BatchRecord): Record<string, unknown> => ({
  ...BatchOptions.parse(batch.options ?? {}),
  plan_only: false,
});

const checkIsPlan = (batch: BatchRecord): void => {
  if (!batch.options?.plan_only)
    throw new ConsoleRefusal(
      409,
      'not_a_plan',
      `Batch ${batch.name} (${batch.batch_id}) is not a plan: it was run, not planned.`,
      { batch_name: batch.name },
    );
  if (batch.state !== 'completed')
    throw new ConsoleRefusal(
      409,
      'plan_not_ready',
      batch.state === 'failed'
        ? `The plan of ${batch.name} failed: upload the catalogue again once it is fixed.`
        : `The plan of ${batch.name} is not finished yet (${batch.state}).`,
      { batch_name: batch.name, state: batch.state },
    );
};

/** The plan's catalogue is still the one planned: present, and (on a versioned bucket) the same version. */
const checkCatalogue = async (ports: Pick<ConsolePorts, 'objects'>, batch: BatchRecord): Promise<void> => {
  const head = await ports.objects.head(batch.source.key);
  if (!head)
    throw new ConsoleRefusal(
      409,
      'plan_input_gone',
      `The catalogue ${batch.source.key} of the plan ${batch.name} is no longer in the bucket: upload it again.`,
      { batch_name: batch.name, file: batch.source.file_name },
    );
  const planned = batch.source.version_or_etag.replace(/"/g, '');
  const now = [head.versionId, head.etag.replace(/"/g, '')];
  // Without versions (the local bucket) the object cannot be told from a later upload: it is taken as is.
  if (head.versionId !== null && !now.includes(planned))
    throw new ConsoleRefusal(
      409,
      'plan_input_changed',
      `The catalogue ${batch.source.key} was replaced since ${batch.name} was planned: upload it again to plan or run the new one.`,
      { batch_name: batch.name, file: batch.source.file_name },
    );
};

/** Runs `copy` over `keys`, `limit` at a time. */
const copyAll = async (keys: readonly string[], limit: number, copy: (key: string) => Promise<void>) => {
  let next = 0;
  const lane = async (): Promise<void> => {
    while (next < keys.length) await copy(keys[next++] as string);
  };
  await Promise.all(Array.from({ length: Math.min(limit, keys.length) }, lane));
};

export const runPlan = async (
  ports: Pick<ConsolePorts, 'batches' | 'objects' | 'clock'>,
  batchId: string,
): Promise<PlanRun> => {
  const batch = await ports.batches.getBatch(batchId);
  if (!batch || batch.round_of !== undefined) throw batchNotFound(batchId);
  checkIsPlan(batch);
  const folder = dropFolder('inbox', batch.batch_id);
  const catalogueKey = `${folder}${batch.source.file_name}`;
  if (await ports.objects.head(catalogueKey))
    throw new ConsoleRefusal(
      409,
      'plan_already_run',
      `The plan ${batch.name} was run already, as batch ${batch.batch_id} (${catalogueKey}).`,
      { batch_name: batch.batch_id },
    );
  await checkCatalogue(ports, batch);
  const sheets = (await ports.objects.list(batch.source.folder)).filter(isSheetKey);
  if (sheets.length > CONSOLE_LIMITS.sheetsPerBatch)
    throw new ConsoleRefusal(
      413,
      'too_many_files',
      `${batch.source.folder} holds ${sheets.length} PDF files; the console runs a plan with at most ${CONSOLE_LIMITS.sheetsPerBatch}: drop the folder into inbox/ again instead.`,
      { count: sheets.length, max: CONSOLE_LIMITS.sheetsPerBatch },
    );
  await ports.objects.put(
    `${folder}batch.json`,
    `${JSON.stringify(runOptionsOf(batch), null, 2)}\n`,
    'application/json',
  );
  await copyAll(sheets, COPIES_IN_FLIGHT, (key) =>
    ports.objects.copy(key, `${folder}${key.slice(batch.source.folder.length)}`),
  );
  const requestedAt = ports.clock.now().toISOString();
  await ports.objects.copy(batch.source.key, catalogueKey);
  return {
    batch_name: batch.batch_id,
    folder,
    file_name: batch.source.file_name,
    sheets: sheets.length,
    requested_at: requestedAt,
  };
};
