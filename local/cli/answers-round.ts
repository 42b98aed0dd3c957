/**
 * What `npm run answer` and `npm run review -- answer` share: one answers round through the
 * local pipeline, from the filled file to the batch's updated outbox on disk.
 *
 *   answers file ─▶ answers/<batch-id>/ (+ the sheets it names) ─▶ Answers workflow
 *     ─▶ wait for the round (progress) ─▶ outbox/<batch-id>/ copied to --out ─▶ what happened
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Papa from 'papaparse';
import type { AnswersFile } from '../../shared/pipeline/answers/answers-file.js';
import { ANSWERS_REPORT_FILE } from '../../shared/pipeline/answers/prepare-answers.js';
import { normaliseSheetPath } from '../../shared/spreadsheet/normalise-row.js';
import type { LocalPipeline } from '../runtime/pipeline.js';
import { formatDuration, waitPrintingProgress } from './progress.js';
import { shown } from './shared.js';

export type AnswersRoundInput = {
  pipeline: LocalPipeline;
  /** The filled file, already read (answers-file.ts), for its sheet cells. */
  file: string;
  read: AnswersFile;
  batchId: string;
  sheetsDir: string;
  answeredBy: string;
  outDir: string;
  signal: AbortSignal;
};

/** The valid sheet paths the file's `sheet` column names; the others are reported by the round. */
const sheetsNamed = (read: AnswersFile): string[] =>
  [...read.rows.map((row) => row.sheet), ...(read.resends ?? []).map((line) => line.sheet || null)].flatMap(
    (sheet) => {
      if (sheet === null) return [];
      const normalised = normaliseSheetPath(sheet);
      return 'path' in normalised ? [normalised.path] : [];
    },
  );

/**
 * Runs the round and prints what it did: the answers report's outcomes, the resumed rows'
 * statuses and the files. Returns the exit code: 0 when the round ran (whatever each row's
 * outcome), 1 when the file could not be used at all.
 */
export const runAnswersRound = async (input: AnswersRoundInput): Promise<number> => {
  const { pipeline } = input;
  const started = Date.now();
  const { roundId, missingSheets } = await pipeline.submitAnswers({
    file: input.file,
    batchId: input.batchId,
    sheets: sheetsNamed(input.read),
    sheetsDir: input.sheetsDir,
    answeredBy: input.answeredBy,
  });
  console.log(`Answers round ${roundId} for batch ${input.batchId}: ${shown(input.file)}`);
  for (const sheet of missingSheets) {
    console.log(`  sheet ${sheet} is not in ${shown(input.sheetsDir)}: its row will be reported, not sent`);
  }

  const outcome = await waitPrintingProgress(pipeline, roundId, started, input.signal);
  const round = await pipeline.progress(roundId);
  const written = await pipeline.copyOutbox(input.batchId, input.outDir);

  const report = readReport(join(input.outDir, ANSWERS_REPORT_FILE));
  if (outcome.state === 'failed' && round.rowsTotal === 0) {
    const why = report.find((entry) => entry.outcome === 'file_unreadable')?.detail;
    console.error(
      `answer: ${why ?? 'the answers file could not be used'} (${shown(input.outDir)}/${ANSWERS_REPORT_FILE})`,
    );
    return 1;
  }
  const outcomes = countBy(report.map((entry) => entry.outcome));
  const statuses = Object.entries(round.byStatus)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${status} ${count}`)
    .join(', ');
  const summary = outcome.summary;
  const pending = (summary.by_status as Record<string, number> | undefined)?.pending_data ?? 0;
  console.log(
    [
      `Done in ${formatDuration(Date.now() - started)}: ${report.length} line(s) read (${outcomes || 'none'}).`,
      `Sent ${round.rowsTotal}${statuses ? `: ${statuses}` : ''}; billed $${round.billedUsd.toFixed(2)}.`,
      `The batch has ${pending} row(s) still waiting for answers (review.xlsx, review.csv).`,
      `Results: ${shown(input.outDir)}/ (${written.length} files: results.xlsx and .csv revision ` +
        `${summary.revision ?? 0}, erp-update.csv, review.xlsx and .csv, ${ANSWERS_REPORT_FILE}, summary.json)`,
    ].join('\n'),
  );
  // What went as asked (resumed, decided, resent) is counted above; the rest is said line by line.
  const asAsked = new Set(['resumed', 'decided', 'resent']);
  for (const entry of report.filter((e) => !asAsked.has(e.outcome))) {
    console.log(`  row ${entry.row || '?'} ${entry.classification_id}: ${entry.outcome}: ${entry.detail}`);
  }
  return 0;
};

type ReportEntry = { row: string; classification_id: string; outcome: string; detail: string };

/** answers-report.csv as written for the user (its separator is the answers file's own). */
const readReport = (path: string): ReportEntry[] => {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch {
    return [];
  }
  const parsed = Papa.parse<Record<string, string>>(text, { header: true, skipEmptyLines: true });
  return parsed.data.map((record) => ({
    row: record.row ?? '',
    classification_id: record.classification_id ?? '',
    outcome: record.outcome ?? '',
    detail: record.detail ?? '',
  }));
};

const countBy = (values: readonly string[]): string =>
  [
    ...values.reduce(
      (counts, value) => counts.set(value, (counts.get(value) ?? 0) + 1),
      new Map<string, number>(),
    ),
  ]
    .map(([value, count]) => `${value} ${count}`)
    .join(', ');
