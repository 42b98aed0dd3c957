/**
 * The presigned requests the console gives the browser, as S3 will check them: a POST policy
 * that allows one key, one content type and a size range, signed for a short time; a GET that
 * saves or shows the file under a readable name. Signing needs no network.
 */
import { S3Client } from '@aws-sdk/client-s3';
import { describe, expect, it } from 'vitest';
import { contentDisposition, createS3FileLinks } from '../../../shared/aws/s3-file-links.js';

const client = new S3Client({
  region: 'sa-east-1',
  credentials: { accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'secret' },
});
const links = createS3FileLinks({ client, bucket: 'ncm-data' });

describe('S3 file links', () => {
  it('signs a POST form whose policy allows exactly one key under inbox/, one type and 1..max bytes', async () => {
    const before = Date.now();
    const { url, fields } = await links.uploadForm({
      key: 'inbox/produtos/sheets/bomba.pdf',
      contentType: 'application/pdf',
      maxBytes: 10 * 1024 * 1024,
      expiresSeconds: 600,
    });
    const after = Date.now();
    expect(url).toBe('https://ncm-data.s3.sa-east-1.amazonaws.com/');
    expect(fields).toMatchObject({
      key: 'inbox/produtos/sheets/bomba.pdf',
      'Content-Type': 'application/pdf',
    });
    const policy = JSON.parse(Buffer.from(fields.Policy ?? '', 'base64').toString('utf8'));
    expect(policy.conditions).toEqual(
      expect.arrayContaining([
        ['eq', '$key', 'inbox/produtos/sheets/bomba.pdf'],
        ['eq', '$Content-Type', 'application/pdf'],
        ['content-length-range', 1, 10 * 1024 * 1024],
        { bucket: 'ncm-data' },
      ]),
    );
    // Ten minutes from the signing, to the second (the policy's expiration drops milliseconds).
    const expiration = Date.parse(policy.expiration);
    expect(expiration).toBeGreaterThan(before + 600_000 - 1_000);
    expect(expiration).toBeLessThanOrEqual(after + 600_000);
  });

  it('signs a GET that names the file for the browser, accents kept', async () => {
    const url = new URL(
      await links.downloadUrl({
        key: 'outbox/b1/results.csv',
        fileName: 'catálogo-results.csv',
        disposition: 'attachment',
        contentType: 'text/csv; charset=utf-8',
        expiresSeconds: 600,
      }),
    );
    expect(url.pathname).toBe('/outbox/b1/results.csv');
    expect(url.searchParams.get('X-Amz-Expires')).toBe('600');
    expect(url.searchParams.get('response-content-disposition')).toBe(
      `attachment; filename="catalogo-results.csv"; filename*=UTF-8''cat%C3%A1logo-results.csv`,
    );
    expect(url.searchParams.get('response-content-type')).toBe('text/csv; charset=utf-8');
  });

  it('keeps quotes and non-ASCII out of the plain filename', () => {
    expect(contentDisposition('inline', 'a"b\\ç€.pdf')).toBe(
      `inline; filename="a_b_c_.pdf"; filename*=UTF-8''a%22b%5C%C3%A7%E2%82%AC.pdf`,
    );
  });
});
