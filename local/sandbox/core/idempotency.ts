/**
 * Idempotency keys per organisation (spec, Idempotency). A key is reserved while its first
 * request is being processed, then holds that request's response for 24 hours of sandbox
 * time. Only accepted requests are kept: a request that failed (validation, cap, not found)
 * releases its reservation, so the caller can fix it and try again with the same key.
 */
import { createHash } from 'node:crypto';
import { LIMITS } from '../../../shared/tcs/schemas.js';
import { HOUR_MS } from './clock.js';

const IDEMPOTENCY_LIFETIME_MS = LIMITS.idempotencyKeyLifetimeHours * HOUR_MS;

export type StoredResponse = { status: number; body: unknown };

type Entry =
  | { state: 'in_flight'; fingerprint: string; createdAt: number }
  | { state: 'done'; fingerprint: string; createdAt: number; response: StoredResponse };

export type DoneEntry = Extract<Entry, { state: 'done' }>;

export type Reservation =
  | { outcome: 'reserved' }
  | { outcome: 'replay'; response: StoredResponse }
  | { outcome: 'reused' }
  | { outcome: 'in_flight' };

/** Key order, whitespace and number spelling do not change a body's identity. */
const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : 1));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
};

/** What "the same request" means: same method, same path, same JSON body. */
export const requestFingerprint = (method: string, path: string, body: unknown): string =>
  createHash('sha256')
    .update(`${method} ${path}\n${canonicalJson(body)}`)
    .digest('hex');

export class IdempotencyStore {
  private entries = new Map<string, Entry>();

  constructor(private readonly lifetimeMs = IDEMPOTENCY_LIFETIME_MS) {}

  private static slot(orgId: string, key: string): string {
    return `${orgId}\u0000${key}`;
  }

  private live(orgId: string, key: string, now: number): Entry | undefined {
    const slot = IdempotencyStore.slot(orgId, key);
    const entry = this.entries.get(slot);
    if (entry && entry.state === 'done' && now - entry.createdAt >= this.lifetimeMs) {
      this.entries.delete(slot);
      return undefined;
    }
    return entry;
  }

  /** Looks the key up and, when it is free, reserves it for this request. */
  reserve(orgId: string, key: string, fingerprint: string, now: number): Reservation {
    const entry = this.live(orgId, key, now);
    if (!entry) {
      this.entries.set(IdempotencyStore.slot(orgId, key), {
        state: 'in_flight',
        fingerprint,
        createdAt: now,
      });
      return { outcome: 'reserved' };
    }
    // While the first request runs its outcome is unknown: the caller waits, whatever it sent.
    if (entry.state === 'in_flight') return { outcome: 'in_flight' };
    if (entry.fingerprint !== fingerprint) return { outcome: 'reused' };
    return { outcome: 'replay', response: entry.response };
  }

  /** The request succeeded: keep its response for replays until the key's lifetime ends. */
  complete(orgId: string, key: string, response: StoredResponse): void {
    const slot = IdempotencyStore.slot(orgId, key);
    const entry = this.entries.get(slot);
    if (!entry) return;
    // The lifetime runs from the key's first use.
    this.entries.set(slot, {
      state: 'done',
      fingerprint: entry.fingerprint,
      createdAt: entry.createdAt,
      response,
    });
  }

  /** The request failed: free the key. */
  release(orgId: string, key: string): void {
    const slot = IdempotencyStore.slot(orgId, key);
    if (this.entries.get(slot)?.state === 'in_flight') this.entries.delete(slot);
  }

  /** Requests being processed right now (their keys answer 409 in flight). */
  inFlight(): number {
    let count = 0;
    for (const entry of this.entries.values()) if (entry.state === 'in_flight') count++;
    return count;
  }

  /** Drops expired keys (memory hygiene; lookups already ignore them). */
  purge(now: number): void {
    for (const [slot, entry] of this.entries) {
      if (entry.state === 'done' && now - entry.createdAt >= this.lifetimeMs) this.entries.delete(slot);
    }
  }

  /** Completed entries only: a reservation dies with the process that held it. */
  snapshot(): Record<string, DoneEntry> {
    const out: Record<string, DoneEntry> = {};
    for (const [slot, entry] of this.entries) if (entry.state === 'done') out[slot] = entry;
    return out;
  }

  restore(snapshot: Record<string, DoneEntry>): void {
    this.entries = new Map(Object.entries(snapshot));
  }

  clear(): void {
    this.entries.clear();
  }
}
