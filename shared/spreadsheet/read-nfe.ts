/**
 * NF-e XML, or a ZIP of them → records: each invoice item (`infNFe/det/prod`) as a catalogue row,
 * under a header naming the NF-e's own fields (nfe-invoice.ts, `NFE_COLUMNS`). A ZIP's entries are
 * read one after the other, one invoice in memory at a time (nfe-zip.ts); what in it is not an
 * NF-e (an event, a cancellation, a PDF) is skipped and named in the pass's `nfe_documents_read`.
 *
 * A record's `line` is the line of the item's `<det>` tag in its XML (in a ZIP, in its entry's XML):
 * the `chNFe` and `nItem` cells say which invoice and item it is.
 */
import type { Readable } from 'node:stream';
import { inflateRawSync } from 'node:zlib';
import { type ByteSource, readBytes } from './byte-source.js';
import { SpreadsheetError } from './errors.js';
import {
  type DocumentPlace,
  NFE_COLUMNS,
  type NfeInvoice,
  type ParsedDocument,
  parseNfeDocument,
} from './nfe-invoice.js';
import { type ArchiveEntry, archiveEntries, openArchive } from './nfe-zip.js';
import type { SpreadsheetProblem } from './schemas.js';
import { counted } from './sentence-parts.js';
import type { RecordSource, SourceRecord } from './table.js';
import { SourceReadFailure } from './zip-source.js';

const MEGABYTE = 1024 * 1024;

/**
 * The most one invoice's XML may hold once inflated: 10 MB. An NF-e has at most 990 items, and an
 * item with every tax group and an import's additions written out runs to 4 or 5 KB, so the largest
 * invoice is under 5 MB; twice that leaves room for indentation and signatures, and no more.
 */
const MAX_INVOICE_BYTES = 10 * MEGABYTE;

/**
 * The most entries a ZIP may hold: 400,000, as many as a batch takes rows (read-spreadsheet.ts,
 * `MAX_DATA_ROWS`), since each invoice brings at least one item.
 */
const MAX_ARCHIVE_ENTRIES = 400_000;

/**
 * The most a ZIP's XMLs may inflate to in all: 4 GiB, what 400,000 one-item invoices of 8 KB come
 * to, so a ZIP whose entries overlap to inflate the same bytes again and again stops there.
 */
const MAX_ARCHIVE_INFLATED_BYTES = 4 * 1024 * MEGABYTE;

/** Names quoted in a notice or a refusal: the first ones, then how many more. */
const LISTED_NAMES = 20;

/** Whether a text file's first bytes open with XML markup (after a BOM and blank space). */
export const looksLikeXml = (head: Uint8Array): boolean => {
  // Excel's "Unicode Text" is UTF-16 too: after the byte-order mark, the markup decides.
  const encoding =
    head[0] === 0xff && head[1] === 0xfe
      ? 'utf-16le'
      : head[0] === 0xfe && head[1] === 0xff
        ? 'utf-16be'
        : 'utf-8';
  const text = new TextDecoder(encoding)
    .decode(head)
    .replace(/^\uFEFF/, '')
    .trimStart();
  // An NF-e or one of its events saved without the XML declaration: `<nfeProc`, `<NFe`, `<procEventoNFe`.
  return text.startsWith('<?xml') || /^<(?:[A-Za-z_][\w.-]*:)?\w*nfe/i.test(text);
};

/**
 * What tells a workbook's ZIP: `[Content_Types].xml`, which every package holds (ECMA-376, Open
 * Packaging Conventions), or the workbook part itself, all the XLSX reader needs to read one.
 */
const WORKBOOK_MARKERS: ReadonlySet<string> = new Set(['[content_types].xml', 'xl/workbook.xml']);

/**
 * Whether a ZIP holds invoices rather than a workbook: one without `[Content_Types].xml` (or the
 * workbook part) is no workbook. A ZIP whose directory cannot be read is taken as invoices when it is named `.zip`, so
 * its refusal says the ZIP is damaged rather than that it is not a valid XLSX.
 */
export const isInvoiceArchive = async (source: ByteSource, fileName: string): Promise<boolean> => {
  try {
    const zip = await openArchive(source);
    let entries = 0;
    for await (const entry of archiveEntries(zip)) {
      if (WORKBOOK_MARKERS.has(entry.name.toLowerCase())) return false;
      entries += 1;
      if (entries > MAX_ARCHIVE_ENTRIES) return true;
    }
    return true;
  } catch (error) {
    if (error instanceof SourceReadFailure) throw error.cause;
    return /\.zip$/i.test(fileName);
  }
};

