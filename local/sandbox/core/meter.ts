/**
 * What the sandbox owes tests an exact account of: the billing meter (USD 2.00 per API
 * classification when it resolves, once) and the concurrency gauge (API classifications in
 * progress per organisation, its maximum, and its integral over sandbox time).
 *
 * Both are fed by the engine in sandbox-time order — including the transitions it replays
 * when the clock jumps — so their figures do not depend on when anybody looked.
 */
import { PRICE_PER_RESOLVED_USD } from '../../../shared/tcs/schemas.js';

export type MeterSnapshot = {
  /** Per organisation: classification id → times billed (1 unless something is wrong). */
  billed: Record<string, Record<string, number>>;
};

export class BillingMeter {
  private billed = new Map<string, Map<string, number>>();

  /** Records a charge. Returns false when that classification was already billed (and bills nothing). */
  bill(orgId: string, classificationId: string): boolean {
    const org = this.billed.get(orgId) ?? new Map<string, number>();
    this.billed.set(orgId, org);
    const times = org.get(classificationId) ?? 0;
    if (times > 0) return false;
    org.set(classificationId, times + 1);
    return true;
  }

  summary(orgId: string): {
    billed_count: number;
    billed_usd: number;
    billed_per_classification: Record<string, number>;
  } {
    const org = this.billed.get(orgId) ?? new Map<string, number>();
    let count = 0;
    for (const times of org.values()) count += times;
    return {
      billed_count: count,
      billed_usd: count * PRICE_PER_RESOLVED_USD,
      billed_per_classification: Object.fromEntries(org),
    };
  }

  snapshot(): MeterSnapshot {
    return {
      billed: Object.fromEntries([...this.billed].map(([org, map]) => [org, Object.fromEntries(map)])),
    };
  }

  restore(snapshot: MeterSnapshot): void {
    this.billed = new Map(
      Object.entries(snapshot.billed).map(([org, record]) => [org, new Map(Object.entries(record))]),
    );
  }
}

type GaugeState = { current: number; max: number; integralMs: number; lastAt: number };

export type GaugeSnapshot = Record<string, GaugeState>;

/**
 * Classifications in progress per organisation, integrated over sandbox time. `change` and
 * `settle` must be called with non-decreasing times; an earlier time is clamped to the last
 * one seen (it can only come from a caller bug, and clamping keeps the integral monotonic).
 */
export class ConcurrencyGauge {
  private orgs = new Map<string, GaugeState>();

  private stateOf(orgId: string, at: number): GaugeState {
    let state = this.orgs.get(orgId);
    if (!state) {
      state = { current: 0, max: 0, integralMs: 0, lastAt: at };
      this.orgs.set(orgId, state);
    }
    return state;
  }

  private integrate(state: GaugeState, at: number): void {
    if (at > state.lastAt) {
      state.integralMs += state.current * (at - state.lastAt);
      state.lastAt = at;
    }
  }

  change(orgId: string, delta: 1 | -1, at: number): void {
    const state = this.stateOf(orgId, at);
    this.integrate(state, at);
    state.current = Math.max(0, state.current + delta);
    state.max = Math.max(state.max, state.current);
  }

  /** Integrates every organisation up to `at` (before reading the figures). */
  settle(at: number): void {
    for (const state of this.orgs.values()) this.integrate(state, at);
  }

  figures(orgId: string): { in_progress_now: number; in_progress_max: number; slot_seconds: number } {
    const state = this.orgs.get(orgId);
    return {
      in_progress_now: state?.current ?? 0,
      in_progress_max: state?.max ?? 0,
      slot_seconds: (state?.integralMs ?? 0) / 1000,
    };
  }

  organizations(): string[] {
    return [...this.orgs.keys()];
  }

  snapshot(): GaugeSnapshot {
    return Object.fromEntries([...this.orgs].map(([org, s]) => [org, { ...s }]));
  }

  restore(snapshot: GaugeSnapshot): void {
    this.orgs = new Map(Object.entries(snapshot).map(([org, s]) => [org, { ...s }]));
  }
}
