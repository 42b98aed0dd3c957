/**
 * `npm run classify -- <file.csv|.txt|.tsv|.xlsx|.xml|.zip> [--out DIR] [--sheets DIR] [--options batch.json] [--plan]`
 *
 * Runs one batch through the real pipeline on this machine (local/runtime): the file, its
 * sheets and options go into the local bucket as a user would drop them on AWS, the
 * synthesized workflows run the bundled handlers, and `outbox/<batch-id>/` is copied to
 * `--out`. Exit 0 when the batch completed, whatever its rows' statuses; 1 with one clear
 * line when it could not run; 2 for a wrong command line.
 */
import { existsSync } from 'node:fs';
import { userInfo } from 'node:os';
import { basename, dirname, extname, join } from 'node:path';
import { parseArgs } from 'node:util';
import { commandOptionsFile, printPlan, readPlan } from './plan.js';
import { formatDuration, waitPrintingProgress } from './progress.js';
import { recheck } from './recheck.js';
import {
  dataDirOf,
  interruptSignal,
  isInvoiceFile,
  PERMISSION_CHECKS_USAGE,
  parseCap,
  parseTimeScale,
  runCommand,
  sheetsFolderOption,
  shown,
  spreadsheetArgument,
  startCommandPipeline,
  UsageError,
  userPath,
} from './shared.js';
import { partialResultsServer, status } from './status.js';
import {
  checkLine,
  ncmTableLine,
  readNoticesOf,
  savingLine,
  sentencesOf,
  stoppingProblemOf,
} from './summary-lines.js';

const USAGE = `usage: npm run classify -- <file.csv|.txt|.tsv|.xlsx|.xml|.zip> [options]

  --out DIR          where the results go (default: out/<batch-name>/)
  --sheets DIR       folder holding the PDF sheets the file names (default: the file's folder;
                     none for an NF-e .xml or a .zip of them, which name no sheets)
  --options FILE     batch options (default: batch.json beside the file, if any)
  --time-scale F     scale run times and polling (default: 0.25 on the sandbox, 1 on the real service)
  --data-dir DIR     local state kept between runs (default: .local-data/)
  --fresh            start from empty local state
  --cap N            use at most N slots of the organisation's cap
${PERMISSION_CHECKS_USAGE}
  --by NAME          who sends the batch, as audit.csv names them (default: the OS user,
                     known by the CLI); batch.json's requested_by is kept as stated_by
  --plan             only plan: read and check the file, write plan.json and plan.csv
                     (what it would cost and take), and classify nothing

usage: npm run classify -- --status <batch-id> [--out DIR] [--data-dir DIR]

  partial results of a batch, now: results.partial.csv and summary.partial.json in --out
  (default out/<batch-name>/); answered by the classify running it, if one is

usage: npm run classify -- --recheck [--table <file.json|.json.gz>] [--out DIR] [--data-dir DIR]

  the earlier verdicts whose NCM is no longer in force in the NCM table in force: recheck.csv
  and recheck.json in --out/<table date>/ (default out/rechecks/<table date>/). --table first
  puts a newer table, as Siscomex publishes it, into the local bucket's reference/ncm/

Without TCS_API_KEY and TCS_BASE_URL the built-in sandbox answers (simulated verdicts).`;

const parse = (argv: string[]) => {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      out: { type: 'string' },
      sheets: { type: 'string' },
      options: { type: 'string' },
      'time-scale': { type: 'string' },
      'data-dir': { type: 'string' },
      fresh: { type: 'boolean', default: false },
      cap: { type: 'string' },
      plan: { type: 'boolean', default: false },
      'no-permission-checks': { type: 'boolean', default: false },
      status: { type: 'string' },
      recheck: { type: 'boolean', default: false },
      table: { type: 'string' },
      by: { type: 'string' },
      help: { type: 'boolean', short: 'h', default: false },
    },
  });
  if (values.help) return null;
  if (values.table !== undefined && !values.recheck) throw new UsageError('--table goes with --recheck');
  if (values.recheck) {
    if (positionals.length > 0) throw new UsageError('--recheck takes no file (--table gives a table)');
    const table = values.table === undefined ? null : userPath(values.table);
    if (table !== null && !/\.json(\.gz)?$/i.test(table))
      throw new UsageError(`--table ${values.table}: a table as Siscomex publishes it, .json or .json.gz`);
    if (table !== null && !existsSync(table)) throw new UsageError(`--table ${values.table}: no such file`);
    return {
      kind: 'recheck' as const,
      table,
      dataDir: dataDirOf(values['data-dir']),
      outRoot: values.out ? userPath(values.out) : userPath(join('out', 'rechecks')),
    };
  }
  if (values.status !== undefined) {
    if (positionals.length > 0) throw new UsageError('--status takes a batch id, not a file');
    const batchId = values.status;
    // A batch id is `<batch name>-<10 characters>`: its results go where classify put them.
    const batchName = batchId.replace(/-[^-]+$/, '') || batchId;
    return {
      kind: 'status' as const,
      batchId,
      dataDir: dataDirOf(values['data-dir']),
      outDir: values.out ? userPath(values.out) : userPath(join('out', batchName)),
    };
  }
  const file = spreadsheetArgument(positionals, 'input file', 'inbox');
  if (isInvoiceFile(file) && values.sheets !== undefined)
    throw new UsageError('--sheets: an NF-e XML, or a ZIP of them, names no technical sheets');
  const sheetsDir = isInvoiceFile(file) ? undefined : sheetsFolderOption(values.sheets, file);
  const besideFile = join(dirname(file), 'batch.json');
  const optionsFile = values.options
    ? userPath(values.options)
    : existsSync(besideFile)
      ? besideFile
      : undefined;
  if (optionsFile && !existsSync(optionsFile))
    throw new UsageError(`--options ${values.options}: no such file`);
  const timeScale = parseTimeScale(values['time-scale']);
  const cap = parseCap(values.cap);
  const batchName = basename(file, extname(file));
  return {
    kind: 'classify' as const,
    file,
    sheetsDir,
    optionsFile,
    timeScale,
    cap,
    fresh: values.fresh ?? false,
    planOnly: values.plan ?? false,
    // Who sends the batch, for audit.csv, unless batch.json names someone.
    by: values.by?.trim() || userInfo().username || undefined,
    permissionChecks: !values['no-permission-checks'],
    dataDir: dataDirOf(values['data-dir']),
    outDir: values.out ? userPath(values.out) : userPath(join('out', batchName)),
    batchName,
  };
};

