/**
 * NF-e XML, or a ZIP of them → records: each invoice item (`det/prod`) as a catalogue row. (Being written.)
 */
import type { ByteSource } from './byte-source.js';
import { SpreadsheetError } from './errors.js';
import type { RecordSource } from './table.js';

/** Whether a text file's first bytes open with XML markup (after a BOM and blank space). */
export const looksLikeXml = (head: Uint8Array): boolean => {
  const text = Buffer.from(head)
    .toString('utf8')
    .replace(/^\uFEFF/, '')
    .trimStart();
  return text.startsWith('<?xml') || text.startsWith('<nfeProc') || text.startsWith('<NFe');
};

/** Whether a ZIP holds invoices rather than a workbook. */
export const isInvoiceArchive = async (_source: ByteSource, _fileName: string): Promise<boolean> => false;

export const openNfe = async (_source: ByteSource, fileName: string): Promise<RecordSource> => {
  throw new SpreadsheetError('nfe_not_an_invoice', fileName, 'NF-e files are not read yet');
};
