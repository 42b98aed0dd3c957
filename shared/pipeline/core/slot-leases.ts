/**
 * Slot leases: how the pipeline keeps the organisation's classifications in progress
 * under the service's cap (docs/architecture.md, property 1).
 *
 * A classification stays `in_progress` at the service for about a minute after the Lambda
 * that created it has returned, so Lambda concurrency cannot bound it. Instead a row holds
 * a lease from before its POST until the classification leaves `in_progress`:
 *
 *   acquire ─▶ POST /classifications ─▶ poll … poll (renewed) ─────▶ final/pending_data ─▶ release
 *      │                                                                                     │
 *      └────────────────────── holder = the row attempt, not the execution ──────────────────┘
 *
 * Idempotent by holder: acquiring a lease already held succeeds (and renews it), releasing
 * one not held is a no-op. A lease whose holder died is recovered once its expiry passes.
 * The one real implementation is DynamoDB's (shared/aws/dynamo-slot-leases.ts).
 */

/** One lease: who holds it (a row attempt) and when it expires (epoch ms) unless renewed. */
export type Lease = { holder: string; expiresAt: number };

/**
 * What asking for a lease gives: taken (or already held by the same holder), with the leases now in
 * use; or refused because the cap is reached, with the expired leases it recovered on the way.
 */
export type AcquireResult =
  | { acquired: true; alreadyHeld: boolean; inUse: number }
  | { acquired: false; inUse: number; recovered: string[] };

/**
 * The leases on the organisation's slots: take one for a row attempt under the cap, renew it while
 * the classification runs, release it once the classification leaves `in_progress`.
 */
export type SlotLeases = {
  acquire(input: { holder: string; cap: number; ttlMs: number; now: number }): Promise<AcquireResult>;
  /** Pushes the expiry forward; false when the lease is no longer held (it expired and was recovered). */
  renew(input: { holder: string; ttlMs: number; now: number }): Promise<boolean>;
  /** True when this call released it; false when it was not held (already released). */
  release(holder: string): Promise<boolean>;
  /** Every lease held now, expired ones included until they are recovered. */
  list(): Promise<Lease[]>;
  /** Removes leases expired at `now`; returns their holders. */
  recoverExpired(now: number): Promise<string[]>;
};
