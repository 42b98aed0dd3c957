/**
 * A sheet that is not a readable PDF rejects its row at Prepare, naming the file and what is
 * wrong, and is never taken for a scan: real PDFs made by pdfkit, cut short; a text file named
 * `.pdf`; the same through Prepare's rows and warnings.
 */
import { describe, expect, it } from 'vitest';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import { pdfDamage, sheetChecker } from '../../../../shared/pipeline/prepare/sheet-checker.js';
import { memoryObjectStore, memoryPipelinePorts } from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { scanPdf, textPdf } from '../../../sandbox/helpers/pdf.js';
import { ACCEPTED_COUNTRIES } from '../../spreadsheet/fixtures.js';

const FOLDER = 'inbox/lote/';
const sheetText = ['Motor elétrico trifásico, 5 cv, 4 polos', 'Carcaça de ferro fundido, IP55'];
/** The first `share` of a PDF's bytes: what an interrupted copy or upload leaves. */
const cut = (bytes: Uint8Array, share = 0.6) => bytes.slice(0, Math.floor(bytes.byteLength * share));

describe('checking a sheet in the bucket', () => {
  const checkerOver = (objects: Record<string, Uint8Array | string>) =>
    sheetChecker(
      memoryObjectStore(Object.fromEntries(Object.entries(objects).map(([k, v]) => [`${FOLDER}${k}`, v]))),
      FOLDER,
    );

  it('takes a whole PDF, with what it knows of its text', async () => {
    const pdf = await textPdf(sheetText);
    const check = checkerOver({ 'fichas/motor.pdf': pdf, 'fichas/scan.pdf': await scanPdf() });

    expect(await check('fichas/motor.pdf')).toMatchObject({
      sheet: { key: `${FOLDER}fichas/motor.pdf`, size: pdf.byteLength, text_layer: true },
    });
    expect(await check('fichas/scan.pdf')).toMatchObject({ sheet: { text_layer: false } });
  });

  it('refuses a PDF cut short, saying so, whether it had text or was a scan', async () => {
    const check = checkerOver({
      'motor.pdf': cut(await textPdf(sheetText)),
      'scan.pdf': cut(await scanPdf(), 0.9),
    });

    for (const name of ['motor.pdf', 'scan.pdf']) {
      expect(await check(name)).toEqual({
        reason: 'sheet_damaged',
        why:
          'is cut short: it does not end as a PDF does (no "%%EOF" marker), so it was not saved or ' +
          'copied whole. Save or export it again',
      });
    }
  });

  it('refuses a text file named .pdf as not a PDF', async () => {
    const check = checkerOver({ 'ficha.pdf': 'Ficha técnica\nMotor elétrico trifásico, 5 cv\n' });

    expect(await check('ficha.pdf')).toEqual({
      reason: 'sheet_not_pdf',
      why: 'is not a PDF file (its content does not start with "%PDF-")',
    });
  });

  it('refuses a link not followed out of the folder by why, not as a file not found', async () => {
    const objects = memoryObjectStore({ [`${FOLDER}fora.pdf`]: new Uint8Array() });
    const { head } = objects;
    objects.head = async (key) => {
      const found = await head(key);
      return found && key.endsWith('fora.pdf') ? { ...found, notFollowed: 'link_outside_folder' } : found;
    };

    expect(await sheetChecker(objects, FOLDER)('Fora.PDF')).toMatchObject({
      reason: 'sheet_outside_folder',
      why: expect.stringMatching(/^is a link to a file outside the batch folder; links out of the folder/),
    });
    expect(await sheetChecker(objects, FOLDER)('outra.pdf')).toMatchObject({ reason: 'sheet_not_found' });
  });

  it('looks only at the end of a PDF for its end-of-file marker, bytes after it allowed', async () => {
    const pdf = await textPdf(sheetText);
    const withTrailer = new Uint8Array([...pdf, ...new TextEncoder().encode('\r\n\0\0\0 ')]);

    expect(pdfDamage(pdf)).toBeNull();
    expect(pdfDamage(withTrailer)).toBeNull();
    // `%%EOF` far from the end: an earlier revision's, a later one cut short.
    expect(pdfDamage(new Uint8Array([...pdf, ...new Uint8Array(4096).fill(0x20), 0x31]))).toMatch(
      /^is cut short/,
    );
  });
});

describe('Prepare with sheets that are not readable PDFs', () => {
  it('rejects their rows naming the file and what is wrong, and warns of no scan', async () => {
    const file = 'inbox/lote/produtos.csv';
    const ports = memoryPipelinePorts(
      {
        [file]: [
          'SKU;Descrição;País;Operação;Ficha',
          'SKU-1;;BR;import;fichas/digitalizada.pdf',
          'SKU-2;;BR;import;fichas/notas.pdf',
          'SKU-3;;BR;import;fichas/motor.pdf',
        ].join('\r\n'),
        [`${FOLDER}fichas/digitalizada.pdf`]: cut(await scanPdf(), 0.8),
        [`${FOLDER}fichas/notas.pdf`]: 'Motor elétrico trifásico, 5 cv, 4 polos\n',
        [`${FOLDER}fichas/motor.pdf`]: await textPdf(sheetText),
      },
      ACCEPTED_COUNTRIES,
    );
    const event = objectCreatedEvent('catalogue-bucket', file);
    const batchId = batchSourceFromEvent(event)!.batchId;

    await prepareBatch(ports, { event, execution_id: 'exec-1' });

    const rows = await Promise.all([1, 2, 3].map((row) => ports.batches.getRow(batchId, row)));
    expect(rows.map((row) => [row?.status, row?.result?.reason])).toEqual([
      ['rejected', 'sheet_damaged'],
      ['rejected', 'sheet_not_pdf'],
      ['queued', undefined],
    ]);
    expect(rows[0]?.result?.detail).toBe(
      'Column "Ficha": "fichas/digitalizada.pdf" is cut short: it does not end as a PDF does (no "%%EOF" ' +
        'marker), so it was not saved or copied whole. Save or export it again.',
    );
    expect(rows[1]?.result?.detail).toBe(
      'Column "Ficha": "fichas/notas.pdf" is not a PDF file (its content does not start with "%PDF-").',
    );
    const batch = await ports.batches.getBatch(batchId);
    expect(JSON.stringify(batch?.warnings ?? [])).not.toMatch(/text layer|scan/);
  });
});
