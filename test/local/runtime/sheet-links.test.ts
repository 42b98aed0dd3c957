/**
 * Links among a catalogue's sheets, through the local runtime's upload (bucket.ts) into s3rver and
 * the sheet checker Prepare and PrepareAnswers use: a link to a file inside the folder is followed,
 * a link out of it is not and its row says so (`sheet_outside_folder`), a link to nothing is a
 * sheet not found.
 */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, type S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropAnswers, dropBatch } from '../../../local/runtime/bucket.js';
import { type RunningS3, startS3 } from '../../../local/runtime/stand-ins.js';
import { createS3ObjectStore } from '../../../shared/aws/s3-object-store.js';
import { answersFolder, dropFolder } from '../../../shared/pipeline/core/bucket-layout.js';
import { sha256Hex } from '../../../shared/pipeline/core/keys.js';
import { sheetChecker } from '../../../shared/pipeline/prepare/sheet-checker.js';
import { s3rverClient } from '../../helpers/s3rver-client.js';
import { textPdf } from '../../sandbox/helpers/pdf.js';

const BUCKET = 'catalogue-bucket';

let dataDir = '';
let server: RunningS3 | null = null;
let s3: S3Client;
let pdf: Uint8Array;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'sheet-links-'));
  server = await startS3(join(dataDir, 'stand-in'), []);
  s3 = s3rverClient(server.endpoint);
  await s3.send(new CreateBucketCommand({ Bucket: BUCKET }));
  pdf = await textPdf(['Motor elétrico trifásico, 5 cv, 4 polos']);
});

afterAll(async () => {
  s3?.destroy();
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A catalogue folder as a user leaves it: a sheet, a link to it, a link to a PDF in another
 * folder of the machine, a link to nothing; and that other folder.
 */
const catalogueFolder = (name: string) => {
  const root = join(dataDir, name);
  const catalogue = join(root, 'catalogo');
  const elsewhere = join(root, 'outra-pasta');
  mkdirSync(join(catalogue, 'fichas'), { recursive: true });
  mkdirSync(elsewhere, { recursive: true });
  writeFileSync(join(catalogue, 'fichas', 'motor.pdf'), pdf);
  writeFileSync(join(elsewhere, 'segredo.pdf'), pdf);
  symlinkSync(join(catalogue, 'fichas', 'motor.pdf'), join(catalogue, 'fichas', 'mesmo-motor.pdf'));
  symlinkSync(join(elsewhere, 'segredo.pdf'), join(catalogue, 'fichas', 'fora.pdf'));
  symlinkSync('../../outra-pasta/segredo.pdf', join(catalogue, 'fichas', 'fora-relativo.pdf'));
  symlinkSync(join(catalogue, 'nada.pdf'), join(catalogue, 'quebrado.pdf'));
  symlinkSync(elsewhere, join(catalogue, 'pasta-ligada'));
  const file = join(catalogue, 'produtos.csv');
  writeFileSync(file, 'SKU;Descrição;Ficha\r\nSKU-1;;fichas/fora.pdf\r\n');
  return { catalogue, file };
};

describe('a catalogue folder dropped by the local runtime', () => {
  it('follows links inside the folder, refuses those out of it by name, and finds no link to nothing', async () => {
    const { catalogue, file } = catalogueFolder('batch');
    await dropBatch(s3, BUCKET, { file, sheetsDir: catalogue, batchName: 'links' });
    const objects = createS3ObjectStore({ client: s3, bucket: BUCKET });
    const check = sheetChecker(objects, dropFolder('inbox', 'links'), 'the batch folder');

    expect(await check('fichas/motor.pdf')).toMatchObject({ sheet: { sha256: sha256Hex(pdf) } });
    expect(await check('fichas/mesmo-motor.pdf')).toMatchObject({ sheet: { sha256: sha256Hex(pdf) } });
    for (const link of ['fichas/fora.pdf', 'fichas/fora-relativo.pdf']) {
      expect(await check(link)).toEqual({
        reason: 'sheet_outside_folder',
        why:
          'is a link to a file outside the batch folder; links out of the folder are not followed. ' +
          'Put the file itself in the folder',
      });
      // Nothing of the file out of the folder went up.
      expect((await objects.getBytes(`${dropFolder('inbox', 'links')}${link}`))?.byteLength).toBe(0);
    }
    expect(await check('quebrado.pdf')).toMatchObject({ reason: 'sheet_not_found' });
  });

  it('treats the sheets an answers file names the same way', async () => {
    const { catalogue, file } = catalogueFolder('answers');
    const { missingSheets } = await dropAnswers(s3, BUCKET, {
      file,
      batchId: 'links-abc',
      sheets: ['fichas/mesmo-motor.pdf', 'fichas/fora.pdf', 'quebrado.pdf', 'pasta-ligada/segredo.pdf'],
      sheetsDir: catalogue,
      requester: 'tester',
    });
    const check = sheetChecker(
      createS3ObjectStore({ client: s3, bucket: BUCKET }),
      answersFolder('links-abc'),
    );

    expect(missingSheets).toEqual(['quebrado.pdf']);
    expect(await check('fichas/mesmo-motor.pdf')).toMatchObject({ sheet: { sha256: sha256Hex(pdf) } });
    expect(await check('fichas/fora.pdf')).toMatchObject({ reason: 'sheet_outside_folder' });
    // A file reached through a linked folder is out of the folder too: none of its bytes go up.
    expect(await check('pasta-ligada/segredo.pdf')).toMatchObject({ reason: 'sheet_outside_folder' });
    const secret = await createS3ObjectStore({ client: s3, bucket: BUCKET }).getBytes(
      `${answersFolder('links-abc')}pasta-ligada/segredo.pdf`,
    );
    expect(secret?.byteLength).toBe(0);
  });
});
