/**
 * When the NCM table changes: every earlier verdict whose code the table in force no longer holds
 * (shared/ncm-table/table-changes.ts says whether it ended or what replaced it), listed for people
 * to act on, and for a batch with `reclassify: ended_codes` to classify again (reuse.ts).
 *
 *   reference/ncm/<table>.json dropped ─▶ recheck-verdicts ─▶ outbox/rechecks/<table date>/recheck.csv
 *                                                                                   recheck.json (last)
 *
 * The whole product cache is read, a page at a time (`ProductCache.scanVerdicts`), and the list is
 * uploaded in parts as it grows (an S3 multipart upload), so no leg holds more than a page. A cache too
 * large for one invocation is gone through in legs, like Finalize's: a leg whose time is spent
 * keeps the bytes not yet a part in `work/` and drops its progress (where the scan goes on, the
 * counts so far) as `work/rechecks/<date>/<run>.leg-<n>.json`, whose Object Created event calls
 * the function again. recheck.json is written last: its presence means recheck.csv is whole.
 */
import * as z from 'zod';
import { REFERENCE_NCM_PREFIX, type TableRefusal, tableInForce } from '../../ncm-table/reference-table.js';
import type { NcmTable } from '../../ncm-table/siscomex-table.js';
import { codeChangeOf } from '../../ncm-table/table-changes.js';
import { formatCsvRecord } from '../../spreadsheet/write-csv.js';
import {
  finalizeWorkKey,
  isRecheckContinuationKey,
  recheckContinuationKey,
  recheckFolder,
  recheckWorkFolder,
} from '../core/bucket-layout.js';
import type { PipelinePorts } from '../core/ports.js';
import type { CachedVerdict } from '../core/records.js';
import { FINALIZE_SETTINGS } from '../finalize/finalize-settings.js';
import { PartsUploadProgress, partsUpload } from '../outbox/parts-upload.js';

/** The two files a recheck writes under `outbox/rechecks/<table date>/`: the list, then its summary. */
export const RECHECK_FILES = { csv: 'recheck.csv', json: 'recheck.json' } as const;

/** recheck.csv's header: the earlier verdict, its product, its code and what became of that code. */
export const RECHECK_CSV_COLUMNS = [
  'batch_id',
  'sku',
  /** `sku`, or `fingerprint` for a product without SKU: its description and sheet identify it. */
  'keyed_by',
  'product_key',
  'classification_id',
  'resolved_at',
  'title',
  'ncm',
  'ncm_description',
  /** `ended`, `replaced` or `split`. */
  'change',
  'replaced_by',
  'replaced_by_descriptions',
  'table_date',
  'table_act',
] as const;

const Counts = z.object({
  /** Entries of the product cache read (a product with a SKU is kept under two keys). */
  checked: z.number().int().min(0),
  not_in_force: z.number().int().min(0),
  ended: z.number().int().min(0),
  replaced: z.number().int().min(0),
  split: z.number().int().min(0),
});
type Counts = z.infer<typeof Counts>;

const TableUsed = z.object({
  /** `carried`, or the key of the table dropped in `reference/ncm/`. */
  source: z.string(),
  as_of: z.string().nullable(),
  act: z.string(),
  codes: z.number().int().min(0),
});

/** recheck.json: what was checked, against which table, and what the list holds. */
export const RecheckSummary = z.object({
  table: TableUsed,
  started_at: z.string(),
  finished_at: z.string(),
  legs: z.number().int().min(1),
  ...Counts.shape,
  files: z.object({ csv: z.string() }),
});
export type RecheckSummary = z.infer<typeof RecheckSummary>;

/**
 * Where a recheck stopped when its leg's time was spent: where the scan goes on, the counts so far
 * and the upload's parts, saved in the object whose Object Created event starts the next leg.
 */
export const RecheckProgress = z.object({
  run: z.string().regex(/^recheck-\d+$/),
  leg: z.number().int().min(1),
  started_at: z.string(),
  table: TableUsed,
  /** Where the scan of the product cache goes on. */
  after: z.string(),
  counts: Counts,
  upload: PartsUploadProgress,
  /** Where the lines held back until the end wait ({@link HeldLines}). */
  held: z.string(),
});
export type RecheckProgress = z.infer<typeof RecheckProgress>;

/**
 * A product with a SKU is cached twice, under `sku:<sku>` and `h:<fingerprint>` (row/complete.ts):
 * it is listed once, by its SKU. A fingerprint's line waits for the end of the scan and is written
 * only if no SKU's line named the same classification. Between legs this is kept in `work/`: the
 * classifications listed by SKU and the fingerprints' lines, only those of codes no longer in force.
 */
const HeldLines = z.object({
  by_sku: z.array(z.string()),
  by_fingerprint: z.array(
    z.object({
      classification_id: z.string(),
      change: z.enum(['ended', 'replaced', 'split']),
      line: z.array(z.string()),
    }),
  ),
});
type HeldLines = z.infer<typeof HeldLines>;