type Parsed = NonNullable<ReturnType<typeof parse>>;

const classifyOrStatus = (args: Parsed): Promise<number> =>
  args.kind === 'status' ? status(args) : args.kind === 'recheck' ? recheck(args) : classify(args);

const classify = async (args: Extract<Parsed, { kind: 'classify' }>): Promise<number> => {
  const { pipeline, simulated, timeScale } = await startCommandPipeline({
    dataDir: args.dataDir,
    fresh: args.fresh,
    timeScale: args.timeScale,
    cap: args.cap,
    permissionChecks: args.permissionChecks,
  });
  const signal = interruptSignal();
  try {
    if (simulated)
      console.log(
        'Verdicts are simulated by the built-in sandbox (set TCS_API_KEY and TCS_BASE_URL for the real service).',
      );
    const started = Date.now();
    const commandOptions = commandOptionsFile(args.optionsFile, {
      ...(args.planOnly ? { plan_only: true as const } : {}),
      ...(args.by ? { requested_by: args.by.slice(0, 200) } : {}),
    });
    const optionsFile = commandOptions.path;
    const { batchId } = await pipeline
      .submit({
        file: args.file,
        ...(args.sheetsDir ? { sheetsDir: args.sheetsDir } : {}),
        ...(optionsFile ? { optionsFile } : {}),
        batchName: args.batchName,
        ...(args.by ? { sentBy: args.by } : {}),
      })
      .finally(() => commandOptions.remove());
    console.log(
      `${args.planOnly ? 'Plan of batch' : 'Batch'} ${batchId}: ${shown(args.file)} (time scale ${timeScale})`,
    );

    // While it runs: partial results a finishing row asked for reach --out, and a `--status` from
    // another terminal is answered (status.ts).
    const servePartials = partialResultsServer(pipeline, args.dataDir, { batchId, out: args.outDir });
    let serving = Promise.resolve();
    const timer = setInterval(() => {
      serving = serving.then(servePartials).catch(() => undefined);
    }, 2_000);
    const outcome = await waitPrintingProgress(pipeline, batchId, started, signal).finally(async () => {
      clearInterval(timer);
      await serving;
    });

    const written = await pipeline.copyOutbox(batchId, args.outDir);
    const plan = args.planOnly ? readPlan(args.outDir) : null;
    if (plan) {
      printPlan(plan, args.file, args.outDir);
      return 0;
    }
    if (outcome.state === 'failed' || outcome.summary.stop) {
      // One line that says why; the files are still there for whoever wants the detail.
      console.error(
        `classify: ${couldNotRun(outcome.summary)} (details: ${shown(args.outDir)}/summary.json)`,
      );
      return 1;
    }
    printSummary(outcome.summary, args.outDir, written.length, Date.now() - started);
    return 0;
  } finally {
    await pipeline.close();
  }
};

/** The one line that says why a batch could not run. */
const couldNotRun = (summary: Record<string, unknown>): string => {
  const stop = summary.stop as { title?: string; detail?: string; type?: string } | undefined;
  // The problem that says why, in the batch's language, else the stop as recorded.
  const why = stoppingProblemOf(summary.problems) ?? sentencesOf(summary.problems)[0];
  if (stop) return `the batch stopped: ${why ?? (stop.detail || stop.title || stop.type)}`;
  return `the batch could not run: ${why ?? 'see summary.json'}`;
};

const printSummary = (summary: Record<string, unknown>, outDir: string, files: number, elapsedMs: number) => {
  const byStatus = (summary.by_status ?? {}) as Record<string, number>;
  const counts = Object.entries(byStatus)
    .filter(([, count]) => count > 0)
    .map(([status, count]) => `${status} ${count}`)
    .join(', ');
  const money = (value: unknown) => `$${Number(value ?? 0).toFixed(2)}`;
  console.log(
    [
      `Done in ${formatDuration(elapsedMs)}: ${summary.rows_total ?? 0} rows${counts ? ` (${counts})` : ''}.`,
      ...readNoticesOf(summary.problems).map((notice) => `Read: ${notice}`),
      `Billed ${money(summary.billed_usd)}, ${savingLine(summary)}.`,
      ...[ncmTableLine(summary)].filter((line): line is string => line !== null),
      `Results: ${shown(outDir)}/ (${files} files: results.xlsx and .csv, erp-update.csv, review.xlsx and .csv, summary.json, pdfs/)`,
      ...[checkLine(summary, shown(outDir))].filter((line): line is string => line !== null),
      // Said where the user looks, not only in summary.json: a column of sheets under a header
      // no alias knows would otherwise go unnoticed.
      ...sentencesOf(summary.warnings).map((warning) => `Look at: ${warning}`),
    ].join('\n'),
  );
};

runCommand('classify', USAGE, parse, classifyOrStatus);
