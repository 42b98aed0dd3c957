/**
 * One NF-e 4.00 XML → its items (`infNFe/det/prod`), each as a catalogue row named as the NF-e
 * names its fields (read-nfe.ts reads files and ZIPs of them). The whole document is parsed at
 * once: an NF-e holds at most 990 items, a few MB at most (read-nfe.ts, `MAX_INVOICE_BYTES`).
 * Parsed by the workbook reader's XML parser: no DTD is read and no entity expanded or fetched.
 */
import { BACEN_BRAZIL, isoCountryOfBacen } from './bacen-countries.js';
import { SpreadsheetError } from './errors.js';
import { parseXmlText, XmlNotWellFormed } from './xlsx-zip.js';

/** The fields read from the invoice's header (`ide`, `emit`, `dest`) and from each item's `prod`. */
const INVOICE_COLUMNS = [
  'chNFe',
  'nItem',
  'dhEmi',
  'tpNF',
  'emit_CNPJ',
  'emit_xNome',
  'dest_xNome',
  'dest_xPais',
];
const ITEM_FIELDS = [
  'cProd',
  'cEAN',
  'xProd',
  'NCM',
  'CEST',
  'EXTIPI',
  'CFOP',
  'uCom',
  'qCom',
  'vUnCom',
  'vProd',
] as const;

/**
 * The columns every NF-e is read into, in order: its own fields, then two the reader derives from
 * the item's CFOP and the foreign party's country (columns.ts maps them to operation and country).
 */
export const NFE_COLUMNS: readonly string[] = [...INVOICE_COLUMNS, ...ITEM_FIELDS, 'operação', 'país'];

/** The roots an NF-e's XML has: the stored invoice with its authorisation, or the invoice alone. */
const INVOICE_ROOTS = new Set(['nfeProc', 'NFe']);

interface NfeItem {
  /** The 1-based line of the XML the item's `<det>` tag is on. */
  line: number;
  /** In `NFE_COLUMNS` order. */
  cells: string[];
}

export interface NfeInvoice {
  /** The 44-digit access key (`infNFe/@Id` without its `NFe` prefix). */
  key: string;
  items: NfeItem[];
  /** The foreign party's BACEN country code when an import or export item needs it and it is not in the table. */
  unknownCountry: { code: string; name: string } | null;
}

/** Where a document came from: the file, and its entry when the file is a ZIP. */
export interface DocumentPlace {
  fileName: string;
  part?: string;
}

export type ParsedDocument = { invoice: NfeInvoice } | { root: string };

const partPrefix = (part?: string): string => (part ? `${part}: ` : '');

const malformed = (place: DocumentPlace, detail: string, cause?: unknown): SpreadsheetError =>
  new SpreadsheetError(
    'nfe_xml_malformed',
    place.fileName,
    `${partPrefix(place.part)}the XML is damaged (${detail}); download the invoice's XML again`,
    {},
    { cause, details: { ...(place.part ? { part: place.part } : {}), detail } },
  );

const entityDeclared = (place: DocumentPlace): SpreadsheetError =>
  new SpreadsheetError(
    'nfe_entity_declared',
    place.fileName,
    `${partPrefix(place.part)}the XML declares an entity (<!DOCTYPE …>), which an NF-e never holds; it is ` +
      'refused so no entity is ever expanded or fetched',
    {},
    { details: place.part ? { part: place.part } : {} },
  );

