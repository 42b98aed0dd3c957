/**
 * The NCM table in force where the pipeline runs: a table dropped into the bucket's `reference/ncm/`
 * (as Siscomex publishes it, `.json` or `.json.gz`) replaces the carried one without a deploy, when
 * it is newer (its own date, `Data_Ultima_Atualizacao_NCM`); otherwise the carried table stands.
 * A dropped file that is not such a table is not taken, and the reason is kept for the batch to say.
 */
import { gunzipSync } from 'node:zlib';
import { carriedNcmTable } from './carried-table.js';
import { type NcmTable, ncmTableOf } from './siscomex-table.js';

export const REFERENCE_NCM_PREFIX = 'reference/ncm/';

/** The little of the object store this needs (the pipeline's ObjectStore port satisfies it). */
export type ReferenceObjects = {
  list(prefix: string): Promise<string[]>;
  head(key: string): Promise<{ etag: string } | null>;
  getBytes(key: string): Promise<Uint8Array | null>;
};

export type TableInForce = {
  table: NcmTable;
  /** `carried`, or the key of the dropped table in use. */
  source: string;
  /** A dropped table that was not taken: its key, why, and the parser's words or the table's day. */
  refused?: TableRefusal;
};

/** Why a dropped file is not the table in force: `older`, it is a table, of an earlier day than the carried one. */
export type TableRefusal = {
  key: string;
  why: 'not_json' | 'not_a_table' | 'unreadable' | 'older';
  detail?: string;
};

const TABLE_FILE = /\.json(\.gz)?$/i;

/** Read tables by key and ETag: a table is parsed once per process, a replaced one again. */
const parsed = new Map<string, NcmTable>();

const readTable = (bytes: Uint8Array, key: string): NcmTable => {
  const text = (/\.gz$/i.test(key) ? gunzipSync(bytes) : Buffer.from(bytes)).toString('utf8');
  return ncmTableOf(JSON.parse(text.replace(/^\uFEFF/, '')));
};

/** Why a dropped file is no table. */
const refusalOf = (key: string, error: unknown): TableRefusal => {
  const detail = error instanceof Error ? error.message.slice(0, 200) : String(error);
  if (error instanceof SyntaxError) return { key, why: 'not_json', detail };
  if (error instanceof Error && error.name === 'ZodError') return { key, why: 'not_a_table' };
  return { key, why: 'unreadable', detail };
};

/**
 * The newest table: the last `.json`/`.json.gz` under `reference/ncm/` in key order (Siscomex names
 * its files by date, `Tabela_NCM_Vigente_20260705.json`), when it is newer than the carried one.
 */
export const tableInForce = async (objects: ReferenceObjects): Promise<TableInForce> => {
  const carried = carriedNcmTable();
  const key = (await objects.list(REFERENCE_NCM_PREFIX)).filter((k) => TABLE_FILE.test(k)).at(-1);
  if (!key) return { table: carried, source: 'carried' };
  const head = await objects.head(key);
  if (!head) return { table: carried, source: 'carried' };
  const cacheKey = `${key}@${head.etag}`;
  let table = parsed.get(cacheKey);
  if (!table) {
    const bytes = await objects.getBytes(key);
    if (!bytes) return { table: carried, source: 'carried' };
    try {
      table = readTable(bytes, key);
    } catch (error) {
      return { table: carried, source: 'carried', refused: refusalOf(key, error) };
    }
    parsed.set(cacheKey, table);
  }
  if ((table.asOf ?? '') >= (carried.asOf ?? '')) return { table, source: key };
  return { table: carried, source: 'carried', refused: { key, why: 'older', detail: table.asOf ?? '' } };
};