/** What is wrong with a damaged ZIP, when it is one of the kinds the wording names in each language. */
type ZipDamage = 'directory' | 'inflate' | 'longer' | 'shorter';

const damaged = (
  fileName: string,
  found: { detail: string; damage?: ZipDamage; part?: string },
  cause?: unknown,
): SpreadsheetError => {
  const { detail, damage, part } = found;
  return new SpreadsheetError(
    'zip_damaged',
    fileName,
    `the ZIP file is damaged${part ? ` at ${part}` : ''} (${detail}); zip the XMLs again and upload it`,
    {},
    { cause, details: { ...(part ? { part } : {}), detail, ...(damage ? { damage } : {}) } },
  );
};

const invoiceTooLarge = (place: DocumentPlace): SpreadsheetError =>
  new SpreadsheetError(
    'nfe_too_large',
    place.fileName,
    `${place.part ? `${place.part}: ` : ''}the XML is larger than ${counted(MAX_INVOICE_BYTES / MEGABYTE)} MB, ` +
      'far more than an NF-e of 990 items holds; upload the invoices themselves',
    {},
    { details: { ...(place.part ? { part: place.part } : {}), limit_mb: MAX_INVOICE_BYTES / MEGABYTE } },
  );

const notAnInvoice = (place: DocumentPlace, root: string): SpreadsheetError =>
  new SpreadsheetError(
    'nfe_not_an_invoice',
    place.fileName,
    `${place.part ? `${place.part}: ` : ''}is an XML but not an NF-e (its root element is <${root}>, where an ` +
      'NF-e has <nfeProc> or <NFe>); upload the authorised invoice’s XML',
    {},
    { details: { ...(place.part ? { part: place.part } : {}), root } },
  );

/** A foreign party's country code the BACEN table does not have: the items keep an empty `país`. */
const countryUnknown = (place: DocumentPlace, invoice: NfeInvoice, line: number): SpreadsheetProblem => {
  const { code, name } = invoice.unknownCountry ?? { code: '', name: '' };
  const where = `${place.fileName}${place.part ? `, ${place.part}` : ''}`;
  return {
    code: 'nfe_country_unknown',
    line,
    message:
      `${where}: the NF-e ${invoice.key} is an import or export, but the foreign ` +
      (code === ''
        ? "party's country has no code (cPais)"
        : `party's country code "${code}"${name ? ` (${name})` : ''} is not in BACEN's table of countries`) +
      "; its items' country is left empty, so batch.json's country applies",
    said: {
      code: 'nfe_country_unknown',
      params: { file: place.fileName, part: place.part ?? null, invoice: invoice.key, code, name },
    },
  };
};

/** The records of one parsed invoice: its items, and what the pass should say about it. */
function* invoiceRecords(
  invoice: NfeInvoice,
  place: DocumentPlace,
  problems: SpreadsheetProblem[],
): Generator<SourceRecord> {
  if (invoice.unknownCountry) problems.push(countryUnknown(place, invoice, invoice.items[0]?.line ?? 1));
  for (const item of invoice.items) yield { line: item.line, cells: item.cells };
}

const HEADER: SourceRecord = { line: 1, cells: [...NFE_COLUMNS] };

/** A whole single XML file: read at once, refused past the size of the largest invoice. */
const readSingleXml = async function* (
  source: ByteSource,
  fileName: string,
  problems: SpreadsheetProblem[],
): AsyncGenerator<SourceRecord> {
  const place = { fileName };
  if (source.size > MAX_INVOICE_BYTES) throw invoiceTooLarge(place);
  const parsed = parseNfeDocument(await readBytes(source, 0, source.size), place);
  if ('root' in parsed) throw notAnInvoice(place, parsed.root);
  yield HEADER;
  yield* invoiceRecords(parsed.invoice, place, problems);
};

/** The names quoted in a sentence: the first `LISTED_NAMES`, and how many more there were. */
class NameList {
  readonly names: string[] = [];
  more = 0;
  add(name: string): void {
    if (this.names.length < LISTED_NAMES) this.names.push(name);
    else this.more += 1;
  }
  get english(): string {
    return `${this.names.map((name) => `"${name}"`).join(', ')}${this.more > 0 ? ` and ${counted(this.more)} more` : ''}`;
  }
}

/** What a ZIP pass has read so far, for its closing notice. */
interface ArchiveTally {
  invoices: number;
  items: number;
  inflated: number;
  skipped: NameList;
}

