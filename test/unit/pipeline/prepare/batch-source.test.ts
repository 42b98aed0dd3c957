/** Which S3 events start a batch, and the batch's identity. */
import { describe, expect, it } from 'vitest';
import { deriveBatchId } from '../../../../shared/pipeline/core/keys.js';
import {
  batchSourceFromEvent,
  inputKeyCandidates,
  parseInboxKey,
} from '../../../../shared/pipeline/prepare/batch-source.js';

const objectCreated = (
  key: string,
  object: { etag?: string; 'version-id'?: string } = { etag: 'b1946ac92492d2347c6235b4d2611184' },
) => ({
  version: '0',
  id: '17793124-05d4-b198-2fde-7ededc63b103',
  'detail-type': 'Object Created',
  source: 'aws.s3',
  account: '111122223333',
  time: '2026-11-21T12:00:00Z',
  region: 'sa-east-1',
  resources: ['arn:aws:s3:::catalogue-bucket'],
  detail: {
    version: '0',
    bucket: { name: 'catalogue-bucket' },
    object: { key, size: 120, sequencer: '617f08299329d189', ...object },
    'request-id': 'N4N7GDK58NMKJ12R',
    requester: '111122223333',
    reason: 'PutObject',
  },
});

describe('batchSourceFromEvent', () => {
  it('reads bucket, key, folder, file and the ETag of an unversioned bucket', () => {
    const found = batchSourceFromEvent(objectCreated('inbox/lote-noturno/produtos.csv'));

    expect(found).toEqual({
      source: {
        bucket: 'catalogue-bucket',
        key: 'inbox/lote-noturno/produtos.csv',
        version_or_etag: 'b1946ac92492d2347c6235b4d2611184',
        folder: 'inbox/lote-noturno/',
        file_name: 'produtos.csv',
      },
      batchName: 'lote-noturno',
      batchId: deriveBatchId('lote-noturno', {
        bucket: 'catalogue-bucket',
        key: 'inbox/lote-noturno/produtos.csv',
        versionOrEtag: 'b1946ac92492d2347c6235b4d2611184',
      }),
    });
  });

  it('prefers the version id: each upload to a versioned bucket is its own batch', () => {
    const first = batchSourceFromEvent(
      objectCreated('inbox/a/p.csv', { etag: 'same', 'version-id': 'IYV3p45BT0ac8hjHg1houSdS1a.Mro8e' }),
    );
    const second = batchSourceFromEvent(
      objectCreated('inbox/a/p.csv', { etag: 'same', 'version-id': 'uhggCJ2_B6gU2JaXWXebnXFDstO0ID6G' }),
    );

    expect(first?.source.version_or_etag).toBe('IYV3p45BT0ac8hjHg1houSdS1a.Mro8e');
    expect(first?.batchId).not.toBe(second?.batchId);
  });

  it('derives the same id from the same event every time (a second delivery, Finalize)', () => {
    const event = objectCreated('inbox/a/p.csv');
    expect(batchSourceFromEvent(event)?.batchId).toBe(batchSourceFromEvent(structuredClone(event))?.batchId);
  });

  it('accepts the Batch workflow state: the event plus Prepare’s result and caught errors', () => {
    const state = { ...objectCreated('inbox/a/p.xlsx'), prepare: { batch_id: 'x', next: 'wait' }, error: {} };
    expect(batchSourceFromEvent(state)?.source.file_name).toBe('p.xlsx');
  });

  it.each([
    'inbox/a/products.CSV',
    'inbox/a/Catálogo Março.XLSX',
    'inbox/lote 1/p.csv',
    'inbox/a/Texto Unicode.txt',
    'inbox/a/PRODUTOS.TSV',
    // NF-e invoices: one XML, or a ZIP of a month of them.
    'inbox/a/NFe35261012345678000195550010000015201100001520.xml',
    'inbox/a/notas-2026-10.ZIP',
  ])('%s starts a batch', (key) => {
    expect(batchSourceFromEvent(objectCreated(key))).not.toBeNull();
  });

  it.each([
    ['batch options', 'inbox/a/batch.json'],
    ['a technical sheet', 'inbox/a/fichas/cafe.pdf'],
    ['a file in a sub-folder', 'inbox/a/sub/products.csv'],
    ['a file directly in inbox/', 'inbox/products.csv'],
    ['an output', 'outbox/a-123/results.csv'],
    ['an old Excel workbook', 'inbox/a/products.xls'],
    ['an Excel lock file', 'inbox/a/~$products.xlsx'],
    ['a hidden file', 'inbox/a/.products.csv'],
  ])('%s does not start a batch (%s)', (_what, key) => {
    expect(batchSourceFromEvent(objectCreated(key))).toBeNull();
  });

  it('ignores other events and malformed input', () => {
    expect(
      batchSourceFromEvent({ ...objectCreated('inbox/a/p.csv'), 'detail-type': 'Object Deleted' }),
    ).toBeNull();
    expect(batchSourceFromEvent({ detail: { bucket: { name: 'b' } } })).toBeNull();
    expect(batchSourceFromEvent(null)).toBeNull();
    expect(batchSourceFromEvent('inbox/a/p.csv')).toBeNull();
  });

  it('refuses an event with neither version id nor ETag: it could not tell two uploads apart', () => {
    const event = objectCreated('inbox/a/p.csv', {});
    delete (event.detail.object as { sequencer?: string }).sequencer;
    expect(batchSourceFromEvent(event)).toBeNull();
  });
});

describe('URL-encoded keys', () => {
  it('offers the key as given, then its form-decoded spelling', () => {
    expect(inputKeyCandidates('inbox/lote+noturno/cat%C3%A1logo.csv')).toEqual([
      'inbox/lote+noturno/cat%C3%A1logo.csv',
      'inbox/lote noturno/catálogo.csv',
    ]);
    expect(inputKeyCandidates('inbox/a/p.csv')).toEqual(['inbox/a/p.csv']);
    // Not valid percent-encoding: only the key as given.
    expect(inputKeyCandidates('inbox/100%/p.csv')).toEqual(['inbox/100%/p.csv']);
  });

  it('keeps the key as given in the source; the batch name of an encoded folder stays readable', () => {
    const found = batchSourceFromEvent(objectCreated('inbox/lote+noturno/p.csv'));
    expect(found?.source.key).toBe('inbox/lote+noturno/p.csv');
    expect(found?.batchId).toMatch(/^lote-noturno-/);
  });

  it('finds a batch file whose slashes arrived encoded', () => {
    const found = batchSourceFromEvent(objectCreated('inbox%2Fa%2Fp.csv'));
    expect(found?.source).toMatchObject({ key: 'inbox/a/p.csv', folder: 'inbox/a/', file_name: 'p.csv' });
  });
});

describe('parseInboxKey', () => {
  it('splits name, folder and file', () => {
    expect(parseInboxKey('inbox/Lote Março/p.xlsx')).toEqual({
      batchName: 'Lote Março',
      folder: 'inbox/Lote Março/',
      fileName: 'p.xlsx',
    });
    expect(parseInboxKey('inbox/../p.csv')).toBeNull();
  });
});