/**
 * What one call of `recheckVerdicts` did: finished (`done`), stopped with more to do (`continues`), or
 * refused (`why`).
 */
export type RecheckReport =
  | {
      done: true;
      folder: string;
      summary: RecheckSummary;
      /** A file in `reference/ncm/` not taken as the table (the check used the one in force), and why. */
      refused?: TableRefusal;
    }
  | { done: false; continues: string; checked: number }
  | { done: false; why: string };

/**
 * How long a recheck leg works, how many cache entries it reads a page, and how large an upload's part
 * is.
 */
export type RecheckSettings = { legMs: number; pageSize?: number; partBytes: number };
const RECHECK_SETTINGS: RecheckSettings = {
  legMs: FINALIZE_SETTINGS.legMs,
  partBytes: FINALIZE_SETTINGS.partBytes,
};

type RecheckPorts = Pick<PipelinePorts, 'clock' | 'objects' | 'cache'>;

const tableDateOf = (table: NcmTable) => table.asOf ?? 'undated';

/** `sku:A-1` → `A-1`; a product without SKU is keyed by its fingerprint (`h:…`). */
const skuOf = (productKey: string) =>
  productKey.startsWith('sku:')
    ? { sku: productKey.slice('sku:'.length), keyed_by: 'sku' }
    : { sku: '', keyed_by: 'fingerprint' };

/** The list's line for a verdict whose code is not in force, or null when it is (or names none). */
const recheckLine = (
  verdict: CachedVerdict,
  table: NcmTable,
): { change: 'ended' | 'replaced' | 'split'; line: string[] } | null => {
  const ncm = verdict.result.ncm ?? '';
  if (ncm === '') return null;
  const change = codeChangeOf(table, ncm);
  if (change.kind === 'in_force') return null;
  const by = change.kind === 'ended' ? [] : change.by;
  const line = [
    verdict.batch_id,
    ...Object.values(skuOf(verdict.product_key)),
    verdict.product_key,
    verdict.classification_id,
    verdict.resolved_at,
    verdict.result.title ?? '',
    ncm,
    verdict.result.ncm_description ?? '',
    change.kind,
    by.map((entry) => entry.dotted).join('; '),
    by.map((entry) => `${entry.dotted} ${entry.description}`).join('; '),
    table.asOf ?? '',
    table.act,
  ];
  return { change: change.kind, line };
};

const csvText = (records: readonly string[][]): Buffer =>
  Buffer.from(records.map((record) => formatCsvRecord(record, ',')).join(''), 'utf8');

/** recheck.csv's upload in parts: begun with its header, or resumed where the last leg left it. */
const openList = async (
  objects: RecheckPorts['objects'],
  at: { tableDate: string; run: string; leg: number; partBytes: number },
  from: RecheckProgress | null,
) => {
  const upload = await partsUpload(
    objects,
    {
      batchId: recheckWorkFolder(at.tableDate),
      key: `${recheckFolder(at.tableDate)}${RECHECK_FILES.csv}`,
      // Named by the leg, so a retried leg reads the bytes its first attempt read.
      name: `${at.run}/${RECHECK_FILES.csv}.leg-${at.leg}`,
      contentType: 'text/csv; charset=utf-8',
      partBytes: at.partBytes,
    },
    from?.upload ?? null,
  );
  if (!from)
    await upload.append(Buffer.concat([Buffer.from('\uFEFF', 'utf8'), csvText([[...RECHECK_CSV_COLUMNS]])]));
  return upload;
};

/** What the last leg held back (nothing on the first). */
const heldLinesOf = async (
  objects: RecheckPorts['objects'],
  from: RecheckProgress | null,
): Promise<HeldLines> => {
  if (!from) return { by_sku: [], by_fingerprint: [] };
  const bytes = await objects.getBytes(from.held);
  if (!bytes) throw new Error(`The lines a recheck held back between legs are gone (${from.held}).`);
  return HeldLines.parse(JSON.parse(Buffer.from(bytes).toString('utf8')));
};

/**
 * Goes through the product cache against the table in force, from the start or from where an
 * earlier leg stopped (`from`), writing the list as it goes. When the leg's time is spent, it
 * saves where it stopped in an object whose Object Created event calls it again. Refuses to go on
 * when a newer table replaced the one the earlier legs used.
 */
