/**
 * The one retry policy of the service client, taken from the spec's Errors rules:
 *
 * - 5xx and network failures: retry with growing, jittered waits. The caller keeps the
 *   same Idempotency-Key on every try, so a POST whose response was lost is replayed,
 *   not created (and billed) twice.
 * - 409 `idempotency-key-in-flight` and 429: wait (`Retry-After` when given) and retry.
 * - Any other 4xx: never retried; something must change first.
 *
 * Bounded twice: by attempts and by total elapsed time. A wait that would end past the
 * time budget is not started; the last error is thrown at once, carrying `retryAfterMs`
 * so a caller with a better place to wait (a queue with a delay) can use it.
 *
 *   attempt 1 ──✗ 503──▶ wait ~0.5 s ──▶ attempt 2 ──✗ reset──▶ wait ~1 s ──▶ attempt 3 ──✓
 *                         (same Idempotency-Key on all three)
 */
import { TcsError, TcsProblemError } from './errors.js';

export type RetryPolicy = {
  /** Total tries, the first included. 1 disables retries. */
  maxAttempts: number;
  /** Budget for all tries and waits together, in milliseconds. */
  maxElapsedMs: number;
  /** Wait before the second try; doubles after each try. */
  baseDelayMs: number;
  /** Ceiling of one computed wait (a `Retry-After` may ask for longer, within the budget). */
  maxDelayMs: number;
  /**
   * Whether 429 `rate-limited` is waited out here. The pipeline turns this off for
   * creation: a row that meets the cap goes back to its queue instead of holding a Lambda.
   */
  retryRateLimited: boolean;
};

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 6,
  maxElapsedMs: 60_000,
  baseDelayMs: 500,
  maxDelayMs: 15_000,
  retryRateLimited: true,
};

/** Injected so tests control time without sleeping. */
export type Timer = {
  now(): number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  /** Uniform in [0, 1). */
  random(): number;
};

export const systemTimer: Timer = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise<void>((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason);
      const timer = setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      const onAbort = () => {
        clearTimeout(timer);
        reject(signal?.reason);
      };
      signal?.addEventListener('abort', onAbort, { once: true });
    }),
  random: () => Math.random(),
};

/**
 * Exponential backoff with "equal jitter": half the step is fixed, half random. Waits
 * grow from try to try (unlike full jitter) yet two clients never wait in lock-step.
 */
export const backoffDelay = (policy: RetryPolicy, failedAttempt: number, random: number): number => {
  const step = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
  return Math.round(step / 2 + (step / 2) * random);
};

/** Whether an error may be retried under the policy. */
const shouldRetry = (policy: RetryPolicy, error: unknown): boolean => {
  if (!(error instanceof TcsError) || !error.retryable) return false;
  if (error instanceof TcsProblemError && error.status === 429) return policy.retryRateLimited;
  return true;
};

export type RetryEvent = { attempt: number; delayMs: number; error: TcsError };

/**
 * Runs `attempt` until it succeeds, the error is not retryable, or the budget runs out.
 * The thrown error records how many attempts were made.
 */
export const withRetry = async <T>(
  policy: RetryPolicy,
  timer: Timer,
  attempt: (attemptNumber: number) => Promise<T>,
  options: { signal?: AbortSignal; onRetry?: (event: RetryEvent) => void } = {},
): Promise<T> => {
  const startedAt = timer.now();
  for (let n = 1; ; n++) {
    try {
      return await attempt(n);
    } catch (error) {
      if (error instanceof TcsError) error.attempts = n;
      if (n >= policy.maxAttempts || !shouldRetry(policy, error)) throw error;
      const tcsError = error as TcsError;
      const retryAfter = tcsError instanceof TcsProblemError ? tcsError.retryAfterMs : null;
      const delayMs = retryAfter ?? backoffDelay(policy, n, timer.random());
      const elapsed = timer.now() - startedAt;
      if (elapsed + delayMs > policy.maxElapsedMs) throw error;
      options.onRetry?.({ attempt: n, delayMs, error: tcsError });
      await timer.sleep(delayMs, options.signal);
    }
  }
};
