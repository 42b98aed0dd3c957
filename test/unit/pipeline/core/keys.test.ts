import { describe, expect, it } from 'vitest';
import {
  type CreationFingerprint,
  deriveAnswersKey,
  deriveBatchId,
  deriveCreationKey,
  deriveRowKey,
} from '../../../../shared/pipeline/core/keys.js';
import { IDEMPOTENCY_KEY_PATTERN } from '../../../../shared/tcs/schemas.js';

const input = {
  bucket: 'ncm-input',
  key: 'inbox/nightly/products.csv',
  versionOrEtag: '"9b2cf535f27731c974343645a3985328"',
};
const request: CreationFingerprint = {
  operation: 'import',
  country: 'CN',
  description: 'Rolamento de esferas, diâmetro externo 52 mm',
  externalReference: 'nightly-x:12',
  sheetSha256: null,
};

describe('deriveBatchId', () => {
  it('is the same for the same input object delivered twice', () => {
    expect(deriveBatchId('nightly', input)).toBe(deriveBatchId('nightly', { ...input }));
  });
  it('changes with a new version of the object', () => {
    expect(deriveBatchId('nightly', input)).not.toBe(
      deriveBatchId('nightly', { ...input, versionOrEtag: '"other"' }),
    );
  });
  it('keeps the batch name readable and S3-safe', () => {
    const id = deriveBatchId('Catálogo de peças / 2026', input);
    expect(id).toMatch(/^Catalogo-de-pecas-2026-[A-Za-z0-9]{10}$/);
  });
});

describe('deriveCreationKey', () => {
  const rowKey = deriveRowKey('nightly-abc', 12);

  it('is the same on every retry of an attempt', () => {
    expect(deriveCreationKey(rowKey, 1, request)).toBe(deriveCreationKey(rowKey, 1, { ...request }));
  });

  it('is new for each attempt (retrying a failed classification, spec rule 4)', () => {
    const keys = new Set([1, 2, 3].map((a) => deriveCreationKey(rowKey, a, request)));
    expect(keys.size).toBe(3);
  });

  it('differs between rows and between request bodies', () => {
    const other = deriveCreationKey(deriveRowKey('nightly-abc', 13), 1, request);
    expect(other).not.toBe(deriveCreationKey(rowKey, 1, request));
    expect(deriveCreationKey(rowKey, 1, { ...request, country: 'DE' })).not.toBe(
      deriveCreationKey(rowKey, 1, request),
    );
    expect(deriveCreationKey(rowKey, 1, { ...request, sheetSha256: 'ab'.repeat(32) })).not.toBe(
      deriveCreationKey(rowKey, 1, request),
    );
  });

  it('matches the spec’s pattern, even for long batch names and high attempts', () => {
    const long = deriveRowKey(deriveBatchId('x'.repeat(200), input), 999_999);
    for (const key of [deriveCreationKey(rowKey, 1, request), deriveCreationKey(long, 9_999, request)]) {
      expect(key).toMatch(IDEMPOTENCY_KEY_PATTERN);
    }
  });

  it('refuses attempt 0', () => {
    expect(() => deriveCreationKey(rowKey, 0, request)).toThrow(/positive integer/);
  });
});

describe('deriveAnswersKey', () => {
  const answers = [
    { question_id: 'q1', answer: 'Não' },
    { question_id: 'q2', answer: 'Aço inoxidável' },
  ];
  it('is the same for the same answers in any order (a file dropped twice answers once)', () => {
    expect(deriveAnswersKey('cls_7KQ2M9XW4RTB', answers)).toBe(
      deriveAnswersKey('cls_7KQ2M9XW4RTB', [...answers].reverse()),
    );
  });
  it('changes with an answer or a new sheet', () => {
    const base = deriveAnswersKey('cls_7KQ2M9XW4RTB', answers);
    expect(
      deriveAnswersKey('cls_7KQ2M9XW4RTB', [answers[0]!, { question_id: 'q2', answer: 'Latão' }]),
    ).not.toBe(base);
    expect(deriveAnswersKey('cls_7KQ2M9XW4RTB', answers, 'cd'.repeat(32))).not.toBe(base);
    expect(base).toMatch(IDEMPOTENCY_KEY_PATTERN);
  });
});
