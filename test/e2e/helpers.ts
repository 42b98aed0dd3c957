/**
 * What the end-to-end tests share: a temporary data folder per test, one cached assembly for
 * all of them (synthesis takes seconds; each file would otherwise pay it), fixture catalogues
 * written on the fly, and the checks that read the outputs back.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readSpreadsheet } from '../../shared/spreadsheet/read-spreadsheet.js';
import { assemblyCacheDir } from '../helpers/assembly-cache.js';

/** Shared by every e2e file and kept between runs: a cache keyed by the inputs' hash. */
export const E2E_ASSEMBLY_DIR = assemblyCacheDir('e2e');

/**
 * A data folder for the commands (`--data-dir`) whose `cdk.out/` is the shared assembly cache: a
 * command synthesizes into `<data-dir>/cdk.out`, every function bundled each time a fresh folder is
 * used, while the runtime's tests have the same assembly in {@link E2E_ASSEMBLY_DIR} already.
 */
export const commandDataDir = (dir: string): string => {
  mkdirSync(dir, { recursive: true });
  mkdirSync(E2E_ASSEMBLY_DIR, { recursive: true });
  symlinkSync(E2E_ASSEMBLY_DIR, join(dir, 'cdk.out'), 'dir');
  return dir;
};

/** A run lasts 45–75 s × this in the sandbox: about a second. */
export const E2E_TIME_SCALE = 0.015;

export const makeTempDir = (label: string): { dir: string; remove(): void } => {
  const dir = mkdtempSync(join(tmpdir(), `ncm-e2e-${label}-`));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
};

/** Descriptions the sandbox resolves whatever the seed (local/sandbox/classifier/TRIGGERS.md). */
export const RESOLVING_DESCRIPTIONS = [
  'Café torrado em grãos',
  'Smartphone 128 GB',
  'Rodamientos de bolas 6204',
  'Vinho tinto Malbec 750 ml',
  'Cotton T-shirt',
  'Motor elétrico trifásico 5 CV',
  'Lâmpada LED 9W E27',
  'Papel A4 75 g/m2, resma',
  'Leather handbag',
  'Escova de dentes macia',
] as const;

const csvCell = (value: string) => (/[",\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value);

export const writeCsv = (path: string, header: readonly string[], rows: readonly (readonly string[])[]) => {
  writeFileSync(path, `${[header, ...rows].map((row) => row.map(csvCell).join(',')).join('\n')}\n`);
  return path;
};

/**
 * `count` resolvable rows, one product each: distinct SKUs, and descriptions made distinct by a
 * lot number, so no two rows are the same product (identical products share one classification).
 */
export const resolvableRows = (count: number, skuPrefix: string): string[][] =>
  Array.from({ length: count }, (_, index) => [
    `${skuPrefix}-${String(index + 1).padStart(4, '0')}`,
    `${RESOLVING_DESCRIPTIONS[index % RESOLVING_DESCRIPTIONS.length]}, lote ${skuPrefix}${String(index + 1).padStart(4, '0')}`,
    'import',
    'BR',
  ]);

/** The index of a column by its header name; a missing column is an error naming the header. */
export const column = (table: { header: readonly string[] }, name: string): number => {
  const index = table.header.indexOf(name);
  if (index < 0) throw new Error(`no column ${name} in ${table.header.join(',')}`);
  return index;
};

export const readResults = (path: string) => readSpreadsheet(readFileSync(path), 'results.csv');

export type SandboxClassification = {
  id: string;
  status: string;
  external_reference: string | null;
  _sandbox: { organization: string; billed_times: number };
};

export const adminClassifications = async (adminUrl: string): Promise<SandboxClassification[]> => {
  const response = await fetch(`${adminUrl}/classifications`);
  if (!response.ok) throw new Error(`GET /__admin/classifications answered ${response.status}`);
  const body = (await response.json()) as { items: SandboxClassification[] };
  return body.items;
};

/** Resolves when nothing accepts connections on the URL's port (ECONNREFUSED). */
export const expectRefused = (url: string): Promise<void> =>
  new Promise((resolve, reject) => {
    const { hostname, port } = new URL(url);
    const socket = connect({ host: hostname, port: Number(port) });
    socket.once('connect', () => {
      socket.destroy();
      reject(new Error(`${url} still accepts connections`));
    });
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNREFUSED' ? resolve() : reject(error),
    );
  });

export const sumOf = (counts: Record<string, unknown>): number =>
  Object.values(counts).reduce<number>((total, value) => total + Number(value ?? 0), 0);
