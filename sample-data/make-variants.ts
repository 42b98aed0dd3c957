/**
 * `products-ptbr.csv`: the same catalogue as `products.csv`, saved the way Excel in Portuguese
 * (Brazil) saves "CSV (separado por vírgulas)". Regenerate with `npx tsx sample-data/make-variants.ts`.
 *
 * What Excel pt-BR does to the file, and so what this does:
 *   - `;` between fields: the Windows list separator wherever the decimal separator is `,`;
 *   - Windows-1252, no BOM: Excel's plain "CSV" is the ANSI code page (`ç` is one byte, 0xE7);
 *   - CRLF after every record, the last one included;
 *   - numbers as the cell shows them: the price `1250.00` becomes `1.250,00`;
 *   - quotes only around a field holding `;`, `"` or a line break (a comma is now plain text).
 *
 * The encoder is the exact inverse of our reader's decoder (`decodeWindows1252`), not Node's
 * TextDecoder, whose "windows-1252" is Latin-1 on Node 20 and would write `€` as a C1 control.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { decodeWindows1252 } from '../shared/spreadsheet/decode-text.js';
import { readSpreadsheet } from '../shared/spreadsheet/read-spreadsheet.js';

export const SOURCE_FILE = fileURLToPath(new URL('./products.csv', import.meta.url));
export const PTBR_FILE = fileURLToPath(new URL('./products-ptbr.csv', import.meta.url));

/** Columns Excel holds as numbers, so it writes them in the pt-BR number format. */
export const PRICE_HEADER = 'Preço unitário';

/** Character → Windows-1252 byte, built by decoding every byte with our own decoder. */
const WINDOWS_1252_BYTE: ReadonlyMap<string, number> = new Map(
  Array.from({ length: 256 }, (_, byte) => [decodeWindows1252(Uint8Array.of(byte)), byte] as const),
);

/** Text → Windows-1252 bytes; a character the code page lacks is an error, never a silent `?`. */
export const encodeWindows1252 = (text: string): Buffer => {
  const bytes = [...text].map((char) => {
    const byte = WINDOWS_1252_BYTE.get(char);
    if (byte === undefined)
      throw new Error(`"${char}" (U+${char.codePointAt(0)!.toString(16)}) has no Windows-1252 byte`);
    return byte;
  });
  return Buffer.from(bytes);
};

/** `1250.00` → `1.250,00`, as a cell formatted `#.##0,00` shows it in pt-BR. */
export const ptBrNumber = (value: string): string => {
  const match = /^(-?)(\d+)(?:\.(\d+))?$/.exec(value);
  if (!match) return value;
  const [, sign, integer, decimals] = match;
  const grouped = integer!.replace(/\B(?=(\d{3})+(?!\d))/g, '.');
  return `${sign}${grouped}${decimals === undefined ? '' : `,${decimals}`}`;
};

/** Excel quotes a field only when it must; it does not touch formulas on saving. */
const excelField = (field: string): string =>
  /[;"\r\n]/.test(field) ? `"${field.replace(/"/g, '""')}"` : field;

/** The bytes of `products-ptbr.csv` for the bytes of `products.csv`. */
export const toExcelPtBr = async (source: Uint8Array): Promise<Buffer> => {
  const read = await readSpreadsheet(source, 'products.csv');
  const priceColumn = read.header.indexOf(PRICE_HEADER);
  if (priceColumn === -1) throw new Error(`products.csv has no "${PRICE_HEADER}" column`);
  const records = [
    read.header,
    ...read.rows.map((row) =>
      row.cells.map((cell, index) => (index === priceColumn ? ptBrNumber(cell) : cell)),
    ),
  ];
  return encodeWindows1252(records.map((cells) => `${cells.map(excelField).join(';')}\r\n`).join(''));
};

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  const bytes = await toExcelPtBr(readFileSync(SOURCE_FILE));
  writeFileSync(PTBR_FILE, bytes);
  console.log(`products-ptbr.csv  ${bytes.length} bytes`);
}
