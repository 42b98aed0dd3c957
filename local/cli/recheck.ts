/**
 * `classify --recheck [--table <file.json|.json.gz>]`: the earlier verdicts whose NCM the table in
 * force no longer holds (shared/pipeline/batch/recheck-verdicts.ts), over the product cache this
 * data folder keeps. With `--table`, the table goes into the local bucket's `reference/ncm/` first,
 * as a person would drop it on AWS, and the function is given the Object Created event the rule
 * would deliver; a leg that hands on is given the event of the object it dropped, as on AWS.
 * `outbox/rechecks/<table date>/` is copied to `<out>/<table date>/`.
 */
import { readFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import { REFERENCE_NCM_PREFIX } from '../../shared/ncm-table/reference-table.js';
import { RECHECK_FILES, type RecheckReport } from '../../shared/pipeline/batch/index.js';
import { message, wordMessage } from '../../shared/wording/index.js';
import { shown, startCommandPipeline } from './shared.js';

export type RecheckArgs = { dataDir: string; table: string | null; outRoot: string };

/** The event S3 sends EventBridge for an object created, as far as the function reads it. */
const objectCreated = (key: string) => ({
  version: '0',
  source: 'aws.s3',
  'detail-type': 'Object Created',
  detail: { object: { key } },
});

/** `--recheck`: returns the exit code (1 when the recheck could not be done, saying why). */
export const recheck = async (args: RecheckArgs): Promise<number> => {
  const { pipeline } = await startCommandPipeline({ dataDir: args.dataDir, timeScale: null });
  try {
    let event: unknown = {};
    if (args.table) {
      const key = `${REFERENCE_NCM_PREFIX}${basename(args.table)}`;
      const contentType = args.table.toLowerCase().endsWith('.gz') ? 'application/gzip' : 'application/json';
      await pipeline.putObject(key, readFileSync(args.table), contentType);
      console.log(`Table ${shown(args.table)} put in the local bucket as ${key}.`);
      event = objectCreated(key);
    }
    let report = (await pipeline.invoke('recheck-verdicts', event)) as RecheckReport;
    while (!report.done && 'continues' in report)
      report = (await pipeline.invoke('recheck-verdicts', objectCreated(report.continues))) as RecheckReport;
    if (!report.done) {
      console.error(`classify: the recheck could not be done: ${'why' in report ? report.why : 'unknown'}`);
      return 1;
    }
    const { summary } = report;
    const table = summary.table;
    const tableDate = report.folder.replace(/\/$/, '').split('/').at(-1) ?? 'undated';
    const outDir = join(args.outRoot, tableDate);
    // outbox/rechecks/<date>/ is an outbox folder like a batch's: copied the same way.
    await pipeline.copyOutbox(`rechecks/${tableDate}`, outDir);
    console.log(
      [
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
      ].join('\n'),
    );
    return 0;
  } finally {
    await pipeline.close();
  }
};
