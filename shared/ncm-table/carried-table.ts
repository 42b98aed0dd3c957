/**
 * The NCM table the project carries: Siscomex's "Tabela NCM Vigente" of 5 July 2026 (Resolução
 * Gecex nº 812/2025), as published, gzipped beside this file (244 KB for 3 MB of JSON). It is the
 * reference until a newer table replaces it; it is read once per process.
 */
import { readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { type NcmTable, ncmTableOf } from './siscomex-table.js';

const CARRIED_TABLE_FILE = new URL('./data/tabela-ncm-vigente-20260705.json.gz', import.meta.url);

let carried: NcmTable | undefined;

export const carriedNcmTable = (): NcmTable => {
  carried ??= ncmTableOf(JSON.parse(gunzipSync(readFileSync(CARRIED_TABLE_FILE)).toString('utf8')));
  return carried;
};
