/** The pure pieces under the client: Retry-After, backoff, field paths, redaction, schema formats. */
import { describe, expect, it } from 'vitest';
import { parseRetryAfter, problemNameOf, redactUrl, scrubText } from '../../../shared/tcs/errors.js';
import { backoffDelay, DEFAULT_RETRY_POLICY } from '../../../shared/tcs/retry.js';
import {
  Candidate,
  Classification,
  ClassificationAccepted,
  formatFieldPath,
  IdempotencyKey,
  TariffLookup,
} from '../../../shared/tcs/schemas.js';
import { accepted, candidate, exportTariff, resolvedClassification } from '../../helpers/tcs-fixtures.js';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-21T12:00:00Z');
  it('reads delta-seconds', () => expect(parseRetryAfter('120', now)).toBe(120_000));
  it('reads an HTTP date relative to now', () =>
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000));
  it('clamps a date in the past to zero', () =>
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0));
  it('ignores garbage and absence', () => {
    expect(parseRetryAfter('soon', now)).toBeNull();
    expect(parseRetryAfter(null, now)).toBeNull();
  });
});

describe('backoffDelay', () => {
  it('grows with each failed attempt and stays within half to full step', () => {
    const policy = { ...DEFAULT_RETRY_POLICY, baseDelayMs: 1000, maxDelayMs: 8000 };
    expect(backoffDelay(policy, 1, 0)).toBe(500);
    expect(backoffDelay(policy, 1, 0.999)).toBeLessThanOrEqual(1000);
    expect(backoffDelay(policy, 2, 0)).toBe(1000);
    expect(backoffDelay(policy, 3, 0)).toBe(2000);
    // Capped: attempt 10 would be 512 s without the ceiling.
    expect(backoffDelay(policy, 10, 1)).toBe(8000);
  });
});

describe('field paths in the spec’s form', () => {
  it('uses dots for fields and brackets for indexes', () => {
    expect(formatFieldPath(['answers', 0, 'answer'])).toBe('answers[0].answer');
    expect(formatFieldPath(['candidates', 2, 'sim', 'options', 1, 'code'])).toBe(
      'candidates[2].sim.options[1].code',
    );
    expect(formatFieldPath([])).toBe('');
  });
});

describe('redaction', () => {
  it('cuts a signed URL’s query string', () => {
    expect(redactUrl('https://bucket.example/verdict.pdf?X-Amz-Signature=abc&X-Amz-Expires=60')).toBe(
      'https://bucket.example/verdict.pdf?…',
    );
    expect(redactUrl('https://api.example/v1/balance')).toBe('https://api.example/v1/balance');
  });
  it('scrubs the secret and query strings from free text', () => {
    const out = scrubText('key sk_123 at https://x.example/a?sig=1 and again sk_123', 'sk_123');
    expect(out).toBe('key [redacted] at https://x.example/a?… and again [redacted]');
  });
  it('takes the catalogue name from the last segment of the type URI', () => {
    expect(problemNameOf('https://api.example/problems/rate-limited')).toBe('rate-limited');
    expect(problemNameOf('about:blank')).toBe('about:blank');
  });
});

describe('schema formats', () => {
  it('accepts the fixtures, which follow the spec', () => {
    expect(Classification.safeParse(resolvedClassification()).success).toBe(true);
    expect(ClassificationAccepted.safeParse(accepted()).success).toBe(true);
    expect(TariffLookup.safeParse(exportTariff()).success).toBe(true);
  });

  it.each([
    ['an id with a forbidden letter', { id: 'cls_7KQ2M9XW4RTI' }, 'id'],
    ['a lower-case country', { country: 'co' }, 'country'],
    ['a 7-digit chosen NCM', { chosen_ncm: '9012100' }, 'chosen_ncm'],
    ['a 9-digit SIM code', { chosen_sim_code: '090121001' }, 'chosen_sim_code'],
    ['cost_credits of 2', { cost_credits: 2 }, 'cost_credits'],
    ['four candidates', { candidates: [candidate(), candidate(), candidate(), candidate()] }, 'candidates'],
    ['a date without offset', { created_at: '2026-11-21 12:00' }, 'created_at'],
  ])('rejects %s', (_name, overrides, field) => {
    const result = Classification.safeParse(resolvedClassification(overrides));
    expect(result.success).toBe(false);
    expect(result.error?.issues.map((i) => formatFieldPath(i.path))).toContain(field);
  });

  it('bounds candidates’ own arrays and ranges', () => {
    expect(Candidate.safeParse(candidate({ confidence: 101 })).success).toBe(false);
    expect(Candidate.safeParse(candidate({ rank: 4 })).success).toBe(false);
    expect(Candidate.safeParse(candidate({ missing_data: ['a', 'b', 'c', 'd', 'e', 'f'] })).success).toBe(
      false,
    );
    expect(
      Candidate.safeParse(
        candidate({ hierarchy: { ...candidate().hierarchy, heading: { code: '09', description: '' } } }),
      ).success,
    ).toBe(false);
  });

  it('keeps an Idempotency-Key to 16..128 of the allowed characters', () => {
    expect(IdempotencyKey.safeParse('a'.repeat(16)).success).toBe(true);
    expect(IdempotencyKey.safeParse('a'.repeat(15)).success).toBe(false);
    expect(IdempotencyKey.safeParse('a'.repeat(129)).success).toBe(false);
    expect(IdempotencyKey.safeParse('ação-0123456789ab').success).toBe(false);
  });
});

describe('list query', () => {
  it('counts q in characters and refuses impossible dates', async () => {
    const { ListClassificationsQuery } = await import('../../../shared/tcs/schemas.js');
    expect(ListClassificationsQuery.safeParse({ q: '🙂'.repeat(120) }).success).toBe(true);
    expect(ListClassificationsQuery.safeParse({ q: 'x'.repeat(121) }).success).toBe(false);
    expect(ListClassificationsQuery.safeParse({ created_after: '2026-02-28' }).success).toBe(true);
    expect(ListClassificationsQuery.safeParse({ created_after: '2026-02-30' }).success).toBe(false);
  });
});