export const recheckVerdicts = async (
  ports: RecheckPorts,
  from: RecheckProgress | null = null,
  settings: RecheckSettings = RECHECK_SETTINGS,
): Promise<RecheckReport> => {
  const inForce = await tableInForce(ports.objects);
  const { table } = inForce;
  if (from && from.table.source !== inForce.source)
    return { done: false, why: `a newer table (${inForce.source}) has replaced ${from.table.source}` };
  const now = ports.clock.now();
  const until = now.getTime() + settings.legMs;
  const run = from?.run ?? `recheck-${now.getTime()}`;
  const leg = (from?.leg ?? 0) + 1;
  const tableDate = tableDateOf(table);
  const folder = recheckFolder(tableDate);
  const tableUsed = from?.table ?? {
    source: inForce.source,
    as_of: table.asOf,
    act: table.act,
    codes: table.codeCount,
  };
  const counts: Counts = {
    ...(from?.counts ?? { checked: 0, not_in_force: 0, ended: 0, replaced: 0, split: 0 }),
  };
  const upload = await openList(ports.objects, { tableDate, run, leg, partBytes: settings.partBytes }, from);
  const held = await heldLinesOf(ports.objects, from);
  const listedBySku = new Set(held.by_sku);
  const count = (change: 'ended' | 'replaced' | 'split') => {
    counts.not_in_force += 1;
    counts[change] += 1;
  };

  for await (const page of ports.cache.scanVerdicts({
    after: from?.after ?? null,
    ...(settings.pageSize ? { pageSize: settings.pageSize } : {}),
  })) {
    const lines: string[][] = [];
    for (const verdict of page.verdicts) {
      counts.checked += 1;
      const found = recheckLine(verdict, table);
      if (!found) continue;
      if (!verdict.product_key.startsWith('sku:')) {
        held.by_fingerprint.push({ classification_id: verdict.classification_id, ...found });
        continue;
      }
      listedBySku.add(verdict.classification_id);
      lines.push(found.line);
      count(found.change);
    }
    if (lines.length > 0) await upload.append(csvText(lines));
    if (page.after === null || ports.clock.now().getTime() < until) continue;
    const heldKey = finalizeWorkKey(recheckWorkFolder(tableDate), `${run}/held.leg-${leg}.json`);
    held.by_sku = [...listedBySku];
    await ports.objects.put(heldKey, JSON.stringify(held), 'application/json');
    const progress: RecheckProgress = {
      held: heldKey,
      run,
      leg,
      started_at: from?.started_at ?? now.toISOString(),
      table: tableUsed,
      after: page.after,
      counts,
      upload: await upload.pause(),
    };
    const key = recheckContinuationKey(tableDate, run, leg);
    await ports.objects.put(key, JSON.stringify(progress), 'application/json');
    return { done: false, continues: key, checked: counts.checked };
  }
  const byFingerprint = held.by_fingerprint.filter((entry) => !listedBySku.has(entry.classification_id));
  for (const entry of byFingerprint) count(entry.change);
  if (byFingerprint.length > 0) await upload.append(csvText(byFingerprint.map((entry) => entry.line)));
  await upload.complete();
  const summary: RecheckSummary = {
    table: tableUsed,
    started_at: from?.started_at ?? now.toISOString(),
    finished_at: ports.clock.now().toISOString(),
    legs: leg,
    ...counts,
    files: { csv: RECHECK_FILES.csv },
  };
  await ports.objects.put(
    `${folder}${RECHECK_FILES.json}`,
    JSON.stringify(summary, null, 2),
    'application/json',
  );
  return { done: true, folder, summary, ...(inForce.refused ? { refused: inForce.refused } : {}) };
};

const ObjectCreated = z.object({
  'detail-type': z.literal('Object Created'),
  detail: z.object({ object: z.object({ key: z.string() }) }),
});

/** A key as S3's classic notifications encode it, decoded; as given when it is not so encoded. */
const formDecoded = (key: string): string => {
  try {
    return decodeURIComponent(key.replace(/\+/g, ' '));
  } catch {
    return key;
  }
};

/** What an event asks for: a recheck from the start, one going on from a leg's progress, or nothing. */
export type RecheckAsked = { start: true } | { continueFrom: string } | { ignore: string };

/**
 * A table dropped under `reference/ncm/` (`.json`, `.json.gz`) starts a recheck; a leg's progress
 * dropped under `work/rechecks/` goes on with it; an invocation with no S3 event (an operator's
 * `aws lambda invoke`, the local command) rechecks against the table in force now.
 */
export const recheckAskedBy = (event: unknown): RecheckAsked => {
  const created = ObjectCreated.safeParse(event);
  if (!created.success) return { start: true };
  const key = formDecoded(created.data.detail.object.key);
  if (isRecheckContinuationKey(key)) return { continueFrom: key };
  if (key.startsWith(REFERENCE_NCM_PREFIX) && /\.json(\.gz)?$/i.test(key)) return { start: true };
  return { ignore: `${key} is neither a table under ${REFERENCE_NCM_PREFIX} nor a recheck's progress` };
};

/** Reads the progress a recheck leg saved under `key`; null when it is gone (expired, or never written). */
export const readRecheckProgress = async (
  objects: Pick<PipelinePorts['objects'], 'getBytes'>,
  key: string,
): Promise<RecheckProgress | null> => {
  const bytes = await objects.getBytes(key);
  return bytes ? RecheckProgress.parse(JSON.parse(Buffer.from(bytes).toString('utf8'))) : null;
};
