/**
 * `npm run review -- list [--batch ID] | show <classification_id> | answer <classification_id> --answer QUESTION_ID=TEXT ...`
 *
 * For reviewers who would rather not open a spreadsheet: the review items waiting for answers,
 * one item in full, and one-off answers. `answer` writes the same filled review file a person
 * would send and runs it through the same answers round as `npm run answer` (same checks, same
 * report, the batch's outbox copied to `--out`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir, userInfo } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { readAnswersFile } from '../../shared/pipeline/answers/answers-file.js';
import { planAnswers } from '../../shared/pipeline/answers/plan-answers.js';
import type { ReviewItem } from '../../shared/pipeline/core/records.js';
import { buildReviewCsv } from '../../shared/pipeline/outbox/results-files.js';
import { normaliseSheetPath } from '../../shared/spreadsheet/normalise-row.js';
import { formatNcm } from '../../shared/spreadsheet/write-csv.js';
import type { LocalPipeline } from '../runtime/pipeline.js';
import { runAnswersRound } from './answers-round.js';
import {
  dataDirOf,
  interruptSignal,
  parseTimeScale,
  runCommand,
  startCommandPipeline,
  UsageError,
  userPath,
} from './shared.js';

const USAGE = `usage: npm run review -- <command> [options]

  list [--batch ID]                     rows waiting for answers, with their questions and days left
  show <classification_id>              one row's questions, suggested answers and provisional proposal
  answer <classification_id> --answer QUESTION_ID=TEXT [--answer ...] [--sheet PDF]
                                        answer one row (every question), as a filled review.csv would

  --out DIR          (answer) where the batch's updated results go (default: out/<batch-name>/)
  --by NAME          (answer) who answered (default: your user name)
  --time-scale F     (answer) scale run times and polling (default: 0.25 on the sandbox)
  --data-dir DIR     local state kept between runs (default: .local-data/)`;

const DAY_MS = 24 * 60 * 60 * 1000;

type Command =
  | { name: 'list'; batchId: string | null }
  | { name: 'show'; id: string }
  | {
      name: 'answer';
      id: string;
      answers: Map<string, string>;
      sheet: string | null;
      outDir: string | null;
      answeredBy: string;
      timeScale: number | null;
    };

const parse = (argv: string[]): { command: Command; dataDir: string } | null => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      batch: { type: 'string' },
      answer: { type: 'string', multiple: true },
      sheet: { type: 'string' },
      out: { type: 'string' },
      by: { type: 'string' },
      'time-scale': { type: 'string' },
      'data-dir': { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  const [name, id, ...extra] = positionals;
  const dataDir = dataDirOf(values['data-dir']);
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  switch (name) {
    case 'list':
      if (id) throw new UsageError('list takes no classification id (use show)');
      return { command: { name: 'list', batchId: values.batch?.trim() || null }, dataDir };
    case 'show':
      if (!id) throw new UsageError('show needs a classification id');
      return { command: { name: 'show', id }, dataDir };
    case 'answer': {
      if (!id) throw new UsageError('answer needs a classification id');
      if (!values.answer?.length) throw new UsageError('answer needs at least one --answer QUESTION_ID=TEXT');
      const answers = new Map<string, string>();
      for (const pair of values.answer) {
        const at = pair.indexOf('=');
        if (at <= 0) throw new UsageError(`--answer ${pair}: write it as QUESTION_ID=TEXT`);
        const questionId = pair.slice(0, at).trim();
        if (answers.has(questionId)) throw new UsageError(`--answer ${questionId} is given twice`);
        answers.set(questionId, pair.slice(at + 1).trim());
      }
      const timeScale = parseTimeScale(values['time-scale']);
      return {
        command: {
          name: 'answer',
          id,
          answers,
          sheet: values.sheet ? userPath(values.sheet) : null,
          outDir: values.out ? userPath(values.out) : null,
          answeredBy: values.by?.trim() || userInfo().username || 'unknown',
          timeScale,
        },
        dataDir,
      };
    }
    default:
      throw new UsageError(name ? `unknown command "${name}"` : 'give a command: list, show or answer');
  }
};

const daysLeft = (item: ReviewItem, now: number): string => {
  const left = Math.floor((Date.parse(item.abandons_at) - now) / DAY_MS);
  return left < 0 ? 'past its 30 days' : `${left} day${left === 1 ? '' : 's'} left`;
};

const describeItem = (item: ReviewItem, now: number, full: boolean): string[] => {
  const product = [item.sku, item.description].filter(Boolean).join(' · ');
  const lines = [
    `${item.classification_id}  batch ${item.batch_id} row ${item.row}  ${daysLeft(item, now)} (abandoned after ${item.abandons_at.slice(0, 10)})`,
    `  ${product}`,
  ];
  if (full && item.provisional_ncm) {
    lines.push(
      `  provisional proposal: ${formatNcm(item.provisional_ncm)}${item.provisional_confidence === null ? '' : ` (confidence ${item.provisional_confidence})`}, not a verdict`,
    );
  }
  for (const question of item.questions) {
    lines.push(`  ${question.id}: ${question.text}`);
    if (question.options.length > 0) lines.push(`      suggested: ${question.options.join(' | ')}`);
  }
  if (full && item.state !== 'pending') {
    lines.push(
      `  ${item.state}${item.answered_by ? ` by ${item.answered_by}` : ''}${item.answered_at ? ` at ${item.answered_at}` : ''}`,
    );
    for (const answer of item.answers ?? []) lines.push(`      ${answer.question_id} = ${answer.answer}`);
  }
  return lines;
};

const list = async (pipeline: LocalPipeline, batchId: string | null): Promise<number> => {
  const items = batchId
    ? (await pipeline.tables.reviews.listByBatch(batchId)).filter((item) => item.state === 'pending')
    : await pipeline.tables.pendingReviews();
  if (items.length === 0) {
    console.log(
      batchId ? `No rows of batch ${batchId} are waiting for answers.` : 'No rows are waiting for answers.',
    );
    return 0;
  }
  const now = Date.now();
  console.log(`${items.length} row(s) waiting for answers:\n`);
  for (const item of items) console.log([...describeItem(item, now, false), ''].join('\n'));
  console.log(
    'Answer them in review.csv and run `npm run answer -- <file>`, or one at a time with `npm run review -- answer`.',
  );
  return 0;
};

const itemOf = async (pipeline: LocalPipeline, id: string): Promise<ReviewItem> => {
  const item = await pipeline.tables.reviews.get(id);
  if (!item) throw new Error(`no review item ${id} in this data folder (see npm run review -- list)`);
  return item;
};

/** What the command line alone can get wrong: an item already answered, a question it does not have. */
const checkAnswers = (item: ReviewItem, answers: ReadonlyMap<string, string>): void => {
  if (item.state !== 'pending') {
    throw new Error(
      `${item.classification_id} is already ${item.state}${item.answered_by ? ` (by ${item.answered_by})` : ''}`,
    );
  }
  const known = new Set(item.questions.map((question) => question.id));
  for (const questionId of answers.keys()) {
    if (!known.has(questionId)) {
      throw new UsageError(
        `${item.classification_id} has no question "${questionId}"; its questions: ${[...known].join(', ')}`,
      );
    }
  }
};

