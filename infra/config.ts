/**
 * The app's configuration: CDK context, read once and validated with zod so a typo fails
 * synthesis with a sentence instead of deploying something half-configured.
 *
 *   cdk.json "context"  ─┐
 *   cdk -c key=value    ─┼─▶ app.node context ─▶ readPipelineConfig ─▶ PipelineConfig
 *   buildApp({context}) ─┘          (strings from the CLI are coerced: "-c capOverride=4")
 */
import { RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { IConstruct } from 'constructs';
import * as z from 'zod';
import { BATCH_WAIT } from '../shared/contract.js';

/**
 * The spec gives no production address (every path is relative to `{base_url}`), so there is
 * no honest default. Synthesis must still work from a fresh clone, so an unset `tcsBaseUrl`
 * becomes this address, which can never resolve (RFC 2606 `.invalid`), and the app warns.
 */
export const UNSET_TCS_BASE_URL = 'https://tcs.invalid/v1';

/** Context keys this app reads. */
const CONTEXT_KEYS = [
  'tcsBaseUrl',
  'capOverride',
  'retentionDays',
  'outboxRetentionDays',
  'batchTimeoutHours',
  'leaseScope',
  'alarmEmail',
  'auditLockDays',
  'noticeEmails',
  'questionReminderDay',
] as const;

const positiveInt = (max: number) => z.coerce.number().int().min(1).max(max);

/** CLI context values arrive as strings; an empty string means "not given". */
const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => (value === '' || value === null ? undefined : value), schema.optional());

const PipelineContext = z
  .object({
    /** The service's base URL, ending with the version segment `/v1`. */
    tcsBaseUrl: optional(
      z
        .url({ protocol: /^https$/, error: 'must be an https:// URL' })
        .refine((url) => /\/v1\/?$/.test(url), 'must end with the version segment /v1 (the spec says so)')
        .transform((url) => url.replace(/\/$/, '')),
    ),
    /** A lower cap than the organisation's `concurrency_limit`, to leave room for other clients. */
    capOverride: optional(positiveInt(1000)),
    /** Days to keep noncurrent object versions, logs and access logs. */
    retentionDays: z.preprocess((v) => (v === '' ? undefined : v), positiveInt(3653).default(90)),
    /**
     * Days to keep `outbox/` objects. Absent: kept. Reused verdicts point at the PDF in the
     * outbox of the batch that resolved them, so this must outlast `reuse_max_age_days`.
     */
    outboxRetentionDays: optional(positiveInt(3653)),
    /**
     * The most the Batch workflow waits for its rows (WaitForRows): Prepare sizes each batch's wait
     * from its rows at the cap (72 h to a year) and never passes this. Absent: no ceiling but the
     * year. Also how long an answers round waits (72 h when absent).
     */
    batchTimeoutHours: optional(positiveInt(Math.floor(BATCH_WAIT.longestSeconds / 3600))),
    /** The cap scope: all batches of one organisation (one API key) share a scope. */
    leaseScope: z.preprocess(
      (v) => (v === '' ? undefined : v),
      z
        .string()
        .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'must be 1–64 characters of letters, digits, _ . -')
        .default('org'),
    ),
    /** Where alarms are emailed; absent: alarms without actions. */
    alarmEmail: optional(z.email()),
    /**
     * Days each version of a batch's audit.csv (and each write's own copy) stays under S3 Object
     * Lock, governance mode: nobody without the bypass permission can delete or overwrite it before.
     * Five years by default: as long as a tax authority may question what was declared.
     */
    auditLockDays: z.preprocess((v) => (v === '' ? undefined : v), positiveInt(36_500).default(1826)),
    /**
     * Who the topic of notices emails (a batch finished, questions wait, verdicts to check): a list,
     * or one string of addresses separated by commas (`-c noticeEmails=a@x.com,b@x.com`). Each
     * address confirms its subscription from the email SNS sends. Others subscribe themselves.
     */
    noticeEmails: z.preprocess(
      (v) =>
        typeof v === 'string'
          ? v
              .split(',')
              .map((address) => address.trim())
              .filter(Boolean)
          : (v ?? []),
      z.array(z.email()).max(20),
    ),
    /**
     * The day after a row's questions were asked that the daily sweep reminds the topic's
     * subscribers they still wait, with the days left before the service abandons them on day 30.
     */
    questionReminderDay: z.preprocess((v) => (v === '' ? undefined : v), positiveInt(29).default(21)),
  })
  .superRefine((value, ctx) => {
    if (value.outboxRetentionDays !== undefined && value.outboxRetentionDays < value.retentionDays) {
      // Not an error of form but of intent: the outbox would go before its own logs.
      ctx.addIssue({
        code: 'custom',
        path: ['outboxRetentionDays'],
        message: 'must be at least retentionDays',
      });
    }
  });
type PipelineContext = z.infer<typeof PipelineContext>;

export type PipelineConfig = Omit<PipelineContext, 'tcsBaseUrl'> & {
  tcsBaseUrl: string;
  /** False when `tcsBaseUrl` was not given and {@link UNSET_TCS_BASE_URL} stands in. */
  tcsBaseUrlConfigured: boolean;
  /** `retentionDays` rounded up to a value CloudWatch Logs accepts. */
  logRetention: RetentionDays;
};

export class InvalidContextError extends Error {
  override readonly name = 'InvalidContextError';
}

/** CloudWatch Logs accepts only these retention periods (days). */
const LOG_RETENTION_DAYS: readonly number[] = Object.values(RetentionDays)
  .filter((days): days is number => typeof days === 'number' && days !== RetentionDays.INFINITE)
  .sort((a, b) => a - b);

export const logRetentionFor = (days: number): RetentionDays =>
  (LOG_RETENTION_DAYS.find((allowed) => allowed >= days) ?? RetentionDays.TEN_YEARS) as RetentionDays;

/** Parses a plain context object; throws {@link InvalidContextError} listing every problem. */
export const parsePipelineContext = (context: Record<string, unknown>): PipelineConfig => {
  const parsed = PipelineContext.safeParse(context);
  if (!parsed.success) {
    const problems = parsed.error.issues.map(
      (issue) => `  ${issue.path.join('.') || 'context'}: ${issue.message}`,
    );
    throw new InvalidContextError(
      `Invalid CDK context (infra/README.md, "Configuration"); give it with -c key=value:\n${problems.join('\n')}`,
    );
  }
  const { tcsBaseUrl, ...rest } = parsed.data;
  return {
    ...rest,
    tcsBaseUrl: tcsBaseUrl ?? UNSET_TCS_BASE_URL,
    tcsBaseUrlConfigured: tcsBaseUrl !== undefined,
    logRetention: logRetentionFor(rest.retentionDays),
  };
};

/** Reads this app's keys from the construct tree's context (cdk.json, `-c`, or `new App({ context })`). */
export const readPipelineConfig = (scope: IConstruct): PipelineConfig =>
  parsePipelineContext(Object.fromEntries(CONTEXT_KEYS.map((key) => [key, scope.node.tryGetContext(key)])));