/**
 * An entry's first bytes, enough to tell XML from anything else, and the rest on demand: counted
 * against the invoice limit, and against the size the directory declares (a lying size is damage).
 */
const entryBytes = async (
  entry: ArchiveEntry,
  place: DocumentPlace & { part: string },
  tally: ArchiveTally,
): Promise<Buffer | null> => {
  const small = entry.size <= MAX_INVOICE_BYTES && entry.compressedSize <= MAX_INVOICE_BYTES;
  const bytes = small ? await smallEntryBytes(entry, place) : await streamedEntryBytes(entry, place);
  if (!bytes || !looksLikeXml(bytes.subarray(0, 512))) return null;
  tally.inflated += bytes.byteLength;
  if (tally.inflated > MAX_ARCHIVE_INFLATED_BYTES)
    throw archiveTooLarge(place.fileName, { limit_mb: MAX_ARCHIVE_INFLATED_BYTES / MEGABYTE });
  return bytes;
};

const inflatesLonger = (entry: ArchiveEntry, place: DocumentPlace & { part: string }): SpreadsheetError =>
  damaged(place.fileName, {
    detail: `it inflates past the ${counted(entry.size)} bytes the directory says`,
    damage: 'longer',
    part: place.part,
  });

const inflatesShorter = (
  entry: ArchiveEntry,
  total: number,
  place: DocumentPlace & { part: string },
): SpreadsheetError =>
  damaged(place.fileName, {
    detail: `it inflates to ${counted(total)} bytes where the directory says ${counted(entry.size)}: it is cut short`,
    damage: 'shorter',
    part: place.part,
  });

/**
 * An entry no larger than an invoice may be (nearly every one): its stored bytes read whole and
 * inflated at once, never past the size the directory declares. A month of invoices is tens of
 * thousands of these; inflating each through a stream costs more in round trips than in work.
 */
const smallEntryBytes = async (
  entry: ArchiveEntry,
  place: DocumentPlace & { part: string },
): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  const stream = await entry.openStored();
  try {
    for await (const chunk of stream) chunks.push(chunk as Buffer);
  } finally {
    stream.destroy();
  }
  const stored = Buffer.concat(chunks);
  let bytes: Buffer;
  try {
    bytes = entry.deflated ? inflateRawSync(stored, { maxOutputLength: entry.size + 1 }) : stored;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE') throw inflatesLonger(entry, place);
    throw error;
  }
  if (bytes.byteLength > entry.size) throw inflatesLonger(entry, place);
  if (bytes.byteLength < entry.size) throw inflatesShorter(entry, bytes.byteLength, place);
  return bytes;
};

/**
 * An entry that declares more than an invoice may hold: its first inflated bytes tell an XML
 * (refused, too large) from anything else (a PDF of scans: skipped, without reading it further).
 */
const streamedEntryBytes = async (
  entry: ArchiveEntry,
  place: DocumentPlace & { part: string },
): Promise<Buffer | null> => {
  const stream: Readable = await entry.open();
  const chunks: Buffer[] = [];
  let total = 0;
  let sniffed = false;
  try {
    for await (const chunk of stream) {
      const bytes = chunk as Buffer;
      chunks.push(bytes);
      total += bytes.byteLength;
      if (!sniffed && (total >= 512 || total >= entry.size)) {
        sniffed = true;
        if (!looksLikeXml(Buffer.concat(chunks).subarray(0, 512))) return null;
        if (entry.size > MAX_INVOICE_BYTES) throw invoiceTooLarge(place);
      }
      if (total > MAX_INVOICE_BYTES) throw invoiceTooLarge(place);
      if (total > entry.size) throw inflatesLonger(entry, place);
    }
  } finally {
    stream.destroy();
  }
  if (total < entry.size) throw inflatesShorter(entry, total, place);
  return Buffer.concat(chunks);
};

const archiveTooLarge = (fileName: string, limit: { limit?: number; limit_mb?: number }): SpreadsheetError =>
  new SpreadsheetError(
    'zip_too_large',
    fileName,
    limit.limit !== undefined
      ? `the ZIP holds more than ${counted(limit.limit)} files, more than one batch reads; split it into smaller ZIPs`
      : `the ZIP's XMLs inflate past ${counted((limit.limit_mb ?? 0) / 1024)} GB in all, more than one batch reads; ` +
          'split it into smaller ZIPs',
    {},
    { details: limit },
  );

/** zlib's errors carry a `Z_…` code (`Z_DATA_ERROR`: the deflated bytes are damaged). */
const isZlibError = (error: unknown): boolean => {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('Z_');
};

