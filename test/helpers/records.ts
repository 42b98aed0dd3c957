/** Valid records for tests of the stores (contract suites, adapter tests), each with the fields a case wants to change. */
import { BatchOptions } from '../../shared/pipeline/core/batch-options-schema.js';
import {
  BatchRecord,
  CachedVerdict,
  ReviewItem,
  type RowMessage,
  RowRecord,
} from '../../shared/pipeline/core/records.js';

export const AT = '2026-11-21T12:00:00.000Z';
export const LATER = '2026-11-21T12:00:01.000Z';
export const BATCH = 'nightly-abc';
/** Shaped like a Step Functions task token; a secret in real life. */
export const TOKEN = 'AAAAKgAAAAIAAAAAAAAAAsecret-task-token';

/** Batch options as an update writes them: every field filled, the unset ones at their defaults. */
export const batchOptions = (
  given: Partial<BatchOptions> = { reclassify: 'all', reuse_max_age_days: 7 },
): BatchOptions => BatchOptions.parse(given);

export const batchRecord = (overrides: Partial<BatchRecord> = {}): BatchRecord =>
  BatchRecord.parse({
    batch_id: BATCH,
    name: 'nightly',
    source: {
      bucket: 'in',
      key: 'inbox/nightly/products.csv',
      version_or_etag: '"e1"',
      folder: 'inbox/nightly/',
      file_name: 'products.csv',
    },
    execution_id: 'exec-1',
    state: 'preparing',
    started_at: AT,
    ...overrides,
  });

export const rowRecord = (row: number, overrides: Partial<RowRecord> = {}): RowRecord =>
  RowRecord.parse({
    batch_id: BATCH,
    row,
    line: row + 1,
    cells: [`SKU-${row}`, 'Parafuso de aço'],
    status: 'queued',
    updated_at: AT,
    ...overrides,
  });

const ID_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

/** A valid `cls_` id for a number. */
export const classificationId = (n: number): string => {
  let id = '';
  for (let rest = n, i = 0; i < 12; i++, rest = Math.floor(rest / ID_ALPHABET.length))
    id = ID_ALPHABET[rest % ID_ALPHABET.length] + id;
  return `cls_${id}`;
};

export const reviewItem = (n: number, overrides: Partial<ReviewItem> = {}): ReviewItem =>
  ReviewItem.parse({
    classification_id: classificationId(n),
    batch_id: BATCH,
    row: n,
    sku: `SKU-${n}`,
    external_reference: null,
    description: 'Parafuso de aço inoxidável',
    questions: [{ id: 'q1', text: 'Material?', options: ['aço', 'latão'] }],
    provisional_ncm: '73181500',
    provisional_confidence: 0.61,
    abandons_at: '2026-12-21T12:00:00.000Z',
    state: 'pending',
    created_at: AT,
    ...overrides,
  });

export const cachedVerdict = (productKey: string, overrides: Partial<CachedVerdict> = {}): CachedVerdict =>
  CachedVerdict.parse({
    product_key: productKey,
    fingerprint: `fp-${productKey}`,
    classification_id: classificationId(7),
    resolved_at: '2026-11-20T10:00:00.000Z',
    result: { status: 'resolved', ncm: '73181500', confidence: '0.97' },
    pdf_key: null,
    batch_id: BATCH,
    ...overrides,
  });

export const rowMessage = (row: number, overrides: Partial<RowMessage> = {}): RowMessage => ({
  batch_id: BATCH,
  row,
  attempt: 1,
  dispatch: 1,
  ...overrides,
});
