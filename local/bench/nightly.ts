/**
 * The nightly export at our users' sizes (`npm run bench -- --nightly 100000:200`): night 1 drops
 * the ERP's export (nightly-export.ts) into a fresh local pipeline; night 2 drops the same file,
 * unchanged, into the same batch folder on the same data folder, so it is a new batch (a new
 * object version) that finds night 1's verdicts in the product cache. The pipeline is restarted
 * between the nights, not wiped: each night's function processes start new, so their peak memory
 * is that night's.
 *
 * Under `--nightly-check-below`, night 2 ends with a round deciding every verdict it left to check
 * (nightly-decisions.ts). Each night is measured from outside, as an operator would: the batch record's state, one
 * GetItem every POLL_MS by the runtime's own client (not through the permission gates, so it is
 * not among the functions' requests) and the Batch workflow's end; the requests the functions
 * made, counted by the gates; each function's peak memory; the sandbox's meter; the outbox.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HANDLER_NAMES } from '../../shared/contract.js';
import { outboxFolder } from '../../shared/pipeline/core/bucket-layout.js';
import { readResultsTable } from '../../shared/smoke/results-table.js';
import { type LocalPipeline, startLocalPipeline } from '../runtime/pipeline.js';
import type { Sandbox } from '../sandbox/sandbox.js';
import { decideEveryCheck } from './nightly-decisions.js';
import { type NightlySize, sizeLabel, writeNightlyExport } from './nightly-export.js';
import {
  type NightMeasured,
  outputOf,
  phasesOf,
  type SizeMeasured,
  type StateSeen,
} from './nightly-report.js';

/** How often the batch record is looked at: the phases' resolution. */
const POLL_MS = 250;
/** How often a long night says where it is. */
const HEARTBEAT_MS = 60_000;
/**
 * waitForBatch lists every row each time it looks; here it only has to notice the workflow's end,
 * which wakes it at once, so its own looks are spaced a day apart (the bench's poll sees the states).
 */
const WAKE_ON_END_ONLY_MS = 24 * 60 * 60_000;
/** The folder both nights drop into: the ERP writes the same file name every night. */
const EXPORT_NAME = 'erp-export';

