/**
 * The SlotLeases contract: what the dispatcher and the Row steps rely on to keep the
 * organisation's classifications in progress under the cap, whichever implementation
 * serves it. A subject hands out the leases of a cap scope: two calls with the same scope
 * are two processes (two Lambdas) sharing it.
 */
import { describe, expect, it } from 'vitest';
import type { Lease, SlotLeases } from '../../shared/pipeline/core/slot-leases.js';
import { type Implementation, useImplementation } from './implementation.js';

export type LeaseScopes = (scope: string) => SlotLeases;

const TTL = 60_000;
const NOW = Date.parse('2026-11-21T12:00:00Z');

const byHolder = (leases: readonly Lease[]) => [...leases].sort((a, b) => a.holder.localeCompare(b.holder));

export const describeSlotLeasesContract = (name: string, implementation: Implementation<LeaseScopes>) =>
  describe(`SlotLeases contract: ${name}`, () => {
    const scopes = useImplementation(implementation);
    const leases = () => scopes()('org-1');
    const acquire = (holder: string, cap: number, now = NOW) =>
      leases().acquire({ holder, cap, ttlMs: TTL, now });

    describe('acquire', () => {
      it('grants a free slot on a scope never used before', async () => {
        // Act
        const result = await acquire('b:1#a1', 10);

        // Assess
        expect(result).toEqual({ acquired: true, alreadyHeld: false, inUse: 1 });
        expect(await leases().list()).toEqual([{ holder: 'b:1#a1', expiresAt: NOW + TTL }]);
      });

      it('is idempotent per holder: a retry holds the same one slot and renews it', async () => {
        // Prepare
        await acquire('b:1#a1', 10);

        // Act
        const again = await acquire('b:1#a1', 10, NOW + 5_000);

        // Assess
        expect(again).toEqual({ acquired: true, alreadyHeld: true, inUse: 1 });
        expect(await leases().list()).toEqual([{ holder: 'b:1#a1', expiresAt: NOW + 5_000 + TTL }]);
      });

      it('is idempotent per holder even when the scope is full, or the cap was lowered below it', async () => {
        // Prepare
        for (let i = 1; i <= 3; i++) await acquire(`b:${i}#a1`, 3);

        // Act
        const full = await acquire('b:2#a1', 3);
        const lowered = await acquire('b:3#a1', 1);

        // Assess
        expect(full).toEqual({ acquired: true, alreadyHeld: true, inUse: 3 });
        expect(lowered).toEqual({ acquired: true, alreadyHeld: true, inUse: 3 });
        expect(await leases().list()).toHaveLength(3);
      });

      it('refuses a new holder when the scope is full, saying how many slots are in use', async () => {
        // Prepare
        await acquire('b:1#a1', 2);
        await acquire('b:2#a1', 2);

        // Act
        const refused = await acquire('b:3#a1', 2);

        // Assess
        expect(refused).toEqual({ acquired: false, inUse: 2, recovered: [] });
        expect(byHolder(await leases().list()).map((lease) => lease.holder)).toEqual(['b:1#a1', 'b:2#a1']);
      });

      it('refuses a new holder when the cap is lowered below what is held, and at cap 0', async () => {
        // Prepare
        await acquire('b:1#a1', 10);
        await acquire('b:2#a1', 10);

        // Act
        const lowered = await acquire('b:3#a1', 2);
        const zero = await acquire('b:3#a1', 0);

        // Assess
        expect(lowered).toEqual({ acquired: false, inUse: 2, recovered: [] });
        expect(zero).toEqual({ acquired: false, inUse: 2, recovered: [] });
      });

      it('never lets concurrent acquirers exceed the cap', async () => {
        // Act
        const results = await Promise.all(Array.from({ length: 40 }, (_, i) => acquire(`b:${i}#a1`, 10)));

        // Assess
        expect(results.filter((result) => result.acquired)).toHaveLength(10);
        expect(await leases().list()).toHaveLength(10);
      });

      it('shares the cap between processes of the same scope, not across scopes', async () => {
        // Prepare
        const first = scopes()('org-1');
        const second = scopes()('org-1');
        const otherOrg = scopes()('org-2');
        await first.acquire({ holder: 'batchA:1#a1', cap: 2, ttlMs: TTL, now: NOW });
        await second.acquire({ holder: 'batchB:1#a1', cap: 2, ttlMs: TTL, now: NOW });

        // Act
        const sameScope = await first.acquire({ holder: 'batchB:2#a1', cap: 2, ttlMs: TTL, now: NOW });
        const otherScope = await otherOrg.acquire({ holder: 'batchC:1#a1', cap: 2, ttlMs: TTL, now: NOW });

        // Assess
        expect(sameScope).toEqual({ acquired: false, inUse: 2, recovered: [] });
        expect(otherScope).toEqual({ acquired: true, alreadyHeld: false, inUse: 1 });
        expect(byHolder(await second.list()).map((lease) => lease.holder)).toEqual([
          'batchA:1#a1',
          'batchB:1#a1',
        ]);
      });
    });

    describe('expiry', () => {
      it('recovers the slot of a holder that died once its lease has expired, and not before', async () => {
        // Prepare
        await acquire('dead:1#a1', 1);

        // Act
        const before = await acquire('live:1#a1', 1, NOW + TTL - 1);
        const after = await acquire('live:1#a1', 1, NOW + TTL);

        // Assess
        expect(before).toEqual({ acquired: false, inUse: 1, recovered: [] });
        expect(after).toEqual({ acquired: true, alreadyHeld: false, inUse: 1 });
        expect(await leases().list()).toEqual([{ holder: 'live:1#a1', expiresAt: NOW + 2 * TTL }]);
      });

      it('leaves an expired lease alone while the scope has room', async () => {
        // Prepare
        await acquire('dead:1#a1', 2);

        // Act
        const result = await acquire('live:1#a1', 2, NOW + TTL + 1);

        // Assess
        expect(result).toEqual({ acquired: true, alreadyHeld: false, inUse: 2 });
        expect(byHolder(await leases().list()).map((lease) => lease.holder)).toEqual([
          'dead:1#a1',
          'live:1#a1',
        ]);
      });

      it('keeps a lease that was renewed, even after its first expiry', async () => {
        // Prepare
        await acquire('poller:1#a1', 1);

        // Act
        const renewed = await leases().renew({ holder: 'poller:1#a1', ttlMs: TTL, now: NOW + 50_000 });
        const late = await acquire('other:1#a1', 1, NOW + TTL + 1);

        // Assess
        expect(renewed).toBe(true);
        expect(late).toEqual({ acquired: false, inUse: 1, recovered: [] });
        expect(await leases().recoverExpired(NOW + TTL + 1)).toEqual([]);
        expect(await leases().list()).toEqual([{ holder: 'poller:1#a1', expiresAt: NOW + 50_000 + TTL }]);
      });

      it('renews a lease past its expiry while nobody has recovered it', async () => {
        // Prepare
        await acquire('slow:1#a1', 1);

        // Act
        const renewed = await leases().renew({ holder: 'slow:1#a1', ttlMs: TTL, now: NOW + TTL + 10 });

        // Assess
        expect(renewed).toBe(true);
        expect(await leases().list()).toEqual([{ holder: 'slow:1#a1', expiresAt: NOW + 2 * TTL + 10 }]);
      });

      it('reports a renewal of a lease already recovered, or never held, and does not bring it back', async () => {
        // Prepare
        await acquire('slow:1#a1', 1);
        expect(await leases().recoverExpired(NOW + TTL)).toEqual(['slow:1#a1']);

        // Act
        const recovered = await leases().renew({ holder: 'slow:1#a1', ttlMs: TTL, now: NOW + TTL });
        const stranger = await leases().renew({ holder: 'nobody', ttlMs: TTL, now: NOW + TTL });

        // Assess
        expect([recovered, stranger]).toEqual([false, false]);
        expect(await leases().list()).toEqual([]);
      });

      it('recovers exactly the leases expired at the given time', async () => {
        // Prepare
        await acquire('early:1#a1', 10, NOW);
        await acquire('middle:1#a1', 10, NOW + 1_000);
        await acquire('late:1#a1', 10, NOW + 2_000);

        // Act
        const recovered = await leases().recoverExpired(NOW + 1_000 + TTL);

        // Assess
        expect([...recovered].sort()).toEqual(['early:1#a1', 'middle:1#a1']);
        expect(await leases().list()).toEqual([{ holder: 'late:1#a1', expiresAt: NOW + 2_000 + TTL }]);
        expect(await leases().recoverExpired(NOW + 1_000 + TTL)).toEqual([]);
      });
    });

    describe('release', () => {
      it('frees the slot once; releasing again is a no-op', async () => {
        // Prepare
        await acquire('b:1#a1', 1);

        // Act
        const first = await leases().release('b:1#a1');
        const second = await leases().release('b:1#a1');

        // Assess
        expect([first, second]).toEqual([true, false]);
        expect(await leases().list()).toEqual([]);
        expect(await acquire('b:2#a1', 1)).toEqual({ acquired: true, alreadyHeld: false, inUse: 1 });
      });

      it('is a no-op on a scope never used, which lists no leases', async () => {
        expect(await leases().release('nobody')).toBe(false);
        expect(await leases().list()).toEqual([]);
        expect(await leases().recoverExpired(NOW)).toEqual([]);
      });
    });
  });
