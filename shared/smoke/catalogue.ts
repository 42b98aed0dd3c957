/**
 * The catalogue the smoke drops: `sample-data/smoke/` (a CSV of three products, its batch.json
 * and one technical sheet), read as files a person would upload. The rows are read by the
 * pipeline's own reader, so the checks compare results.csv with what Prepare saw.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BatchOptions } from '../pipeline/core/batch-options-schema.js';
import { normaliseSheetPath } from '../spreadsheet/normalise-row.js';
import { readSpreadsheet } from '../spreadsheet/read-spreadsheet.js';
import { PRICE_PER_RESOLVED_USD } from '../tcs/schemas.js';

export const SMOKE_CATALOGUE_DIR = fileURLToPath(new URL('../../sample-data/smoke/', import.meta.url));

type SmokeFile = { path: string; bytes: Uint8Array; contentType: string };

/** An input row as the reader numbers it, and its cells (results.csv writes them back first). */
export type CatalogueRow = { row: number; cells: string[] };

export type SmokeCatalogue = {
  spreadsheet: SmokeFile;
  /** batch.json, then the sheets: put before the spreadsheet, which is what starts the batch. */
  attachments: SmokeFile[];
  header: string[];
  rows: CatalogueRow[];
  options: BatchOptions;
};

const CONTENT_TYPES: Record<string, string> = {
  '.csv': 'text/csv',
  '.xlsx': 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  '.pdf': 'application/pdf',
  '.json': 'application/json',
};

const fileAt = (dir: string, path: string): SmokeFile => ({
  path,
  bytes: new Uint8Array(readFileSync(join(dir, path))),
  contentType: CONTENT_TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream',
});

/** PDFs below the folder (not in it: the spreadsheet and batch.json are there), `/`-separated. */
const sheetsUnder = (dir: string, prefix = ''): string[] =>
  readdirSync(join(dir, prefix), { withFileTypes: true }).flatMap((entry) => {
    const path = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) return sheetsUnder(dir, path);
    return prefix && extname(entry.name).toLowerCase() === '.pdf' ? [path] : [];
  });

const spreadsheetIn = (dir: string): string => {
  const found = readdirSync(dir).filter(
    (name) => ['.csv', '.xlsx'].includes(extname(name).toLowerCase()) && statSync(join(dir, name)).isFile(),
  );
  if (found.length !== 1) {
    throw new Error(`${dir} must hold exactly one .csv or .xlsx catalogue, it holds ${found.length}`);
  }
  return found[0] as string;
};

/** batch.json as Prepare reads it; a plan-only batch would classify nothing, so it is refused. */
const optionsIn = (dir: string): { options: BatchOptions; file: SmokeFile | null } => {
  if (!readdirSync(dir).includes('batch.json')) return { options: BatchOptions.parse({}), file: null };
  const file = fileAt(dir, 'batch.json');
  const options = BatchOptions.parse(JSON.parse(new TextDecoder().decode(file.bytes)));
  if (options.plan_only) throw new Error(`${dir}batch.json asks for a plan only: the smoke must classify`);
  return { options, file };
};

export const loadSmokeCatalogue = async (dir: string = SMOKE_CATALOGUE_DIR): Promise<SmokeCatalogue> => {
  const spreadsheet = fileAt(dir, spreadsheetIn(dir));
  const { options, file: optionsFile } = optionsIn(dir);
  const sheets = sheetsUnder(dir).sort();
  const read = await readSpreadsheet(spreadsheet.bytes, spreadsheet.path);
  for (const row of read.rows) {
    const named = row.fields.sheet?.trim() ? normaliseSheetPath(row.fields.sheet) : null;
    if (named && !('path' in named && sheets.includes(named.path))) {
      throw new Error(`${spreadsheet.path} row ${row.row} names sheet ${row.fields.sheet}, not in ${dir}`);
    }
  }
  return {
    spreadsheet,
    attachments: [...(optionsFile ? [optionsFile] : []), ...sheets.map((path) => fileAt(dir, path))],
    header: read.header,
    rows: read.rows.map((row) => ({ row: row.row, cells: row.cells })),
    options,
  };
};

/**
 * The most the smoke can bill: each row resolved (billed once, USD 2.00), no more than the
 * catalogue's budget (`max_usd`), which counts every dispatched row at that price.
 */
export const maxCostUsd = (catalogue: Pick<SmokeCatalogue, 'rows' | 'options'>): number =>
  Math.min(
    catalogue.rows.length * PRICE_PER_RESOLVED_USD,
    catalogue.options.max_usd ?? Number.POSITIVE_INFINITY,
  );
