/**
 * The smoke test of a deployment, step by step:
 *
 *   the stack's exports ─▶ bucket, batch table, review table          (deployment.ts)
 *   the cost, said first ─▶ batch.json and the sheet, then the spreadsheet, into inbox/<name>/
 *   the batch that started: the batch record whose source is that spreadsheet
 *   its progress, until completed or failed (a deadline; a look every `pollEveryMs`)
 *   the outbox and the tables read back ─▶ the checks (checks.ts) ─▶ what was found, and the verdict
 *
 * The folder's name is new on every run, so the batch whose source key is the spreadsheet's is
 * this run's. On a versioned bucket the batch id is also derived as Prepare derives it (from the
 * object's version), which finds a batch that failed before its record was written by its summary.
 */

import { dropFolder, isBatchFolderName, outboxFolder, outboxKey } from '../pipeline/core/bucket-layout.js';
import { deriveBatchId } from '../pipeline/core/keys.js';
import type { BatchRecord, RowRecord } from '../pipeline/core/records.js';
import { BatchSummary } from '../pipeline/outbox/results-files.js';
import type { SmokeCatalogue } from './catalogue.js';
import { checkBatch } from './checks.js';
import { findDeployment } from './deployment.js';
import { SmokeFailure } from './failure.js';
import type { Observation, SmokeCheck } from './observation.js';
import type { DeploymentData, SmokePorts } from './ports.js';
import { costLines, deploymentLines, findingsLines, formatDuration, progressLine } from './report.js';
import { readResultsTable } from './results-table.js';

export type SmokeOptions = {
  stackName: string;
  catalogue: SmokeCatalogue;
  /** The inbox folder's name: new on every run (see smokeBatchName). */
  batchName: string;
  /** From the start of the smoke to the end of its batch. */
  timeoutMs: number;
  pollEveryMs: number;
  signal?: AbortSignal;
};

export type SmokeOutcome = {
  passed: boolean;
  batchId: string | null;
  /** Why the smoke stopped before its checks; null when they ran. */
  failure: string | null;
  checks: SmokeCheck[];
};

/** A batch still not started this long after its spreadsheet was dropped will not start. */
export const BATCH_START_LIMIT_MS = 5 * 60_000;
/** While nothing changes, a line at least this often says the smoke is still waiting. */
const STILL_WAITING_EVERY_MS = 30_000;
const ENDED_STATES: ReadonlySet<string> = new Set(['completed', 'failed']);

/** `smoke-20261125-130501-<suffix>`: sorts by time, and a new folder (a new batch) on every run. */
export const smokeBatchName = (now: Date, suffix: string): string => {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  const name = `smoke-${stamp}-${suffix}`;
  if (!isBatchFolderName(name)) throw new RangeError(`not a batch folder name: ${name}`);
  return name;
};

type Dropped = { bucket: string; key: string; versionId: string | null };

const dropCatalogue = async (
  data: DeploymentData,
  bucket: string,
  batchName: string,
  catalogue: SmokeCatalogue,
): Promise<Dropped> => {
  const folder = dropFolder('inbox', batchName);
  for (const file of catalogue.attachments)
    await data.objects.put(`${folder}${file.path}`, file.bytes, file.contentType);
  const key = `${folder}${catalogue.spreadsheet.path}`;
  const { spreadsheet } = catalogue;
  await data.objects.put(key, spreadsheet.bytes, spreadsheet.contentType);
  return { bucket, key, versionId: (await data.objects.head(key))?.versionId ?? null };
};

/** Looks every `every` ms until `look` finds something, the deadline passes or the signal aborts. */
const pollUntil = async <T>(
  ports: SmokePorts,
  until: { deadline: number; every: number; signal?: AbortSignal | undefined },
  look: () => Promise<T | null>,
): Promise<T | null> => {
  for (;;) {
    const found = await look();
    if (found !== null) return found;
    const left = until.deadline - ports.clock.now().getTime();
    if (left <= 0 || until.signal?.aborted) return null;
    await ports.clock.sleep(Math.min(until.every, left), until.signal);
  }
};

/** The batch this drop started, if it has started; a batch that failed before its record, said. */
const findStartedBatch = async (
  data: DeploymentData,
  dropped: Dropped,
  batchName: string,
): Promise<BatchRecord | null> => {
  if (dropped.versionId !== null) {
    const identity = { bucket: dropped.bucket, key: dropped.key, versionOrEtag: dropped.versionId };
    const batchId = deriveBatchId(batchName, identity);
    const batch = await data.batches.getBatch(batchId);
    if (batch) return batch;
    const orphan = await data.objects.getBytes(outboxKey(batchId, 'summary.json'));
    if (orphan) throw orphanFailure(batchId, orphan);
  }
  const { batches } = await data.batches.listBatches({ limit: 25 });
  return (
    batches.find((batch) => batch.source.bucket === dropped.bucket && batch.source.key === dropped.key) ??
    null
  );
};

const orphanFailure = (batchId: string, bytes: Uint8Array): SmokeFailure => {
  let json: unknown = null;
  try {
    json = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    // Said below, as for any summary of another shape.
  }
  const parsed = BatchSummary.safeParse(json);
  const problems = parsed.success
    ? parsed.data.problems.map((problem) => problem.text).join('; ')
    : 'its summary.json does not parse';
  return new SmokeFailure(`batch ${batchId} failed before it was prepared: ${problems || 'no reason given'}`);
};

