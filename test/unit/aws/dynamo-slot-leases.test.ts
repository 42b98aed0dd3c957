/**
 * The slot lease against dynalite over the real DynamoDB wire protocol: conditions,
 * map paths and size() are evaluated by a real engine, not by a mock.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createDynamoSlotLeases } from '../../../shared/aws/dynamo-slot-leases.js';
import type { SlotLeases } from '../../../shared/pipeline/core/slot-leases.js';
import { createTable, type LocalDynamo, startLocalDynamo } from '../../helpers/dynalite.js';

const TTL = 60_000;
const NOW = Date.parse('2026-11-21T12:00:00Z');

let dynamo: LocalDynamo;
let tableCount = 0;
let leases: SlotLeases;

beforeAll(async () => {
  dynamo = await startLocalDynamo();
});
afterAll(() => dynamo.close());
beforeEach(async () => {
  const tableName = `leases-${++tableCount}`;
  await createTable(dynamo.client, tableName);
  leases = createDynamoSlotLeases({ client: dynamo.client, tableName, scope: 'org-1' });
});

describe('acquire', () => {
  it('grants a free slot on a table never used before', async () => {
    const result = await leases.acquire({ holder: 'b:1#a1', cap: 10, ttlMs: TTL, now: NOW });
    expect(result).toEqual({ acquired: true, alreadyHeld: false, inUse: 1 });
    expect(await leases.list()).toEqual([{ holder: 'b:1#a1', expiresAt: NOW + TTL }]);
  });

  it('is idempotent per holder: a retry holds the same one slot and renews it', async () => {
    await leases.acquire({ holder: 'b:1#a1', cap: 10, ttlMs: TTL, now: NOW });
    const again = await leases.acquire({ holder: 'b:1#a1', cap: 10, ttlMs: TTL, now: NOW + 5_000 });
    expect(again).toEqual({ acquired: true, alreadyHeld: true, inUse: 1 });
    expect(await leases.list()).toEqual([{ holder: 'b:1#a1', expiresAt: NOW + 5_000 + TTL }]);
  });

  it('is idempotent per holder even when the scope is full', async () => {
    for (let i = 1; i <= 3; i++) await leases.acquire({ holder: `b:${i}#a1`, cap: 3, ttlMs: TTL, now: NOW });
    const again = await leases.acquire({ holder: 'b:2#a1', cap: 3, ttlMs: TTL, now: NOW });
    expect(again.acquired).toBe(true);
    expect(await leases.list()).toHaveLength(3);
  });

  it('never lets concurrent acquirers exceed the cap', async () => {
    const results = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        leases.acquire({ holder: `b:${i}#a1`, cap: 10, ttlMs: TTL, now: NOW }),
      ),
    );
    expect(results.filter((r) => r.acquired)).toHaveLength(10);
    expect(await leases.list()).toHaveLength(10);
  });

  it('shares the cap between batches of the same scope but not across scopes', async () => {
    await leases.acquire({ holder: 'batchA:1#a1', cap: 2, ttlMs: TTL, now: NOW });
    await leases.acquire({ holder: 'batchB:1#a1', cap: 2, ttlMs: TTL, now: NOW });
    expect((await leases.acquire({ holder: 'batchB:2#a1', cap: 2, ttlMs: TTL, now: NOW })).acquired).toBe(
      false,
    );

    const otherOrg = createDynamoSlotLeases({
      client: dynamo.client,
      tableName: `leases-${tableCount}`,
      scope: 'org-2',
    });
    expect((await otherOrg.acquire({ holder: 'batchC:1#a1', cap: 2, ttlMs: TTL, now: NOW })).acquired).toBe(
      true,
    );
  });

  it('refuses when the cap is lowered below what is held, and grants nothing at cap 0', async () => {
    await leases.acquire({ holder: 'b:1#a1', cap: 10, ttlMs: TTL, now: NOW });
    await leases.acquire({ holder: 'b:2#a1', cap: 10, ttlMs: TTL, now: NOW });
    expect((await leases.acquire({ holder: 'b:3#a1', cap: 2, ttlMs: TTL, now: NOW })).acquired).toBe(false);
    expect((await leases.acquire({ holder: 'b:3#a1', cap: 0, ttlMs: TTL, now: NOW })).acquired).toBe(false);
  });
});

describe('expiry', () => {
  it('recovers a slot whose holder died once its lease has expired', async () => {
    await leases.acquire({ holder: 'dead:1#a1', cap: 1, ttlMs: TTL, now: NOW });
    const before = await leases.acquire({ holder: 'live:1#a1', cap: 1, ttlMs: TTL, now: NOW + TTL - 1 });
    expect(before).toEqual({ acquired: false, inUse: 1, recovered: [] });

    const after = await leases.acquire({ holder: 'live:1#a1', cap: 1, ttlMs: TTL, now: NOW + TTL });
    expect(after.acquired).toBe(true);
    expect((await leases.list()).map((l) => l.holder)).toEqual(['live:1#a1']);
  });

  it('keeps a lease that was renewed, even after its first expiry', async () => {
    await leases.acquire({ holder: 'poller:1#a1', cap: 1, ttlMs: TTL, now: NOW });
    expect(await leases.renew({ holder: 'poller:1#a1', ttlMs: TTL, now: NOW + 50_000 })).toBe(true);
    const late = await leases.acquire({ holder: 'other:1#a1', cap: 1, ttlMs: TTL, now: NOW + TTL + 1 });
    expect(late.acquired).toBe(false);
    expect(await leases.recoverExpired(NOW + TTL + 1)).toEqual([]);
  });

  it('reports a renewal of a lease that was already recovered', async () => {
    await leases.acquire({ holder: 'slow:1#a1', cap: 1, ttlMs: TTL, now: NOW });
    expect(await leases.recoverExpired(NOW + TTL)).toEqual(['slow:1#a1']);
    expect(await leases.renew({ holder: 'slow:1#a1', ttlMs: TTL, now: NOW + TTL })).toBe(false);
  });
});

describe('release', () => {
  it('frees the slot once; releasing again is a no-op', async () => {
    await leases.acquire({ holder: 'b:1#a1', cap: 1, ttlMs: TTL, now: NOW });
    expect(await leases.release('b:1#a1')).toBe(true);
    expect(await leases.release('b:1#a1')).toBe(false);
    expect(await leases.list()).toEqual([]);
    expect((await leases.acquire({ holder: 'b:2#a1', cap: 1, ttlMs: TTL, now: NOW })).acquired).toBe(true);
  });

  it('is a no-op on a scope never used', async () => {
    expect(await leases.release('nobody')).toBe(false);
  });
});
