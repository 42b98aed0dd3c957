/**
 * `classify --recheck [--table <file.json|.json.gz>]`: the earlier verdicts whose NCM the table in
 * force no longer holds (shared/pipeline/reuse/recheck-verdicts.ts), over the product cache this
 * data folder keeps. With `--table`, the table goes into the local bucket's `reference/ncm/` first,
 * as a person would drop it on AWS, and the function is given the Object Created event the rule
 * would deliver; a leg that hands on is given the event of the object it dropped, as on AWS.
 * `outbox/rechecks/<table date>/` is copied to `<out>/<table date>/`.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { REFERENCE_NCM_PREFIX } from '../../shared/ncm-table/reference-table.js';
import { RECHECK_FILES, type RecheckReport } from '../../shared/pipeline/reuse/recheck-verdicts.js';
import { message, wordMessage } from '../../shared/wording/index.js';
import type { LocalPipeline } from '../runtime/pipeline.js';
import { shown, startCommandPipeline } from './shared.js';

export type RecheckArgs = { dataDir: string; table: string | null; outRoot: string };

/** The event S3 sends EventBridge for an object created, as far as the function reads it. */
const objectCreated = (key: string) => ({
  version: '0',
  source: 'aws.s3',
  'detail-type': 'Object Created',
  detail: { object: { key } },
});

/**
 * The recheck on a running local pipeline: the table put first when given, the function invoked
 * with the event the rule would deliver, leg after leg, the list copied to `<outRoot>/<date>/`.
 * Returns the exit code and what to print (`error` on stderr).
 */
export const recheckOn = async (
  pipeline: Pick<LocalPipeline, 'putObject' | 'invoke' | 'copyOutbox'>,
  args: Pick<RecheckArgs, 'table' | 'outRoot'>,
): Promise<{ code: number; lines: string[]; error?: string; outDir?: string }> => {
  const lines: string[] = [];
  let event: unknown = {};
  if (args.table) {
    const key = `${REFERENCE_NCM_PREFIX}${basename(args.table)}`;
    const contentType = args.table.toLowerCase().endsWith('.gz') ? 'application/gzip' : 'application/json';
    await pipeline.putObject(key, readFileSync(args.table), contentType);
    lines.push(`Table ${shown(args.table)} put in the local bucket as ${key}.`);
    event = objectCreated(key);
  }
  let report = (await pipeline.invoke('recheck-verdicts', event)) as RecheckReport;
  while (!report.done && 'continues' in report)
    report = (await pipeline.invoke('recheck-verdicts', objectCreated(report.continues))) as RecheckReport;
  if (!report.done)
    return {
      code: 1,
      lines,
      error: `the recheck could not be done: ${'why' in report ? report.why : 'unknown'}`,
    };
  const { summary } = report;
  const table = summary.table;
  const tableDate = report.folder.replace(/\/$/, '').split('/').at(-1) ?? 'undated';
  const outDir = join(args.outRoot, tableDate);
  // outbox/rechecks/<date>/ is an outbox folder like a batch's: copied the same way.
  await pipeline.copyOutbox(`rechecks/${tableDate}`, outDir);
  lines.push(
    ...(report.refused
      ? [
          wordMessage(
            message('ncm_table_not_taken', { ...report.refused, as_of: table.as_of, act: table.act }),
            'en',
          ),
        ]
      : []),
    `Read ${summary.checked} entries of the product cache (a product with a SKU is kept under its SKU and ` +
      `its fingerprint) against the NCM table of ${table.as_of ?? 'no date'} ` +
      `(${table.act}; ${table.source === 'carried' ? 'the table the project carries' : table.source}).`,
    summary.not_in_force === 0
      ? 'Every one names a code in force.'
      : `${summary.not_in_force} earlier verdict(s) name a code no longer in force: ${summary.ended} ended, ` +
          `${summary.split} split, ${summary.replaced} replaced by another code.`,
    `List: ${shown(outDir)}/ (${RECHECK_FILES.csv}, ${RECHECK_FILES.json})` +
      (summary.not_in_force > 0
        ? '; reclassify: "ended_codes" in batch.json classifies only those again.'
        : ''),
  );
  return { code: 0, lines, outDir };
};

/** `--recheck`: returns the exit code (1 when the recheck could not be done, saying why). */
export const recheck = async (args: RecheckArgs): Promise<number> => {
  const { pipeline } = await startCommandPipeline({ dataDir: args.dataDir, timeScale: null });
  try {
    const { code, lines, error } = await recheckOn(pipeline, args);
    if (lines.length > 0) console.log(lines.join('\n'));
    if (error) console.error(`classify: ${error}`);
    return code;
  } finally {
    await pipeline.close();
  }
};
