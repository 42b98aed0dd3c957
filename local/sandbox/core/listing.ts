/**
 * `GET /classifications`: filters, search, order and opaque cursors (spec, GET
 * /classifications). Pure functions over the organisation's records.
 *
 * Paging is by key, not offset: the cursor holds the sort key of the last item returned, so
 * classifications created while a caller pages (they sort first, newest first) neither
 * shift nor repeat the rest. The cursor also holds a hash of the filters and order (and
 * organisation) it was issued for; sent with anything else it is refused (rule 4).
 */
import { createHash } from 'node:crypto';
import type * as z from 'zod';
import {
  type FieldError,
  type KnownStatus,
  LIMITS,
  type ListClassificationsQuery,
  type SORT_FIELDS,
} from '../../../shared/tcs/schemas.js';
import { DAY_MS } from './clock.js';
import type { ClassificationRecord } from './records.js';

export type ListQuery = z.output<typeof ListClassificationsQuery>;
type SortField = (typeof SORT_FIELDS)[number];
type SortKey = [value: string | number | null, createdAt: number, id: string];

/** Spec, rule 1: without `status`, resolved, awaiting-data and in-progress classifications. */
const DEFAULT_LIST_STATUSES: readonly KnownStatus[] = ['resolved', 'pending_data', 'in_progress'];

/** Lower case, accents folded: "Café" and "cafe" meet. */
const fold = (text: string): string => text.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();

/**
 * Sorting on titles uses their first characters only: enough to order them, and it keeps
 * every cursor (which carries the key) far below the 512-character limit.
 */
const TITLE_KEY_CHARS = 48;

const sortValue = (record: ClassificationRecord, field: SortField): string | number | null => {
  switch (field) {
    case 'created_at':
      return record.createdAt;
    case 'title':
      return record.title === null ? null : Array.from(fold(record.title)).slice(0, TITLE_KEY_CHARS).join('');
    case 'ncm':
      return record.chosenNcm;
    case 'confidence':
      return record.candidates[0]?.confidence ?? null;
    case 'status':
      return record.status;
    case 'author':
      return fold(record.author.name);
    case 'country':
      return record.country;
    case 'operation':
      return record.operation;
  }
};

const keyOf = (record: ClassificationRecord, field: SortField): SortKey => [
  sortValue(record, field),
  record.createdAt,
  record.id,
];

const compareValues = (a: string | number | null, b: string | number | null): number => {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  return a < b ? -1 : 1;
};

/** Order of two keys; nulls last in both directions, ties broken by creation time then id. */
const compareKeys = (a: SortKey, b: SortKey, direction: 'asc' | 'desc'): number => {
  const sign = direction === 'asc' ? 1 : -1;
  const [va, ca, ia] = a;
  const [vb, cb, ib] = b;
  if (va !== vb) {
    if (va === null) return 1;
    if (vb === null) return -1;
    return sign * compareValues(va, vb);
  }
  if (ca !== cb) return sign * (ca - cb);
  return sign * compareValues(ia, ib);
};

const matchesText = (record: ClassificationRecord, q: string): boolean => {
  const needle = fold(q.trim());
  if (needle === '') return true;
  const texts = [record.title, record.description, record.externalReference];
  if (texts.some((text) => text !== null && fold(text).includes(needle))) return true;
  // An NCM "with or without dots" (0901.21.00 / 09012100), or a SIM code, possibly partial.
  const digits = q.replace(/[\s.-]/g, '');
  if (/^\d+$/.test(digits)) {
    return [record.chosenNcm, record.chosenSimCode].some((code) => code?.includes(digits));
  }
  return false;
};

const startOfDay = (date: string): number => Date.parse(`${date}T00:00:00Z`);

const matchesFilters = (record: ClassificationRecord, query: ListQuery): boolean => {
  const statuses: readonly string[] = query.status ?? DEFAULT_LIST_STATUSES;
  if (!statuses.includes(record.status)) return false;
  if (query.operation && record.operation !== query.operation) return false;
  if (query.country && record.country !== query.country) return false;
  // Nobody marks a sandbox verdict as reviewed: `reviewed` is always null.
  if (query.reviewed === true) return false;
  if (query.created_after && record.createdAt < startOfDay(query.created_after)) return false;
  if (query.created_before && record.createdAt >= startOfDay(query.created_before) + DAY_MS) return false;
  if (query.q !== undefined && !matchesText(record, query.q)) return false;
  return true;
};

/** What a cursor is bound to: the organisation, every filter and the order (not `limit`). */
const filtersHash = (orgId: string, query: ListQuery): string => {
  const sort = query.sort ?? { field: 'created_at', direction: 'desc' };
  const canonical = {
    org: orgId,
    q: query.q?.trim() || null,
    operation: query.operation ?? null,
    country: query.country ?? null,
    status: query.status ? [...new Set(query.status)].sort() : null,
    reviewed: query.reviewed ?? null,
    created_after: query.created_after ?? null,
    created_before: query.created_before ?? null,
    sort: `${sort.field}:${sort.direction}`,
  };
  return createHash('sha256').update(JSON.stringify(canonical)).digest('base64url').slice(0, 16);
};

type CursorPayload = { v: 1; f: string; k: SortKey };

const encodeCursor = (payload: CursorPayload): string =>
  Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');

const decodeCursor = (cursor: string): CursorPayload | null => {
  if (cursor.length > LIMITS.cursorMax || !/^[A-Za-z0-9_-]+$/.test(cursor)) return null;
  try {
    const payload = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as Partial<CursorPayload>;
    const k = payload.k;
    const valid =
      payload.v === 1 &&
      typeof payload.f === 'string' &&
      Array.isArray(k) &&
      k.length === 3 &&
      (k[0] === null || typeof k[0] === 'string' || typeof k[0] === 'number') &&
      typeof k[1] === 'number' &&
      typeof k[2] === 'string';
    return valid ? (payload as CursorPayload) : null;
  } catch {
    return null;
  }
};

export type ListResult =
  | { ok: true; items: ClassificationRecord[]; nextCursor: string | null }
  | { ok: false; error: FieldError };

export const listClassifications = (
  records: readonly ClassificationRecord[],
  orgId: string,
  query: ListQuery,
  cursor: string | undefined,
): ListResult => {
  const sort = query.sort ?? { field: 'created_at', direction: 'desc' };
  const limit = query.limit ?? LIMITS.pageLimitDefault;
  const hash = filtersHash(orgId, query);
  let after: SortKey | null = null;
  if (cursor !== undefined) {
    const payload = decodeCursor(cursor);
    if (!payload) {
      return {
        ok: false,
        error: { field: 'cursor', code: 'invalid_cursor', message: 'is not a cursor issued by this service' },
      };
    }
    if (payload.f !== hash) {
      return {
        ok: false,
        error: {
          field: 'cursor',
          code: 'cursor_mismatch',
          message:
            'belongs to other filters or another order; repeat them unchanged, or start without a cursor',
        },
      };
    }
    after = payload.k;
  }
  const ordered = records
    .filter((record) => matchesFilters(record, query))
    .map((record) => ({ record, key: keyOf(record, sort.field) }))
    .sort((a, b) => compareKeys(a.key, b.key, sort.direction));
  const rest =
    after === null ? ordered : ordered.filter(({ key }) => compareKeys(key, after, sort.direction) > 0);
  const page = rest.slice(0, limit);
  const last = page.at(-1);
  const nextCursor = rest.length > limit && last ? encodeCursor({ v: 1, f: hash, k: last.key }) : null;
  return { ok: true, items: page.map(({ record }) => record), nextCursor };
};
