/**
 * The WriterRecords contract: what PrepareAnswers relies on from the records of who wrote a
 * dropped file, whichever implementation keeps them. On AWS they share the review table with the
 * questions: the review store's Scan for pending questions never sees them.
 */
import { describe, expect, it } from 'vitest';
import { type WriterRecord, writerOf } from '../../shared/pipeline/core/people.js';
import type { ReviewStore, WriterRecords } from '../../shared/pipeline/core/ports.js';
import { BATCH, reviewItem } from '../helpers/records.js';
import { type Implementation, useImplementation } from './implementation.js';

/** The records and the questions, on the same table. */
export type WriterTableStores = { writers: WriterRecords; reviews: ReviewStore };

const KEY = `answers/${BATCH}/decisoes.csv`;
const byConsole = (etag: string): WriterRecord => ({
  key: KEY,
  version_id: null,
  etag,
  person: { name: 'Ana Souza', id: 'sub-7d1e', known_by: 'console', email: 'ana@example.com' },
  at: '2026-12-03T10:00:00.000Z',
});
const principal = (versionId: string): WriterRecord => ({
  key: KEY,
  version_id: versionId,
  etag: null,
  person: { name: 'jose (Ops)', id: 'arn:aws:sts::111122223333:assumed-role/Ops/jose', known_by: 'iam' },
  at: '2026-12-03T10:00:01.000Z',
});

export const describeWriterRecordsContract = (
  name: string,
  implementation: Implementation<WriterTableStores>,
) =>
  describe(`WriterRecords contract: ${name}`, () => {
    const stores = useImplementation(implementation);

    it('finds a record by the ETag or the version it names, and none for another version of the key', async () => {
      const { writers } = stores();
      await writers.record(byConsole('e1'));
      await writers.record(principal('v1'));

      expect(await writers.find({ key: KEY, etag: 'e1', versionId: null })).toEqual([byConsole('e1')]);
      expect(await writers.find({ key: KEY, etag: null, versionId: 'v1' })).toEqual([principal('v1')]);
      expect(await writers.find({ key: KEY, etag: 'e1', versionId: 'v1' })).toEqual(
        expect.arrayContaining([byConsole('e1'), principal('v1')]),
      );
      expect(await writers.find({ key: KEY, etag: 'e2', versionId: 'v2' })).toEqual([]);
      expect(await writers.find({ key: `${KEY}.other`, etag: 'e1', versionId: null })).toEqual([]);
      expect(await writers.find({ key: KEY, etag: null, versionId: null })).toEqual([]);
    });

    it("keeps the console's record and S3's of the same version apart: both are found", async () => {
      const { writers } = stores();
      const sameEtag = { ...principal('v1'), version_id: null, etag: 'e1' };
      await writers.record(byConsole('e1'));
      await writers.record(sameEtag);
      expect(await writers.find({ key: KEY, etag: 'e1', versionId: null })).toEqual(
        expect.arrayContaining([byConsole('e1'), sameEtag]),
      );
    });

    it("keeps the console's upload form for a key, found with any version of it, never taken for its writer", async () => {
      const { writers } = stores();
      const grant = { ...byConsole('e1'), etag: null };
      await writers.record(grant);
      const found = await writers.find({ key: KEY, etag: 'e9', versionId: 'v9' });
      expect(found).toEqual([grant]);
      expect(writerOf(found)).toBeNull();
      expect(await writers.find({ key: `${KEY}.other`, etag: 'e9', versionId: null })).toEqual([]);
    });

    it('is invisible to the review store: no pending question, nothing in a batch', async () => {
      const { writers, reviews } = stores();
      await reviews.put(reviewItem(2));
      await writers.record(byConsole('e1'));

      expect((await reviews.listPending()).map((item) => item.row)).toEqual([2]);
      expect((await reviews.listByBatch(BATCH)).map((item) => item.row)).toEqual([2]);
    });
  });