/** The encoding an XML declares in its first line (`<?xml version="1.0" encoding="ISO-8859-1"?>`). */
const declaredEncoding = (bytes: Uint8Array): string | null => {
  const head = Buffer.from(bytes.subarray(0, 200)).toString('latin1');
  return /^<\?xml[^>]*?\sencoding\s*=\s*["']([A-Za-z0-9._:-]+)["']/.exec(head)?.[1] ?? null;
};

/**
 * The document's text: UTF-8 as the NF-e's rules ask, or the encoding its byte-order mark or its
 * declaration names. Bytes that are not text in that encoding make it damaged, not guessed at.
 */
const decodeXml = (bytes: Uint8Array, place: DocumentPlace): string => {
  let label = 'utf-8';
  if (bytes[0] === 0xff && bytes[1] === 0xfe) label = 'utf-16le';
  else if (bytes[0] === 0xfe && bytes[1] === 0xff) label = 'utf-16be';
  else if (!(bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf))
    label = declaredEncoding(bytes) ?? label;
  let decoder: InstanceType<typeof TextDecoder>;
  try {
    decoder = new TextDecoder(label, { fatal: true });
  } catch (error) {
    throw malformed(place, `it declares the encoding "${label}", which is not one XML is written in`, error);
  }
  try {
    return decoder.decode(bytes);
  } catch (error) {
    throw malformed(place, `its bytes are not ${label.toUpperCase()} text, as the XML says they are`, error);
  }
};

/** Stops the parse at a root that is no NF-e's: nothing further in the document is needed. */
class NotAnInvoice extends Error {
  constructor(readonly root: string) {
    super(`root <${root}>`);
  }
}

/** `ide/dhEmi` → column: the invoice fields read, by their path under `infNFe`. */
const INVOICE_PATHS: Readonly<Record<string, string>> = {
  'ide/dhEmi': 'dhEmi',
  'ide/tpNF': 'tpNF',
  'emit/CNPJ': 'emit_CNPJ',
  // A person issuing an invoice has a CPF where a company has its CNPJ.
  'emit/CPF': 'emit_CNPJ',
  'emit/xNome': 'emit_xNome',
  'dest/xNome': 'dest_xNome',
  'dest/enderDest/xPais': 'dest_xPais',
  'dest/enderDest/cPais': 'cPais',
};
const ITEM_FIELD_SET: ReadonlySet<string> = new Set(ITEM_FIELDS);

/** An item's `operação`, by its CFOP's first digit: 3 from abroad, 7 to abroad; any other, the batch's. */
const operationOfCfop = (cfop: string): string =>
  cfop.startsWith('3') ? 'importação' : cfop.startsWith('7') ? 'exportação' : '';

/**
 * Parses one XML document: its invoice and items, or the root it has when it is no NF-e.
 * A DOCTYPE is refused (`nfe_entity_declared`), XML that is not well-formed or not text is
 * damaged (`nfe_xml_malformed`).
 */
export const parseNfeDocument = (bytes: Uint8Array, place: DocumentPlace): ParsedDocument => {
  const text = decodeXml(bytes, place);
  const stack: string[] = [];
  /** Where `infNFe` is in the stack; -1 until it opens. */
  let infAt = -1;
  let key = '';
  const header: Record<string, string> = {};
  const items: { line: number; nItem: string; fields: Record<string, string> }[] = [];
  let item: (typeof items)[number] | null = null;
  /** The field whose text is being read, and its text so far. */
  let reading: { into: Record<string, string>; name: string; text: string } | null = null;

  const relative = (): string => stack.slice(infAt + 1).join('/');
  try {
    parseXmlText(
      text,
      {
        open(name, attributes, line) {
          if (stack.length === 0 && !INVOICE_ROOTS.has(name)) throw new NotAnInvoice(name);
          stack.push(name);
          if (name === 'infNFe' && infAt === -1) {
            infAt = stack.length - 1;
            key = (attributes.Id ?? '').replace(/^NFe/, '');
            return;
          }
          if (infAt === -1) return;
          const path = relative();
          if (path === 'det') {
            item = { line, nItem: attributes.nItem ?? '', fields: {} };
            return;
          }
          const column = INVOICE_PATHS[path];
          if (column) reading = { into: header, name: column, text: '' };
          else if (
            item &&
            stack.length === infAt + 4 &&
            stack[infAt + 2] === 'prod' &&
            ITEM_FIELD_SET.has(name)
          ) {
            reading = { into: item.fields, name, text: '' };
          }
        },
        text(value) {
          if (reading) reading.text += value;
        },
        close(name) {
          if (reading) {
            reading.into[reading.name] = reading.text.trim();
            reading = null;
          }
          if (name === 'det' && item && stack.length === infAt + 2) {
            items.push(item);
            item = null;
          }
          if (stack.length - 1 === infAt) infAt = -1;
          stack.pop();
        },
      },
      () => {
        throw entityDeclared(place);
      },
    );
  } catch (error) {
    if (error instanceof NotAnInvoice) return { root: error.root };
    if (error instanceof XmlNotWellFormed) throw malformed(place, error.message, error);
    throw error;
  }
  return { invoice: invoiceOf(key, header, items) };
};

const invoiceOf = (
  key: string,
  header: Record<string, string>,
  items: readonly { line: number; nItem: string; fields: Record<string, string> }[],
): NfeInvoice => {
  const code = header.cPais ?? '';
  // A party in Brazil has no foreign country; one with no code, or a code not in the table, is said.
  const inBrazil = code !== '' && code.padStart(4, '0') === BACEN_BRAZIL;
  const iso = isoCountryOfBacen(code);
  let unknownCountry: NfeInvoice['unknownCountry'] = null;
  const rows = items.map(({ line, nItem, fields }): NfeItem => {
    const cfop = fields.CFOP ?? '';
    const operation = operationOfCfop(cfop);
    let country = '';
    if (operation !== '' && !inBrazil) {
      if (iso) country = iso;
      else unknownCountry = { code, name: header.dest_xPais ?? '' };
    }
    const values: Record<string, string> = {
      ...header,
      ...fields,
      chNFe: key,
      nItem,
      operação: operation,
      país: country,
    };
    return { line, cells: NFE_COLUMNS.map((column) => values[column] ?? '') };
  });
  return { key, items: rows, unknownCountry };
};
