/** Unit: listing — key-based cursors bound to filters, order and organisation. */
import { describe, expect, it } from 'vitest';
import { listClassifications } from '../../local/sandbox/core/listing.js';
import type { ClassificationRecord } from '../../local/sandbox/core/records.js';

const record = (n: number, overrides: Partial<ClassificationRecord> = {}): ClassificationRecord => ({
  id: `cls_${String(n).padStart(12, 'A')}`,
  orgId: 'org',
  author: { keyId: 'k', name: 'API key classify' },
  operation: 'import',
  country: 'CN',
  description: `product ${n}`,
  externalReference: null,
  sheet: null,
  priorAttempts: 0,
  createdAt: 1_000 + n,
  status: 'resolved',
  title: null,
  failureReason: null,
  candidates: [],
  candidatesAreProvisional: false,
  chosenNcm: null,
  chosenSimCode: null,
  questions: [],
  answers: [],
  tariffs: null,
  resolvedAt: null,
  pendingSince: null,
  finishedAt: null,
  run: null,
  history: [],
  ...overrides,
});

const walk = (records: ClassificationRecord[], query: Parameters<typeof listClassifications>[2]) => {
  const ids: string[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = listClassifications(records, 'org', query, cursor);
    if (!page.ok) throw new Error(page.error.message);
    ids.push(...page.items.map((r) => r.id));
    if (page.nextCursor === null) return ids;
    expect(page.nextCursor.length).toBeLessThanOrEqual(512);
    cursor = page.nextCursor;
  }
};

describe('listClassifications', () => {
  it('pages by key: ties on the sort value are broken by creation time and id, none lost or repeated', () => {
    const records = Array.from({ length: 23 }, (_, i) =>
      record(i, { country: i % 3 === 0 ? 'AR' : 'CN', createdAt: 1_000 + Math.floor(i / 2) }),
    );
    for (const direction of ['asc', 'desc'] as const) {
      const all = walk(records, { limit: 100, sort: { field: 'country', direction } });
      expect(walk(records, { limit: 4, sort: { field: 'country', direction } })).toEqual(all);
      expect(new Set(all).size).toBe(23);
    }
  });

  it('keeps cursors short even for long titles', () => {
    const records = Array.from({ length: 3 }, (_, i) => record(i, { title: `${'ç'.repeat(300)}${i}` }));
    const page = listClassifications(
      records,
      'org',
      { limit: 1, sort: { field: 'title', direction: 'asc' } },
      undefined,
    );
    expect(page.ok && page.nextCursor!.length).toBeLessThanOrEqual(512);
  });

  it('refuses a cursor with other filters, another order, another organisation, or garbage', () => {
    const records = Array.from({ length: 5 }, (_, i) => record(i));
    const first = listClassifications(records, 'org', { limit: 2 }, undefined);
    if (!first.ok) throw new Error('first page');
    const cursor = first.nextCursor!;
    expect(listClassifications(records, 'org', { limit: 3 }, cursor).ok).toBe(true);
    for (const query of [
      { limit: 2, country: 'CN' },
      { limit: 2, sort: { field: 'title', direction: 'desc' } },
    ] as const) {
      const result = listClassifications(records, 'org', query, cursor);
      expect(!result.ok && result.error).toMatchObject({ field: 'cursor', code: 'cursor_mismatch' });
    }
    expect(listClassifications(records, 'org2', { limit: 2 }, cursor).ok).toBe(false);
    const garbage = listClassifications(records, 'org', { limit: 2 }, 'eyJ2IjoyfQ');
    expect(!garbage.ok && garbage.error.code).toBe('invalid_cursor');
  });
});
