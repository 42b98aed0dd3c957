/**
 * The ObjectStore contract: what Prepare, the sheet checks, the Store step and Finalize rely
 * on from the bucket, whichever implementation serves it.
 */
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { MIN_PART_BYTES, type ObjectStore } from '../../shared/pipeline/core/ports.js';
import { type Implementation, useImplementation } from './implementation.js';

const text = (bytes: Uint8Array | null) => (bytes === null ? null : new TextDecoder().decode(bytes));
const CSV = 'sku;descrição\nA-1;Parafuso de aço\n';

export const describeObjectStoreContract = (name: string, implementation: Implementation<ObjectStore>) =>
  describe(`ObjectStore contract: ${name}`, () => {
    const objects = useImplementation(implementation);

    describe('put, head and getBytes', () => {
      it('stores text as UTF-8 and reads it back whole, its size in bytes', async () => {
        // Act
        await objects().put('inbox/nightly/products.csv', CSV, 'text/csv');

        // Assess
        expect(text(await objects().getBytes('inbox/nightly/products.csv'))).toBe(CSV);
        const head = await objects().head('inbox/nightly/products.csv');
        expect(head?.size).toBe(new TextEncoder().encode(CSV).byteLength);
        expect(head?.etag).toMatch(/^".+"$/);
      });

      it('stores bytes and a stream exactly as given', async () => {
        // Prepare
        const bytes = new Uint8Array([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x0a, 0x80]);
        const stream = Readable.from([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2]), 'fim']);

        // Act
        await objects().put('outbox/b/pdfs/1.pdf', bytes, 'application/pdf');
        await objects().put('outbox/b/pdfs/2.pdf', stream, 'application/pdf');

        // Assess
        expect(await objects().getBytes('outbox/b/pdfs/1.pdf')).toEqual(bytes);
        expect(await objects().getBytes('outbox/b/pdfs/2.pdf')).toEqual(
          new Uint8Array(
            Buffer.concat([Buffer.from('%PDF-1.7\n'), Buffer.from([0, 1, 2]), Buffer.from('fim')]),
          ),
        );
        expect((await objects().head('outbox/b/pdfs/2.pdf'))?.size).toBe(15);
      });

      it('stores an empty object', async () => {
        // Act
        await objects().put('outbox/b/empty.csv', '', 'text/csv');

        // Assess
        expect(await objects().getBytes('outbox/b/empty.csv')).toEqual(new Uint8Array());
        expect((await objects().head('outbox/b/empty.csv'))?.size).toBe(0);
      });

      it('replaces an object put again under the same key', async () => {
        // Prepare
        await objects().put('outbox/b/summary.json', '{"rows":1}', 'application/json');

        // Act
        await objects().put('outbox/b/summary.json', '{"rows":22}', 'application/json');

        // Assess
        expect(text(await objects().getBytes('outbox/b/summary.json'))).toBe('{"rows":22}');
        expect((await objects().head('outbox/b/summary.json'))?.size).toBe(11);
      });

      it('keeps the user metadata put with an object and gives it back on head; an object put without has none', async () => {
        // Prepare: who answered, URI-encoded as the console writes it (metadata is ASCII).
        const by = encodeURIComponent('José Álvares <jose@acme.com.br>');

        // Act
        await objects().put('answers/b/console-1.csv', CSV, 'text/csv', { 'answered-by': by });
        await objects().put('answers/b/review.csv', CSV, 'text/csv');

        // Assess
        expect((await objects().head('answers/b/console-1.csv'))?.metadata).toEqual({ 'answered-by': by });
        expect(
          decodeURIComponent(
            (await objects().head('answers/b/console-1.csv'))?.metadata?.['answered-by'] ?? '',
          ),
        ).toBe('José Álvares <jose@acme.com.br>');
        expect((await objects().head('answers/b/review.csv'))?.metadata ?? {}).toEqual({});
      });

      it('gives an etag that follows the bytes: the same bytes the same etag, other bytes another', async () => {
        // Prepare
        await objects().put('inbox/a/products.csv', CSV, 'text/csv');
        const first = await objects().head('inbox/a/products.csv');

        // Act
        await objects().put('inbox/a/products.csv', CSV, 'text/csv');
        const same = await objects().head('inbox/a/products.csv');
        await objects().put('inbox/a/products.csv', `${CSV}A-2;Porca\n`, 'text/csv');
        const changed = await objects().head('inbox/a/products.csv');

        // Assess
        expect(same?.etag).toBe(first?.etag);
        expect(changed?.etag).not.toBe(first?.etag);
      });

      it('reads null, not an error, for an object that does not exist', async () => {
        expect(await objects().head('inbox/nightly/missing.pdf')).toBeNull();
        expect(await objects().getBytes('inbox/nightly/missing.pdf')).toBeNull();
        expect(await objects().getPrefix('inbox/nightly/missing.pdf', 8)).toBeNull();
        expect(await objects().getPrefix('inbox/nightly/missing.pdf', 0)).toBeNull();
      });
    });

    describe('getPrefix', () => {
      it('reads the first bytes only, or all of a shorter object', async () => {
        // Prepare
        await objects().put(
          'inbox/n/products.xlsx',
          'PK\u0003\u0004 and the rest of a workbook',
          'application/zip',
        );

        // Act
        const four = await objects().getPrefix('inbox/n/products.xlsx', 4);
        const more = await objects().getPrefix('inbox/n/products.xlsx', 4096);

        // Assess
        expect(four).toEqual(new Uint8Array([0x50, 0x4b, 0x03, 0x04]));
        expect(text(more)).toBe('PK\u0003\u0004 and the rest of a workbook');
      });

      it('reads no bytes for a length of 0', async () => {
        // Prepare
        await objects().put('inbox/n/empty.csv', '', 'text/csv');
        await objects().put('inbox/n/products.csv', CSV, 'text/csv');

        // Act and Assess
        expect(await objects().getPrefix('inbox/n/empty.csv', 0)).toEqual(new Uint8Array());
        expect(await objects().getPrefix('inbox/n/products.csv', 0)).toEqual(new Uint8Array());
      });
    });

    describe('source', () => {
      it('reads an object larger than one range whole or in part, in pieces, and null when absent', async () => {
        // Prepare: more than two of the S3 adapter's 1 MiB ranges, every byte told apart.
        const bytes = new Uint8Array(2.5 * 1024 * 1024).map((_, i) => (i * 7) % 251);
        await objects().put('inbox/n/large.csv', bytes, 'text/csv');
        const read = async (start: number, end: number) => {
          const source = await objects().source('inbox/n/large.csv');
          const pieces: Uint8Array[] = [];
          for await (const piece of source!.read(start, end)) pieces.push(piece);
          return { pieces: pieces.length, bytes: Buffer.concat(pieces) };
        };

        // Act
        const whole = await read(0, bytes.length);
        const middle = await read(1_000_000, 1_100_000);

        // Assess
        expect((await objects().source('inbox/n/large.csv'))?.size).toBe(bytes.length);
        expect(whole.pieces).toBeGreaterThan(1);
        // Compared as buffers: a deep equality of millions of elements takes seconds.
        expect(Buffer.compare(whole.bytes, bytes)).toBe(0);
        expect(Buffer.compare(middle.bytes, bytes.slice(1_000_000, 1_100_000))).toBe(0);
        expect(await objects().source('inbox/n/missing.csv')).toBeNull();
      });
    });

    describe('copy', () => {
      it('copies an object to another key, keys with spaces, accents and brackets included; the source stays', async () => {
        // Prepare
        const from = 'inbox/Catálogo de peças/Ficha técnica - anexo (1).pdf';
        const to = 'outbox/b/pdfs/Ficha técnica - anexo (1).pdf';
        await objects().put(from, '%PDF-1.7 ficha', 'application/pdf');

        // Act
        await objects().copy(from, to);

        // Assess
        expect(text(await objects().getBytes(to))).toBe('%PDF-1.7 ficha');
        expect(text(await objects().getBytes(from))).toBe('%PDF-1.7 ficha');
        expect((await objects().head(to))?.etag).toBe((await objects().head(from))?.etag);
      });

      it('replaces what the target key held', async () => {
        // Prepare
        await objects().put('outbox/b/results.csv', 'new', 'text/csv');
        await objects().put('outbox/b/results.rev1.csv', 'old', 'text/csv');

        // Act
        await objects().copy('outbox/b/results.csv', 'outbox/b/results.rev1.csv');

        // Assess
        expect(text(await objects().getBytes('outbox/b/results.rev1.csv'))).toBe('new');
      });

      it('fails for a source that does not exist, and creates no target', async () => {
        await expect(objects().copy('inbox/missing.csv', 'outbox/b/copy.csv')).rejects.toThrow();
        expect(await objects().head('outbox/b/copy.csv')).toBeNull();
      });
    });

    describe('copyIfUnchanged', () => {
      it('replaces the target only while it is the object read, and creates one only where there was none', async () => {
        // Prepare: the file a writer read (short), and two longer copies made since
        const key = 'outbox/b/audit.csv';
        await objects().put('outbox/b/.audit/audit-1.csv', 'a\n', 'text/csv');
        await objects().put('outbox/b/.audit/audit-2.csv', 'a\nb\n', 'text/csv');
        await objects().put('outbox/b/.audit/audit-3.csv', 'a\nb\nc\n', 'text/csv');

        // Act: the first copy where there was none; a second over it; a third that read too early
        const first = await objects().copyIfUnchanged('outbox/b/.audit/audit-1.csv', key, null);
        const read = (await objects().head(key))!.etag;
        const second = await objects().copyIfUnchanged('outbox/b/.audit/audit-3.csv', key, read);
        const stale = await objects().copyIfUnchanged('outbox/b/.audit/audit-2.csv', key, read);
        const again = await objects().copyIfUnchanged('outbox/b/.audit/audit-2.csv', key, null);

        // Assess: the longest stays; the stale writes said so and wrote nothing
        expect([first, second, stale, again]).toEqual([true, true, false, false]);
        expect(text(await objects().getBytes(key))).toBe('a\nb\nc\n');
      });
    });

    describe('list', () => {
      it('lists the keys under a prefix, in key order, nested ones included', async () => {
        // Prepare
        for (const key of [
          'inbox/b/z.pdf',
          'inbox/b/fichas/2.pdf',
          'inbox/b/A.csv',
          'inbox/b/fichas/10.pdf',
          'inbox/bb/other.csv',
          'outbox/b/results.csv',
        ])
          await objects().put(key, key, 'application/octet-stream');

        // Act
        const listed = await objects().list('inbox/b/');

        // Assess
        expect(listed).toEqual([
          'inbox/b/A.csv',
          'inbox/b/fichas/10.pdf',
          'inbox/b/fichas/2.pdf',
          'inbox/b/z.pdf',
        ]);
        expect(await objects().list('inbox/b')).toEqual([
          ...listed.slice(0, 3),
          'inbox/b/z.pdf',
          'inbox/bb/other.csv',
        ]);
        expect(await objects().list('answers/')).toEqual([]);
      });
    });

    describe('an upload in parts', () => {
      it('puts the parts named together in order, a part sent again replacing the first', async () => {
        // Prepare: a first part at S3's least size, sent twice (a retried leg), and a short last part.
        const first = new Uint8Array(MIN_PART_BYTES).fill(0x61);
        const again = new Uint8Array(MIN_PART_BYTES).fill(0x62);
        const last = new TextEncoder().encode('fim\r\n');
        const key = 'outbox/b/results.csv';
        const uploadId = await objects().startUpload(key, 'text/csv');

        // Act: the parts out of order, as two legs could send them
        const lastTag = await objects().uploadPart(key, uploadId, 2, last);
        await objects().uploadPart(key, uploadId, 1, first);
        const againTag = await objects().uploadPart(key, uploadId, 1, again);
        expect(await objects().head(key)).toBeNull();
        await objects().completeUpload(key, uploadId, [
          { number: 1, etag: againTag },
          { number: 2, etag: lastTag },
        ]);

        // Assess
        const stored = await objects().getBytes(key);
        expect(stored?.byteLength).toBe(MIN_PART_BYTES + last.byteLength);
        expect(stored?.[0]).toBe(0x62);
        expect(stored?.[MIN_PART_BYTES - 1]).toBe(0x62);
        expect(new TextDecoder().decode(stored!.slice(MIN_PART_BYTES))).toBe('fim\r\n');
      });

      it('makes a part of the first bytes of another object, so a file grows without being read back', async () => {
        // Prepare: an object of S3's least part size and a few bytes more, which the copy leaves out.
        const old = new Uint8Array(MIN_PART_BYTES + 8).fill(0x6f);
        old.set(new TextEncoder().encode('left out'), MIN_PART_BYTES);
        await objects().put('outbox/b/audit.csv', old, 'text/csv');
        const key = 'outbox/b/audit.csv';
        const uploadId = await objects().startUpload(key, 'text/csv');

        // Act: its first MIN_PART_BYTES bytes as part 1, new lines as part 2, the file replaced
        const copied = await objects().copyPart(key, uploadId, 1, { key, bytes: MIN_PART_BYTES });
        const added = await objects().uploadPart(key, uploadId, 2, new TextEncoder().encode('novo\r\n'));
        await objects().completeUpload(key, uploadId, [
          { number: 1, etag: copied },
          { number: 2, etag: added },
        ]);

        // Assess: the old object's bytes up to the range's end, then the new ones
        const stored = await objects().getBytes(key);
        expect(stored?.byteLength).toBe(MIN_PART_BYTES + 6);
        expect(
          Buffer.from(stored!.slice(0, MIN_PART_BYTES)).equals(Buffer.from(old.slice(0, MIN_PART_BYTES))),
        ).toBe(true);
        expect(new TextDecoder().decode(stored!.slice(MIN_PART_BYTES))).toBe('novo\r\n');
      });
    });
  });
