/**
 * results.xlsx with its verdict PDFs, as one ZIP a person downloads from the console: the
 * workbook links each verdict as `pdfs/<file>.pdf` beside it, which a workbook downloaded alone
 * does not have, so the ZIP holds `results.xlsx` and `pdfs/` as the outbox does and every link
 * opens once it is unpacked.
 *
 * Made when first asked for and kept in the outbox (`downloads/results-with-pdfs.zip`), named by
 * the ETag of the results.xlsx it holds: an answers round that revises the workbook makes the next
 * request build it again. Its size is bounded by the batch's distinct verdicts (one PDF per
 * product classified, not per row), read a few at a time; a bundle past `bundleBytes` is refused
 * with what to do instead.
 */
import { posix } from 'node:path';
import { outboxFolder, outboxKey } from '../pipeline/core/bucket-layout.js';
import { mapLimited } from '../pipeline/core/calls-in-parallel.js';
import { addWholeEntry, finishZip, startZip, type ZipProgress } from '../spreadsheet/zip-in-legs.js';
import { CONSOLE_LIMITS, RESULTS_BUNDLE } from './api.js';
import type { ConsolePorts } from './ports.js';
import { ConsoleRefusal } from './refusals.js';

/** Where the bundle is kept in the batch's outbox. */
const resultsBundleKey = (batchId: string): string => outboxKey(batchId, `downloads/${RESULTS_BUNDLE}`);

/** The metadata naming the results.xlsx a bundle holds. */
const HOLDS = 'results-etag';
const PDFS_READ_AT_ONCE = 8;
const ZIP_CONTENT_TYPE = 'application/zip';

/**
 * Takes a finished batch's id and name, and gives the key of its results bundle, built (or built
 * again, when results.xlsx changed since) from the outbox's results.xlsx and pdfs/; refuses when
 * the batch has no results.xlsx yet, or the bundle would be too large to make here.
 */
export const resultsBundle = async (
  ports: Pick<ConsolePorts, 'objects' | 'clock'>,
  batch: { batch_id: string; name: string },
): Promise<string> => {
  const workbookKey = outboxKey(batch.batch_id, 'results.xlsx');
  const workbook = await ports.objects.head(workbookKey);
  if (!workbook)
    throw new ConsoleRefusal(404, 'file_not_found', `Batch ${batch.name} has no results.xlsx (yet).`, {
      file: RESULTS_BUNDLE,
      batch_name: batch.name,
    });
  const key = resultsBundleKey(batch.batch_id);
  const kept = await ports.objects.head(key);
  if (kept?.metadata?.[HOLDS] === workbook.etag) return key;

  const pdfFolder = `${outboxFolder(batch.batch_id)}pdfs/`;
  const pdfKeys = (await ports.objects.list(pdfFolder))
    .filter((pdf) => pdf.toLowerCase().endsWith('.pdf'))
    .sort();
  const sizes = await mapLimited(
    pdfKeys,
    PDFS_READ_AT_ONCE,
    async (pdf) => (await ports.objects.head(pdf))?.size ?? 0,
  );
  const total = workbook.size + sizes.reduce((sum, size) => sum + size, 0);
  if (total > CONSOLE_LIMITS.bundleBytes)
    throw new ConsoleRefusal(
      413,
      'bundle_too_large',
      `The results of batch ${batch.name} with their ${pdfKeys.length} verdict PDFs come to ${total} bytes, more than a download made here holds (${CONSOLE_LIMITS.bundleBytes}): download results.xlsx, and copy the outbox's pdfs/ folder beside it.`,
      { batch_name: batch.name, pdfs: pdfKeys.length, size: total, max: CONSOLE_LIMITS.bundleBytes },
    );

  const parts: Buffer[] = [];
  let zip: ZipProgress = startZip(ports.clock.now());
  const add = (name: string, bytes: Uint8Array) => {
    const step = addWholeEntry(zip, name, bytes);
    parts.push(step.bytes);
    zip = step.zip;
  };
  add('results.xlsx', (await ports.objects.getBytes(workbookKey)) ?? new Uint8Array());
  // Read a few at a time and deflated as they come, so the raw PDFs are never all held at once;
  // added in name order: the same outbox makes the same archive.
  for (let at = 0; at < pdfKeys.length; at += PDFS_READ_AT_ONCE) {
    const batchOfKeys = pdfKeys.slice(at, at + PDFS_READ_AT_ONCE);
    const read = await mapLimited(batchOfKeys, PDFS_READ_AT_ONCE, (pdf) => ports.objects.getBytes(pdf));
    batchOfKeys.forEach((pdf, index) => {
      const bytes = read[index];
      if (bytes) add(`pdfs/${posix.relative(pdfFolder, pdf)}`, bytes);
    });
  }
  parts.push(finishZip(zip));
  await ports.objects.put(key, Buffer.concat(parts), ZIP_CONTENT_TYPE, { [HOLDS]: workbook.etag });
  return key;
};
