/** Unit: the idempotency store — reservation, replay, reuse, in flight, release, lifetime. */
import { describe, expect, it } from 'vitest';
import { HOUR_MS } from '../../local/sandbox/core/clock.js';
import { IdempotencyStore, requestFingerprint } from '../../local/sandbox/core/idempotency.js';

const response = { status: 202, body: { id: 'cls_222222222222' } };

describe('IdempotencyStore', () => {
  it('reserves, then replays the same request and refuses another body', () => {
    const store = new IdempotencyStore();
    const fp = requestFingerprint('POST', '/v1/classifications', { a: 1, b: [1, 2] });
    expect(store.reserve('org', 'key', fp, 0)).toEqual({ outcome: 'reserved' });
    expect(store.reserve('org', 'key', fp, 1)).toEqual({ outcome: 'in_flight' });
    expect(store.inFlight()).toBe(1);
    store.complete('org', 'key', response);
    expect(store.reserve('org', 'key', fp, 2)).toEqual({ outcome: 'replay', response });
    const other = requestFingerprint('POST', '/v1/classifications', { a: 2, b: [1, 2] });
    expect(store.reserve('org', 'key', other, 3)).toEqual({ outcome: 'reused' });
    expect(store.reserve('other-org', 'key', other, 3)).toEqual({ outcome: 'reserved' });
  });

  it('fingerprints ignore key order but not values, arrays order or the path', () => {
    const fp = (path: string, body: unknown) => requestFingerprint('POST', path, body);
    expect(fp('/p', { a: 1, b: { c: 2, d: 3 } })).toBe(fp('/p', { b: { d: 3, c: 2 }, a: 1 }));
    expect(fp('/p', { a: [1, 2] })).not.toBe(fp('/p', { a: [2, 1] }));
    expect(fp('/p', { a: null })).not.toBe(fp('/p', {}));
    expect(fp('/p', { a: 1 })).not.toBe(fp('/q', { a: 1 }));
  });

  it('a released reservation frees the key; a completed one lives 24 hours from first use', () => {
    const store = new IdempotencyStore();
    store.reserve('org', 'key', 'fp1', 0);
    store.release('org', 'key');
    expect(store.reserve('org', 'key', 'fp2', 10)).toEqual({ outcome: 'reserved' });
    store.complete('org', 'key', response);
    expect(store.reserve('org', 'key', 'fp2', 10 + 24 * HOUR_MS - 1).outcome).toBe('replay');
    expect(store.reserve('org', 'key', 'fp3', 10 + 24 * HOUR_MS).outcome).toBe('reserved');
  });

  it('snapshots keep completed entries only', () => {
    const store = new IdempotencyStore();
    store.reserve('org', 'done', 'fp', 0);
    store.complete('org', 'done', response);
    store.reserve('org', 'running', 'fp', 0);
    const copy = new IdempotencyStore();
    copy.restore(JSON.parse(JSON.stringify(store.snapshot())));
    expect(copy.reserve('org', 'done', 'fp', 1).outcome).toBe('replay');
    expect(copy.reserve('org', 'running', 'fp', 1).outcome).toBe('reserved');
  });
});
