/**
 * Injected faults, so a client's retry and idempotency logic can be exercised (issue,
 * point 6). They apply to `/v1` routes only — never to the admin API or to signed URLs —
 * and are drawn from a PRNG seeded by the sandbox seed: the same seed and the same
 * sequence of requests meet the same faults.
 *
 * Per request, in this order: `latency_ms` delay; `maintenance` 503; `reset_before` (drop
 * the connection, nothing done); `http5xx` (500/502/503, nothing done); `rate_limit_burst`
 * (a spurious 429, nothing done); the request itself; `reset_after` (drop the connection
 * after the request took effect: the response is lost).
 */
import * as z from 'zod';
import { type FieldError, type ProblemName, toFieldErrors } from '../../shared/tcs/schemas.js';
import { seededStream } from './core/random.js';

const Rate = z.number().min(0, 'must be a rate from 0 to 1').max(1, 'must be a rate from 0 to 1');

/** The admin API's and the CLI's fault settings; every key optional, unknown keys refused. */
export const FaultSettings = z.strictObject({
  http5xx: Rate.optional(),
  reset_before: Rate.optional(),
  reset_after: Rate.optional(),
  latency_ms: z.number().int('must be a whole number of milliseconds').min(0).max(120_000).optional(),
  rate_limit_burst: Rate.optional(),
  maintenance: z
    .union([z.boolean(), z.literal(0), z.literal(1)], { message: 'must be true, false, 1 or 0' })
    .transform((v) => v === true || v === 1)
    .optional(),
});
export type FaultSettings = z.input<typeof FaultSettings>;
export type Faults = Required<z.output<typeof FaultSettings>>;

const NO_FAULTS: Faults = {
  http5xx: 0,
  reset_before: 0,
  reset_after: 0,
  latency_ms: 0,
  rate_limit_burst: 0,
  maintenance: false,
};

export type FaultParse = { ok: true; faults: Partial<Faults> } | { ok: false; errors: FieldError[] };

/** Validates a JSON object of fault settings (`POST /__admin/faults`, `startSandbox({ faults })`). */
export const parseFaultSettings = (value: unknown): FaultParse => {
  const result = FaultSettings.safeParse(value);
  if (!result.success) return { ok: false, errors: toFieldErrors(result.error) };
  const faults: Partial<Faults> = {};
  for (const [key, v] of Object.entries(result.data))
    if (v !== undefined) Object.assign(faults, { [key]: v });
  return { ok: true, faults };
};

/** `--faults http5xx=0.1,reset_after=0.05,maintenance=1` → settings (same rules as the JSON form). */
export const parseFaultSpec = (spec: string): FaultParse => {
  const object: Record<string, unknown> = {};
  const errors: FieldError[] = [];
  for (const part of spec
    .split(',')
    .map((p) => p.trim())
    .filter((p) => p !== '')) {
    const match = /^([a-z0-9_]+)\s*=\s*(.+)$/i.exec(part);
    if (!match) {
      errors.push({ field: part, code: 'invalid_format', message: 'must be key=value' });
      continue;
    }
    const [, key, raw] = match as unknown as [string, string, string];
    const text = raw.trim().toLowerCase();
    if (text === 'true' || text === 'on') object[key] = true;
    else if (text === 'false' || text === 'off') object[key] = false;
    else if (/^-?\d+(\.\d+)?$/.test(text)) object[key] = Number(text);
    else errors.push({ field: key, code: 'invalid_value', message: `"${raw}" is not a number or boolean` });
  }
  if (errors.length > 0) return { ok: false, errors };
  return parseFaultSettings(object);
};

/** What happens to one request, decided when it arrives. */
export type FaultPlan = {
  latencyMs: number;
  maintenance: boolean;
  resetBefore: boolean;
  /** The injected server error, if any. */
  serverError: Extract<
    ProblemName,
    'internal-error' | 'upstream-unavailable' | 'classifier-unavailable'
  > | null;
  rateLimited: boolean;
  resetAfter: boolean;
};

const SERVER_ERRORS = ['internal-error', 'upstream-unavailable', 'classifier-unavailable'] as const;

export type FaultCounts = Record<
  'maintenance' | 'reset_before' | 'http5xx' | 'rate_limit_burst' | 'reset_after',
  number
>;

export class FaultInjector {
  private faults: Faults = { ...NO_FAULTS };
  private random: () => number;
  private counts: FaultCounts = FaultInjector.zeroCounts();

  constructor(private readonly seed: string) {
    this.random = seededStream(`${seed}\u0000faults`);
  }

  private static zeroCounts(): FaultCounts {
    return { maintenance: 0, reset_before: 0, http5xx: 0, rate_limit_burst: 0, reset_after: 0 };
  }

  current(): Faults {
    return { ...this.faults };
  }

  /** Merges settings into the current ones (keys not given keep their value). */
  apply(settings: Partial<Faults>): Faults {
    this.faults = { ...this.faults, ...settings };
    return this.current();
  }

  /** No faults, a fresh PRNG and zero counts (`POST /__admin/reset`). */
  reset(): void {
    this.faults = { ...NO_FAULTS };
    this.random = seededStream(`${this.seed}\u0000faults`);
    this.counts = FaultInjector.zeroCounts();
  }

  injected(): FaultCounts {
    return { ...this.counts };
  }

  /** Decides every fault of a request up front, so the draws follow arrival order. */
  plan(): FaultPlan {
    const f = this.faults;
    const roll = (rate: number): boolean => rate > 0 && this.random() < rate;
    const plan: FaultPlan = {
      latencyMs: f.latency_ms,
      maintenance: f.maintenance,
      resetBefore: false,
      serverError: null,
      rateLimited: false,
      resetAfter: false,
    };
    if (plan.maintenance) {
      this.counts.maintenance++;
      return plan;
    }
    if (roll(f.reset_before)) {
      plan.resetBefore = true;
      this.counts.reset_before++;
    } else if (roll(f.http5xx)) {
      plan.serverError = SERVER_ERRORS[Math.floor(this.random() * SERVER_ERRORS.length)]!;
      this.counts.http5xx++;
    } else if (roll(f.rate_limit_burst)) {
      plan.rateLimited = true;
      this.counts.rate_limit_burst++;
    } else if (roll(f.reset_after)) {
      plan.resetAfter = true;
      this.counts.reset_after++;
    }
    return plan;
  }
}