/** Any failure reading the archive itself: our refusals pass, the source's failure is rethrown as it was. */
const archiveFailure = (error: unknown, fileName: string, part?: string): unknown => {
  if (error instanceof SpreadsheetError) return error;
  if (error instanceof SourceReadFailure) return error.cause;
  if (part) {
    const found = isZlibError(error)
      ? { detail: 'its compressed bytes do not inflate', damage: 'inflate' as const }
      : { detail: `it cannot be read: ${error instanceof Error ? error.message : String(error)}` };
    return damaged(fileName, { ...found, part }, error);
  }
  return damaged(
    fileName,
    {
      detail: 'its directory cannot be read: the file is cut short, or it is not a ZIP archive',
      damage: 'directory',
    },
    error,
  );
};

/** One entry parsed, or null when it is no XML; what goes wrong in it is said naming it. */
const readEntry = async (
  entry: ArchiveEntry,
  place: DocumentPlace & { part: string },
  tally: ArchiveTally,
): Promise<ParsedDocument | null> => {
  try {
    const bytes = await entryBytes(entry, place, tally);
    return bytes ? parseNfeDocument(bytes, place) : null;
  } catch (error) {
    throw archiveFailure(error, place.fileName, place.part);
  }
};

/** A ZIP's invoices, entry after entry; the notice of what was read and skipped closes the pass. */
const readArchive = async function* (
  source: ByteSource,
  fileName: string,
  problems: SpreadsheetProblem[],
): AsyncGenerator<SourceRecord> {
  const tally: ArchiveTally = { invoices: 0, items: 0, inflated: 0, skipped: new NameList() };
  let entries = 0;
  try {
    const zip = await openArchive(source);
    for await (const entry of archiveEntries(zip)) {
      entries += 1;
      if (entries > MAX_ARCHIVE_ENTRIES) throw archiveTooLarge(fileName, { limit: MAX_ARCHIVE_ENTRIES });
      if (entry.isDirectory) continue;
      const place = { fileName, part: entry.name };
      const parsed = await readEntry(entry, place, tally);
      if (!parsed || 'root' in parsed) {
        tally.skipped.add(entry.name);
        continue;
      }
      if (tally.invoices === 0) yield HEADER;
      tally.invoices += 1;
      tally.items += parsed.invoice.items.length;
      yield* invoiceRecords(parsed.invoice, place, problems);
    }
  } catch (error) {
    throw archiveFailure(error, fileName);
  }
  if (tally.invoices === 0) {
    throw new SpreadsheetError(
      'zip_no_invoices',
      fileName,
      'is a ZIP file with no NF-e XML and no workbook in it' +
        (tally.skipped.names.length > 0 ? ` (it holds ${tally.skipped.english})` : '') +
        '; upload the invoices’ XMLs zipped, or the spreadsheet',
      {},
      { details: { found: tally.skipped.names, more: tally.skipped.more } },
    );
  }
  problems.push(documentsRead(fileName, tally));
};

const documentsRead = (fileName: string, tally: ArchiveTally): SpreadsheetProblem => ({
  code: 'nfe_documents_read',
  message:
    `${fileName}: ${counted(tally.invoices)} NF-e read, ${counted(tally.items)} ${tally.items === 1 ? 'item' : 'items'}` +
    (tally.skipped.names.length > 0 ? `; skipped as not NF-e: ${tally.skipped.english}` : ''),
  said: {
    code: 'nfe_documents_read',
    params: {
      file: fileName,
      invoices: tally.invoices,
      items: tally.items,
      skipped: tally.skipped.names,
      more: tally.skipped.more,
    },
  },
});

/** Every ZIP, workbook or not, opens with a local file header `PK\x03\x04`. */
const isZip = async (source: ByteSource): Promise<boolean> => {
  const head = await readBytes(source, 0, Math.min(source.size, 4));
  return head[0] === 0x50 && head[1] === 0x4b && head[2] === 0x03 && head[3] === 0x04;
};

/**
 * One NF-e XML or a ZIP of them as records, read afresh on each call: the header record naming
 * the columns, then each item in document order (in a ZIP, entry after entry as the directory
 * lists them).
 */
export const openNfe = async (source: ByteSource, fileName: string): Promise<RecordSource> => {
  const archive = await isZip(source);
  return {
    read: () => {
      const problems: SpreadsheetProblem[] = [];
      return {
        records: archive
          ? readArchive(source, fileName, problems)
          : readSingleXml(source, fileName, problems),
        problems,
      };
    },
  };
};
