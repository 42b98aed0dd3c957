/** What every local command shares: where the user's paths are, where state lives, which service. */
import { existsSync, statSync } from 'node:fs';
import { basename, dirname, extname, isAbsolute, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type DropArea, droppedFileExtensions } from '../../shared/pipeline/core/bucket-layout.js';
import { type LocalPipeline, startLocalPipeline } from '../runtime/pipeline.js';

/**
 * A mistake in the command line, exit code 2: printed with the usage when parsing finds it,
 * on one line when the command finds it later (an id that needs another subcommand).
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

const ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/**
 * `npm run` starts scripts in the package root; the user's relative paths are relative to
 * where they typed the command, which npm keeps in INIT_CWD.
 */
export const userPath = (path: string): string =>
  isAbsolute(path) ? path : resolve(process.env.INIT_CWD ?? process.cwd(), path);

/** `--data-dir`, else NCM_DATA_DIR, else `.local-data/` in the repository (git-ignored). */
export const dataDirOf = (flag: string | undefined): string =>
  flag
    ? userPath(flag)
    : process.env.NCM_DATA_DIR
      ? userPath(process.env.NCM_DATA_DIR)
      : join(ROOT, '.local-data');

/**
 * The real service when both variables are set; null for the built-in sandbox. One without
 * the other is a mistake worth stopping for: the user meant the real service.
 */
const serviceFromEnvironment = (): { baseUrl: string; apiKey: string } | null => {
  const apiKey = process.env.TCS_API_KEY?.trim();
  const baseUrl = process.env.TCS_BASE_URL?.trim();
  if (!apiKey && !baseUrl) return null;
  if (!apiKey || !baseUrl) {
    throw new UsageError(
      `set both TCS_API_KEY and TCS_BASE_URL for the real service (only ${apiKey ? 'TCS_API_KEY' : 'TCS_BASE_URL'} is set)`,
    );
  }
  return { apiKey, baseUrl };
};

/** A path as the user would type it: relative below where they are, absolute elsewhere. */
export const shown = (path: string): string => {
  const fromHere = relative(process.env.INIT_CWD ?? process.cwd(), path);
  return fromHere && !fromHere.startsWith('..') ? fromHere : path;
};

/**
 * A command's whole life: the arguments parsed (any error there prints the usage, exit 2; null
 * means `--help`), then `run`, whose number is the exit code; an unexpected error is said in one
 * line, exit 1.
 */
export const runCommand = <Args>(
  name: string,
  usage: string,
  parse: (argv: string[]) => Args | null,
  run: (args: Args) => Promise<number>,
): void => {
  // A reader that stops early (`npm run review -- list | head`) closes the pipe: what is left to
  // print has nowhere to go, and the command still finishes and stops what it started.
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE' && error.code !== 'ERR_STREAM_DESTROYED') throw error;
  });
  const main = async (): Promise<number> => {
    let args: Args | null;
    try {
      args = parse(process.argv.slice(2));
    } catch (error) {
      console.error(`${name}: ${(error as Error).message}\n\n${usage}`);
      return 2;
    }
    if (args === null) {
      console.log(usage);
      return 0;
    }
    return run(args);
  };
  // Whatever stops a command is said on one line: what is wrong, not a stack.
  main().then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      console.error(`${name}: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = error instanceof UsageError ? 2 : 1;
    },
  );
};

/** Ctrl-C stops the wait, and the pipeline closes as it would at the end. */
export const interruptSignal = (): AbortSignal => {
  const stop = new AbortController();
  process.once('SIGINT', () => stop.abort());
  return stop.signal;
};

/** On the sandbox a run lasts 45–75 s × F: 0.25 takes the sample through in about a minute. */
const SANDBOX_TIME_SCALE = 0.25;

/** `--time-scale F`: null when not given. */
export const parseTimeScale = (text: string | undefined): number | null => {
  if (text === undefined) return null;
  const timeScale = Number(text);
  if (!(timeScale > 0 && timeScale <= 10))
    throw new UsageError('--time-scale must be a number above 0 and at most 10');
  return timeScale;
};

/** `--cap N`: null when not given. */
export const parseCap = (text: string | undefined): number | null => {
  if (text === undefined) return null;
  const cap = Number(text);
  if (!(Number.isInteger(cap) && cap >= 1)) throw new UsageError('--cap must be a positive integer');
  return cap;
};

/**
 * The local pipeline a command runs on: the real service when the environment names one (time
 * scale 1 unless given), else the built-in sandbox (SANDBOX_TIME_SCALE unless given).
 */
export const startCommandPipeline = async (options: {
  dataDir: string;
  timeScale: number | null;
  cap?: number | null;
  fresh?: boolean;
  /** The console: uploads from a browser start batches through S3's notifications. */
  bucketNotifications?: boolean;
  /** `--no-permission-checks`: the functions' calls are not weighed against their roles. */
  permissionChecks?: boolean;
}): Promise<{ pipeline: LocalPipeline; simulated: boolean; timeScale: number }> => {
  const service = serviceFromEnvironment();
  const timeScale = options.timeScale ?? (service ? 1 : SANDBOX_TIME_SCALE);
  const pipeline = await startLocalPipeline({
    dataDir: options.dataDir,
    fresh: options.fresh ?? false,
    timeScale,
    service,
    capOverride: options.cap ?? null,
    bucketNotifications: options.bucketNotifications ?? false,
    permissionChecks: options.permissionChecks ?? true,
  });
  if (options.permissionChecks === false) console.log(PERMISSION_CHECKS_OFF);
  return { pipeline, simulated: service === null, timeScale };
};

const PERMISSION_CHECKS_OFF =
  "Permission checks are off (--no-permission-checks): the functions' calls are not checked against their IAM roles.";

/** `--no-permission-checks`, the same words in every command's usage. */
export const PERMISSION_CHECKS_USAGE =
  "  --no-permission-checks  do not check the functions' calls against their IAM roles (checked by default)";

/**
 * The command's one spreadsheet argument (`what` names it in the message), as the bucket's rules
 * take a file dropped in `area`: an existing .csv, .txt, .tsv or .xlsx (`.txt` and `.tsv`: Excel's
 * text saves, read by their content like a CSV); a catalogue (`inbox`) may also be an NF-e's .xml
 * or a .zip of them.
 */
export const spreadsheetArgument = (
  positionals: readonly string[],
  what: string,
  area: DropArea = 'answers',
): string => {
  if (positionals.length !== 1) throw new UsageError(`give exactly one ${what}`);
  const file = userPath(positionals[0] as string);
  if (!existsSync(file) || !statSync(file).isFile()) throw new UsageError(`no such file: ${file}`);
  const accepted = droppedFileExtensions(area).map((extension) => `.${extension}`);
  if (!accepted.includes(extname(file).toLowerCase()))
    throw new UsageError(
      `${basename(file)}: the ${what} must be a ${accepted.slice(0, -1).join(', ')} or ${accepted.at(-1)} file`,
    );
  return file;
};

/** An NF-e's XML or a ZIP of them: a catalogue that names no technical sheets. */
export const isInvoiceFile = (file: string): boolean => /\.(xml|zip)$/i.test(file);

/** `--sheets DIR`, by default the spreadsheet's own folder. */
export const sheetsFolderOption = (flag: string | undefined, file: string): string => {
  const folder = flag ? userPath(flag) : dirname(file);
  if (!existsSync(folder) || !statSync(folder).isDirectory())
    throw new UsageError(`--sheets ${flag}: not a folder`);
  return folder;
};
