/**
 * to-check.csv: the verdicts a person checks before they are used (under the batch's
 * `check_below`, or whose SIM opening waits for a choice), beside review.csv, with the same rows
 * as review.xlsx's sheet of verdicts to check
 * (check-sheet.ts). Filled in (`decision_ncm`, `decision_sim`, `decision_note`) and dropped into
 * `answers/<batch-id>/`, it is read back as decisions (answers/decisions-file.ts); only `row`,
 * `classification_id` and the decision columns are needed, so the console writes just those.
 *
 * A batch with nothing to check writes no to-check.csv. A revision after the last one is decided
 * writes it with its header only: the outbox holds no delete, and a file still listing decided
 * verdicts would ask for them again.
 */
import type { Delimiter } from '../../spreadsheet/schemas.js';
import { formatNcm, writeCsv } from '../../spreadsheet/write-csv.js';
import { outboxKey } from '../core/bucket-layout.js';
import type { CheckItem } from '../core/check-records.js';
import type { ObjectStore } from '../core/ports.js';
import { CSV_CONTENT_TYPE } from './results-files.js';

const TO_CHECK_FILE = 'to-check.csv';

/** The most candidates a check item carries (check-records.ts): to-check.csv's candidate groups. */
const CANDIDATES_SHOWN = 3;

const TO_CHECK_DECISION_COLUMNS = ['decision_ncm', 'decision_sim', 'decision_note'] as const;

const candidateColumns = (n: number): string[] => [
  `candidate_${n}_ncm`,
  `candidate_${n}_description`,
  `candidate_${n}_confidence`,
  `candidate_${n}_rationale`,
];

/**
 * to-check.csv's header, in order: the item, its candidates, its SIM openings and PDF, then the
 * decision columns.
 */
export const TO_CHECK_COLUMNS: readonly string[] = [
  'row',
  'sku',
  'description',
  'classification_id',
  'reasons',
  'ncm',
  'confidence',
  ...Array.from({ length: CANDIDATES_SHOWN }, (_, i) => candidateColumns(i + 1)).flat(),
  'sim_options',
  'verdict_pdf',
  'same_product_rows',
  ...TO_CHECK_DECISION_COLUMNS,
];

/** The batch's items still waiting for a person, in row order: what the files list. */
export const openChecks = (items: readonly CheckItem[]): CheckItem[] =>
  items.filter((item) => item.state === 'to_check').sort((a, b) => a.row - b.row);

/** A SIM opening as the files show it: its dotted code, then its description. */
export const simOptionText = (option: CheckItem['sim_options'][number]): string =>
  option.description === '' ? formatNcm(option.code) : `${formatNcm(option.code)} ${option.description}`;

const confidenceText = (confidence: number | null): string => (confidence === null ? '' : String(confidence));

const toCheckRecord = (item: CheckItem, sameProduct: readonly number[]): string[] => [
  String(item.row),
  item.sku ?? '',
  item.description ?? '',
  item.classification_id,
  item.reasons.join(' '),
  item.ncm ? formatNcm(item.ncm) : '',
  confidenceText(item.confidence),
  ...Array.from({ length: CANDIDATES_SHOWN }, (_, i) => {
    const candidate = item.candidates[i];
    if (!candidate) return ['', '', '', ''];
    return [
      formatNcm(candidate.ncm),
      candidate.description,
      confidenceText(candidate.confidence),
      candidate.rationale,
    ];
  }).flat(),
  item.sim_options.map(simOptionText).join(' | '),
  item.verdict_pdf ?? '',
  sameProduct.join(' '),
  '',
  '',
  '',
];

/** to-check.csv's bytes: the open items in row order, the decision columns empty. */
export const buildToCheckCsv = (
  items: readonly CheckItem[],
  delimiter: Delimiter = ',',
  sameProductRows: ReadonlyMap<number, readonly number[]> = new Map(),
): Buffer =>
  writeCsv(
    TO_CHECK_COLUMNS,
    openChecks(items).map((item) => toCheckRecord(item, sameProductRows.get(item.row) ?? [])),
    { delimiter },
  );

/**
 * Writes to-check.csv beside review.csv when the batch has verdicts to check, or when an earlier
 * one is there (then with what is still open, perhaps only the header, so no decided verdict is
 * asked for again). Before review.csv, so the files a summary.json vouches for are all in the outbox.
 */
export const writeToCheckCsv = async (
  objects: Pick<ObjectStore, 'put' | 'head'>,
  batchId: string,
  files: {
    items: readonly CheckItem[];
    delimiter: Delimiter;
    sameProductRows: ReadonlyMap<number, readonly number[]>;
  },
): Promise<void> => {
  const key = outboxKey(batchId, TO_CHECK_FILE);
  if (openChecks(files.items).length === 0 && (await objects.head(key)) === null) return;
  await objects.put(
    key,
    buildToCheckCsv(files.items, files.delimiter, files.sameProductRows),
    CSV_CONTENT_TYPE,
  );
};
