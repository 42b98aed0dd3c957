/**
 * `npm run answer -- <filled review.csv|.xlsx> [--batch ID] [--sheets DIR] [--out DIR]`
 *
 * Sends a filled `review.csv` back, as a user drops it into `answers/<batch-id>/` on AWS: the
 * rows with every question answered resume (answers posted once, a slot like any submission,
 * polled to their verdict), the decisions on verdicts to check (review.xlsx's sheet of them, or a
 * filled to-check.csv) are applied, the others are reported in `answers-report.csv`, and the batch's
 * updated outbox (results.csv with the earlier one kept as a revision, review.csv, summary.json)
 * is copied to `--out`. Exit 0 when the round ran, whatever each row's outcome; 1 with one clear
 * line when it could not; 2 for a wrong command line.
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { type AnswersFile, readAnswersFile } from '../../shared/pipeline/answers/answers-file.js';
import type { LocalPipeline } from '../runtime/pipeline.js';
import { runAnswersRound } from './answers-round.js';
import {
  dataDirOf,
  interruptSignal,
  parseCap,
  parseTimeScale,
  runCommand,
  sheetsFolderOption,
  spreadsheetArgument,
  startCommandPipeline,
  userPath,
} from './shared.js';

const USAGE = `usage: npm run answer -- <filled review.csv|.xlsx> [options]

  --batch ID         the batch the file answers (default: found from its classification ids)
  --sheets DIR       folder holding the PDF sheets its "sheet" column names (default: the file's folder)
  --out DIR          where the batch's updated results go (default: out/<batch-name>/)
  --by NAME          who answered, kept on the review items (default: your user name)
  --time-scale F     scale run times and polling (default: 0.25 on the sandbox, 1 on the real service)
  --data-dir DIR     local state kept between runs (default: .local-data/)
  --cap N            use at most N slots of the organisation's cap

Only rows with every question answered are sent; answers-report.csv says what happened to each.`;

const parse = (argv: string[]) => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      batch: { type: 'string' },
      sheets: { type: 'string' },
      out: { type: 'string' },
      by: { type: 'string' },
      'time-scale': { type: 'string' },
      'data-dir': { type: 'string' },
      cap: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const file = spreadsheetArgument(positionals, 'filled review file');
  const sheetsDir = sheetsFolderOption(values.sheets, file);
  const timeScale = parseTimeScale(values['time-scale']);
  const cap = parseCap(values.cap);
  const by = values.by?.trim() || userInfo().username || 'unknown';
  return {
    file,
    sheetsDir,
    batchId: values.batch?.trim() || null,
    outDir: values.out ? userPath(values.out) : null,
    answeredBy: by,
    timeScale,
    cap,
    dataDir: dataDirOf(values['data-dir']),
  };
};

/**
 * The batch the file answers: `--batch`, else the one batch its classification ids belong to
 * (their review items say), so the usual case needs no id typed.
 */
const findBatch = async (
  pipeline: LocalPipeline,
  read: AnswersFile,
  given: string | null,
  file: string,
): Promise<{ batchId: string; name: string }> => {
  const { batches, reviews } = pipeline.tables;
  if (given) {
    const batch = await batches.getBatch(given);
    if (!batch || batch.round_of !== undefined) throw new Error(`no batch "${given}" in this data folder`);
    return { batchId: batch.batch_id, name: batch.name };
  }
  // Rows sent again name rows, not classifications: only the batch id says whose rows they are.
  if ((read.resends ?? []).length > 0)
    throw new Error(
      `${basename(file)} sends rows again (resend_row): give --batch ID, the batch whose rows they are`,
    );
  const decisions = read.decisions ?? [];
  const ids = [...new Set([...read.rows, ...decisions].map((row) => row.classification_id).filter(Boolean))];
  const found = new Set<string>();
  for (const id of ids) {
    const item = await reviews.get(id);
    if (item) found.add(item.batch_id);
  }
  // Decisions name verdicts to check: their batches are those of the open check items.
  if (decisions.length > 0) {
    const decided = new Set(decisions.map((line) => line.classification_id));
    for (const item of await pipeline.tables.openChecks()) {
      if (decided.has(item.classification_id)) found.add(item.batch_id);
    }
  }
  if (found.size === 0) {
    throw new Error(
      `${basename(file)}: none of its ${ids.length} classification id(s) is waiting for answers or a check in this data ` +
        'folder (was the batch classified with another --data-dir?); give --batch ID to send it anyway',
    );
  }
  if (found.size > 1) {
    throw new Error(
      `${basename(file)} answers rows of ${found.size} batches (${[...found].join(', ')}): send one file per batch, or give --batch ID`,
    );
  }
  const batchId = [...found][0] as string;
  const batch = await batches.getBatch(batchId);
  return { batchId, name: batch?.name ?? batchId };
};

const answer = async (args: NonNullable<ReturnType<typeof parse>>): Promise<number> => {
  // Read before anything starts: a file that is no review file is said at once.
  const read = await readAnswersFile(readFileSync(args.file), basename(args.file));
  const { pipeline } = await startCommandPipeline({
    dataDir: args.dataDir,
    timeScale: args.timeScale,
    cap: args.cap,
  });
  const signal = interruptSignal();
  try {
    const batch = await findBatch(pipeline, read, args.batchId, args.file);
    return await runAnswersRound({
      pipeline,
      file: args.file,
      read,
      batchId: batch.batchId,
      sheetsDir: args.sheetsDir,
      answeredBy: args.answeredBy,
      outDir: args.outDir ?? userPath(join('out', batch.name)),
      signal,
    });
  } finally {
    await pipeline.close();
  }
};

runCommand('answer', USAGE, parse, answer);