const answer = async (
  pipeline: LocalPipeline,
  command: Extract<Command, { name: 'answer' }>,
): Promise<number> => {
  const item = await itemOf(pipeline, command.id);
  checkAnswers(item, command.answers);
  const batch = await pipeline.tables.batches.getBatch(item.batch_id);
  // The file a person would send: the item's row of review.csv, filled in. A sheet goes beside it.
  const folder = mkdtempSync(join(tmpdir(), 'ncm-review-'));
  try {
    const sheetsDir = command.sheet ? dirname(command.sheet) : folder;
    const sheet = command.sheet ? basename(command.sheet) : null;
    if (sheet !== null && 'invalid' in normaliseSheetPath(sheet))
      throw new UsageError(`--sheet ${command.sheet}: not a usable file name`);
    const file = join(folder, `answer-${item.classification_id}.csv`);
    const filled = new Map([
      [item.classification_id, { answers: command.answers, ...(sheet ? { sheet } : {}) }],
    ]);
    writeFileSync(file, buildReviewCsv([item], batch?.delimiter ?? ',', { filled }));
    const read = await readAnswersFile(readFileSync(file), basename(file));
    // The round's own rules (every question answered, lengths), said now rather than in the report.
    const [planned] = planAnswers({
      file: read,
      items: new Map([[item.classification_id, item]]),
      statusOf: () => 'pending_data',
    }).report;
    if (planned && planned.outcome !== 'resumed') throw new UsageError(planned.detail);
    return await runAnswersRound({
      pipeline,
      file,
      read,
      batchId: item.batch_id,
      sheetsDir,
      answeredBy: command.answeredBy,
      outDir: command.outDir ?? userPath(join('out', batch?.name ?? item.batch_id)),
      signal: interruptSignal(),
    });
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
};

const review = async ({ command, dataDir }: NonNullable<ReturnType<typeof parse>>): Promise<number> => {
  const { pipeline } = await startCommandPipeline({
    dataDir,
    timeScale: command.name === 'answer' ? command.timeScale : null,
  });
  try {
    switch (command.name) {
      case 'list':
        return await list(pipeline, command.batchId);
      case 'show': {
        console.log(describeItem(await itemOf(pipeline, command.id), Date.now(), true).join('\n'));
        return 0;
      }
      case 'answer':
        return await answer(pipeline, command);
    }
  } finally {
    await pipeline.close();
  }
};

runCommand('review', USAGE, parse, review);
