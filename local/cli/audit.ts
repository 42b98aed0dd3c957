/**
 * `npm run audit -- verify <batch-id | audit.csv>`: whether a batch's audit.csv is as the pipeline
 * wrote it (shared/pipeline/audit/audit-chain.ts). Every line's hash is recomputed from the lines
 * before it; the first that does not follow is named. Given a batch id, the file is read from the
 * local bucket and its last hash is held against the one the batch record kept, so lines cut from
 * the end show too; given a file alone, only the lines it holds can be checked.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { checkAuditChain } from '../../shared/pipeline/audit/audit-chain.js';
import { AUDIT_FILE } from '../../shared/pipeline/core/bucket-layout.js';
import { bytesSource } from '../../shared/spreadsheet/byte-source.js';
import { dataDirOwner } from '../runtime/data-lock.js';
import { dataDirOf, runCommand, shown, startCommandPipeline, UsageError, userPath } from './shared.js';

const USAGE = `usage: npm run audit -- verify <batch-id | path/to/audit.csv> [--data-dir DIR]

  verify <batch-id>     checks the batch's audit.csv in the local bucket, up to the last line its
                        batch record says was written
  verify <file>         checks an audit.csv you have (a copy in out/, a download): every line
                        against the lines before it

  --data-dir DIR        local state kept between runs (default: .local-data/)

Exit code 0 when the file holds, 1 when a line does not follow (the line is named), 2 for a
mistake in the command line.`;

type Args = { target: { file: string } | { batchId: string }; dataDir: string };

const parse = (argv: string[]): Args | null => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const [command, target, ...extra] = positionals;
  if (command !== 'verify')
    throw new UsageError(command ? `unknown command: ${command}` : 'say what to do: verify');
  if (!target) throw new UsageError('verify needs a batch id or the path of an audit.csv');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  const path = userPath(target);
  const isFile = existsSync(path) && statSync(path).isFile();
  return { target: isFile ? { file: path } : { batchId: target }, dataDir: dataDirOf(values['data-dir']) };
};

/** The batch's audit.csv and the chain's head its record kept, from the local pipeline's stores. */
const batchAudit = async (batchId: string, dataDir: string) => {
  if (dataDirOwner(dataDir) !== null)
    throw new Error(
      `a classify is running on ${shown(dataDir)}; check the batch when it has ended, or give the path of its audit.csv`,
    );
  const { pipeline } = await startCommandPipeline({ dataDir, timeScale: null });
  try {
    const batch = await pipeline.tables.batches.getBatch(batchId);
    if (!batch) throw new Error(`no batch ${batchId} in ${shown(dataDir)}`);
    const bytes = await pipeline.outboxFile(batchId, AUDIT_FILE);
    if (!bytes)
      throw new Error(`batch ${batchId} has no ${AUDIT_FILE} yet: it is written when the batch ends`);
    return { bytes, head: batch.audit_through?.chain ?? null };
  } finally {
    await pipeline.close();
  }
};

const run = async ({ target, dataDir }: Args): Promise<number> => {
  const { bytes, head, name } =
    'file' in target
      ? { bytes: new Uint8Array(readFileSync(target.file)), head: null, name: shown(target.file) }
      : { ...(await batchAudit(target.batchId, dataDir)), name: `${target.batchId}/${AUDIT_FILE}` };
  const check = await checkAuditChain(bytesSource(bytes), name, head === null ? undefined : { head });
  if (!check.holds) {
    console.log(`${name} does not hold: ${check.reason}`);
    return 1;
  }
  console.log(
    `${name} holds: ${check.lines} line(s), each following from the ones before it` +
      (head === null
        ? '. (A file alone cannot show lines cut from its end: give the batch id to check against its record.)'
        : ', up to the last line the batch recorded.'),
  );
  return 0;
};

runCommand('audit', USAGE, parse, run);
