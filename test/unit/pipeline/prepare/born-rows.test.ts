/**
 * What Prepare counts of the rows it writes (prepare/born-rows.ts): the rows final at birth by
 * status, the followers of queued rows (and each queued row's followers, for its shard), and a
 * follower of a row final at birth counted with its leader's status.
 */
import { describe, expect, it } from 'vitest';
import { bornRowsCounter } from '../../../../shared/pipeline/prepare/born-rows.js';
import { rowRecord } from '../../../helpers/records.js';

describe('bornRowsCounter', () => {
  it('counts rows final at birth and followers, chunk after chunk, and each queued row’s followers', () => {
    // Prepare: row 2 queued with followers 4 and 7 (one in the next chunk); row 3 joined an
    // earlier batch's classification (final at birth) and row 6 follows it. Each row's value in
    // cents is its number times 100; only the reused row 5 has a verdict at birth.
    const counter = bornRowsCounter((record) => record.row * 100);
    const first = [
      rowRecord(1, { status: 'rejected', result: { status: 'rejected', cost_usd: '0.00' } }),
      rowRecord(2, { status: 'queued', fingerprint: 'f2' }),
      rowRecord(3, {
        status: 'pending_data',
        fingerprint: 'f3',
        result: { status: 'pending_data', cost_usd: '0.00' },
      }),
      rowRecord(4, { status: 'following', follows: 2, fingerprint: 'f2' }),
    ];
    const second = [
      rowRecord(5, { status: 'reused', fingerprint: 'f5', result: { status: 'reused', cost_usd: '0.00' } }),
      rowRecord(6, { status: 'following', follows: 3, fingerprint: 'f3' }),
      rowRecord(7, { status: 'following', follows: 2, fingerprint: 'f2' }),
      rowRecord(8, { status: 'not_submitted', fingerprint: 'f8', result: { status: 'not_submitted' } }),
    ];

    // Act
    counter.add(first);
    counter.add(second);

    // Assess
    expect(counter.born()).toEqual({
      final: { rejected: 1, pending_data: 2, reused: 1, not_submitted: 1 },
      following: 2,
      billed_cents: 0,
      value_cents: 500,
    });
    expect([...counter.followers()]).toEqual([[2, 2]]);
  });
});