const waitForStart = async (
  ports: SmokePorts,
  data: DeploymentData,
  dropped: Dropped,
  options: SmokeOptions & { deadline: number },
): Promise<BatchRecord> => {
  const from = ports.clock.now().getTime();
  const deadline = Math.min(options.deadline, from + BATCH_START_LIMIT_MS);
  const until = { deadline, every: options.pollEveryMs, signal: options.signal };
  const batch = await pollUntil(ports, until, () => findStartedBatch(data, dropped, options.batchName));
  if (batch) return batch;
  const where = `s3://${dropped.bucket}/${dropped.key}`;
  if (options.signal?.aborted) throw new SmokeFailure(`stopped before a batch started from ${where}`);
  throw new SmokeFailure(
    `no batch started from ${where} within ${formatDuration(deadline - from)}: ` +
      "is the pipeline stack deployed? Its rule starts the Batch workflow on the bucket's Object Created " +
      "events under inbox/; look at the Batch workflow's executions for this key",
  );
};

const rowsOf = async (data: DeploymentData, batchId: string): Promise<RowRecord[]> => {
  const rows: RowRecord[] = [];
  for await (const row of data.batches.listRows(batchId)) rows.push(row);
  return rows;
};

const waitForEnd = async (
  ports: SmokePorts,
  data: DeploymentData,
  batchId: string,
  options: SmokeOptions & { deadline: number },
): Promise<void> => {
  const started = ports.clock.now().getTime();
  let said = { line: '', at: started };
  const ended = await pollUntil(
    ports,
    { deadline: options.deadline, every: options.pollEveryMs, signal: options.signal },
    async () => {
      const [batch, rows] = await Promise.all([data.batches.getBatch(batchId), rowsOf(data, batchId)]);
      const line = progressLine(batch, rows);
      const now = ports.clock.now().getTime();
      if (line !== said.line || now - said.at >= STILL_WAITING_EVERY_MS) {
        ports.say(`  ${line} · ${formatDuration(now - started)}`);
        said = { line, at: now };
      }
      return batch && ENDED_STATES.has(batch.state) ? batch : null;
    },
  );
  if (ended)
    return ports.say(
      `Batch ${batchId} ${ended.state} after ${formatDuration(ports.clock.now().getTime() - started)}`,
    );
  const stopped = options.signal?.aborted
    ? 'stopped'
    : `not ended after ${formatDuration(options.timeoutMs)}`;
  throw new SmokeFailure(
    `batch ${batchId} ${stopped} (${said.line}); it goes on running and its results will be in ` +
      `outbox/${batchId}/: give the smoke more time (--timeout)`,
  );
};

/** Everything the checks look at, read back from the outbox and the tables. */
export const observeBatch = async (
  data: DeploymentData,
  batchId: string,
  catalogue: Pick<SmokeCatalogue, 'rows' | 'options'>,
): Promise<Observation> => {
  const folder = outboxFolder(batchId);
  const [keys, resultsBytes, summaryBytes, batch, rows, reviews] = await Promise.all([
    data.objects.list(folder),
    data.objects.getBytes(outboxKey(batchId, 'results.csv')),
    data.objects.getBytes(outboxKey(batchId, 'summary.json')),
    data.batches.getBatch(batchId),
    rowsOf(data, batchId),
    data.reviews.listByBatch(batchId),
  ]);
  const results = resultsBytes === null ? null : await readResultsTable(resultsBytes);
  const pdfs = new Map<string, Uint8Array | null>();
  const named = results && !('problem' in results) ? results.rows.map((row) => row.result.verdict_pdf) : [];
  for (const path of named.filter(Boolean))
    pdfs.set(path, await data.objects.getPrefix(outboxKey(batchId, path), 8));
  const summaryText = summaryBytes === null ? null : new TextDecoder().decode(summaryBytes);
  const files = keys.map((key) => key.slice(folder.length));
  return { batchId, catalogue, files, results, summaryText, batch, rows, reviews, pdfs };
};

/** The checks on a batch that has ended, and the lines that say what was found. */
export const verifyBatch = async (
  data: DeploymentData,
  batchId: string,
  catalogue: Pick<SmokeCatalogue, 'rows' | 'options'>,
): Promise<{ checks: SmokeCheck[]; lines: string[] }> => {
  const observed = await observeBatch(data, batchId, catalogue);
  const checks = checkBatch(observed);
  return { checks, lines: findingsLines(observed, checks) };
};

export const runSmoke = async (ports: SmokePorts, options: SmokeOptions): Promise<SmokeOutcome> => {
  const deadline = ports.clock.now().getTime() + options.timeoutMs;
  let batchId: string | null = null;
  try {
    const deployment = await findDeployment(ports.stacks, options.stackName);
    for (const line of [...deploymentLines(deployment), ...costLines(options.catalogue)]) ports.say(line);
    const data = ports.open(deployment);
    const dropped = await dropCatalogue(data, deployment.bucket, options.batchName, options.catalogue);
    const { attachments, spreadsheet } = options.catalogue;
    ports.say(
      `Dropped into s3://${deployment.bucket}/${dropFolder('inbox', options.batchName)}: ${[...attachments.map((file) => file.path), `then ${spreadsheet.path}`].join(', ')}`,
    );
    batchId = (await waitForStart(ports, data, dropped, { ...options, deadline })).batch_id;
    ports.say(`Batch ${batchId} started`);
    await waitForEnd(ports, data, batchId, { ...options, deadline });
    const { checks, lines } = await verifyBatch(data, batchId, options.catalogue);
    for (const line of lines) ports.say(line);
    return { passed: checks.every((check) => check.problems.length === 0), batchId, failure: null, checks };
  } catch (error) {
    if (!(error instanceof SmokeFailure)) throw error;
    ports.say(`Smoke test FAILED: ${error.message}`);
    return { passed: false, batchId, failure: error.message, checks: [] };
  }
};