export type NightlyOptions = {
  /** Scales the sandbox's runs and the workflows' waits (0.02: a 60 s run takes 1.2 s). */
  timeScale: number;
  /** Where the synthesized assembly is cached, shared by every size. */
  assemblyDir: string;
  log: (line: string) => void;
  /** batch.json's `check_below` for both nights: a person signs off the verdicts under it. */
  checkBelow?: number;
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The batch's states from the drop until it is completed (or the workflow ends otherwise). */
const watchStates = async (
  pipeline: LocalPipeline,
  batchId: string,
  droppedAtMs: number,
  say: (line: string) => void,
) => {
  const ended = pipeline.waitForBatch(batchId, { progressEveryMs: WAKE_ON_END_ONLY_MS });
  let settled = false;
  ended.then(
    () => {
      settled = true;
    },
    () => {
      settled = true;
    },
  );
  const seen: StateSeen[] = [];
  let lastSaid = droppedAtMs;
  for (;;) {
    const state = (await pipeline.tables.batches.getBatch(batchId))?.state ?? 'submitted';
    const atMs = Date.now();
    const changed = seen.at(-1)?.state !== state;
    seen.push({ state, atMs });
    if (changed || atMs - lastSaid >= HEARTBEAT_MS) {
      say(`${state} at ${((atMs - droppedAtMs) / 1000).toFixed(1)} s`);
      lastSaid = atMs;
    }
    if (state === 'completed' || state === 'failed' || settled) break;
    await sleep(POLL_MS);
  }
  // Rejects when the Batch workflow failed; resolves once it has ended, with the outbox's keys.
  const outcome = await ended;
  if (outcome.state !== 'completed') throw new Error(`batch ${batchId} ended ${outcome.state}`);
  return { seen, outboxKeys: outcome.outboxKeys };
};

const measureNight = async (
  pipeline: LocalPipeline,
  { file, optionsFile }: { file: string; optionsFile: string | undefined },
  night: number,
  say: (line: string) => void,
): Promise<NightMeasured> => {
  const sandbox = pipeline.sandbox as Sandbox;
  const billedBefore = sandbox.stats().billed_usd;
  pipeline.resetFunctionRequests();
  const invokedBefore = Object.fromEntries(
    HANDLER_NAMES.map((name) => [name, pipeline.endedInvocations(name)]),
  );
  const droppedAtMs = Date.now();
  const { batchId } = await pipeline.submit({
    file,
    batchName: EXPORT_NAME,
    ...(optionsFile ? { optionsFile } : {}),
  });
  const { seen, outboxKeys } = await watchStates(pipeline, batchId, droppedAtMs, say);
  // Read at the end, before anything else runs: the scheduled dispatcher goes on after it.
  const requests = pipeline.functionRequests();
  const peakMemoryMb = Object.fromEntries(HANDLER_NAMES.map((name) => [name, pipeline.peakMemoryMb(name)]));
  const invocations = Object.fromEntries(
    HANDLER_NAMES.map((name) => [name, pipeline.endedInvocations(name) - (invokedBefore[name] ?? 0)]),
  );
  const billedUsd = Math.round((sandbox.stats().billed_usd - billedBefore) * 100) / 100;

  const bytes = await pipeline.outboxFile(batchId, 'results.csv');
  if (!bytes) throw new Error(`batch ${batchId} completed without a results.csv`);
  const table = await readResultsTable(bytes);
  if ('problem' in table) throw new Error(`batch ${batchId}: ${table.problem}`);
  const pdfFolder = `${outboxFolder(batchId)}pdfs/`;
  const pdfs = outboxKeys.filter((key) => key.startsWith(pdfFolder)).length;
  return {
    night,
    batchId,
    phases: phasesOf(droppedAtMs, seen),
    billedUsd,
    peakMemoryMb,
    requests,
    invocations,
    ...outputOf(table.rows, pdfs),
  };
};

/** Night 1 and night 2 of one size, each in a pipeline of its own on one data folder. */
export const runNightly = async (
  workDir: string,
  size: NightlySize,
  options: NightlyOptions,
): Promise<SizeMeasured> => {
  const folder = join(workDir, `nightly-${size.rows}-${size.products}`);
  mkdirSync(folder, { recursive: true });
  const file = join(folder, `${EXPORT_NAME}.csv`);
  writeNightlyExport(file, size);
  const optionsFile = options.checkBelow === undefined ? undefined : join(folder, 'batch.json');
  if (optionsFile) writeFileSync(optionsFile, JSON.stringify({ check_below: options.checkBelow }));
  const nights: NightMeasured[] = [];
  for (const night of [1, 2]) {
    const say = (line: string) => options.log(`    ${sizeLabel(size)} night ${night}: ${line}`);
    const pipeline = await startLocalPipeline({
      dataDir: join(folder, 'pipeline-data'),
      fresh: night === 1,
      timeScale: options.timeScale,
      sandbox: { seed: 'bench' },
      assemblyDir: options.assemblyDir,
    });
    try {
      const measured = await measureNight(pipeline, { file, optionsFile }, night, say);
      // A person then decides what night 2 left to check: the round that applies it, measured.
      const decided =
        night === 2 && optionsFile
          ? await decideEveryCheck(pipeline, measured.batchId, folder, WAKE_ON_END_ONLY_MS)
          : undefined;
      if (decided) say(`${decided.items} decisions applied in ${decided.seconds.toFixed(1)} s`);
      nights.push(decided ? { ...measured, decided } : measured);
    } finally {
      await pipeline.close();
    }
  }
  return { ...size, nights };
};
