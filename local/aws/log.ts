/**
 * The stand-ins' log. Requests are `debug`; lifecycle and background failures `info`/`warn`.
 * Nothing logs a message body, a task token, a secret value or a Lambda payload at any level:
 * callers pass names, ids and counts only.
 */
type LocalAwsLogLevel = 'debug' | 'info' | 'warn' | 'error';

export type LocalAwsLog = (level: LocalAwsLogLevel, event: string, fields?: Record<string, unknown>) => void;

const RANK: Record<LocalAwsLogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3 };

/** One JSON object per line on stderr, `info` and above. */
const stderrLog: LocalAwsLog = (level, event, fields) => {
  if (RANK[level] < RANK.info) return;
  process.stderr.write(
    `${JSON.stringify({ t: new Date().toISOString(), level, component: 'local-aws', event, ...fields })}\n`,
  );
};

const silentLog: LocalAwsLog = () => undefined;

export const logSinkOf = (log: LocalAwsLog | 'stderr' | 'silent' | undefined): LocalAwsLog => {
  if (log === 'silent') return silentLog;
  if (log === undefined || log === 'stderr') return stderrLog;
  return log;
};

export const errorText = (error: unknown): string =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);
