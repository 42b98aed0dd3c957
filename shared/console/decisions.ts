/**
 * A decision given in the "To check" list goes the way a filled to-check.csv goes: the console
 * writes the decisions file a person would have sent (`row,classification_id,decision_ncm,
 * decision_sim,decision_note`, one line per row of that batch) into `answers/<batch-id>/`, one
 * file per batch the entry covers, and the answers round applies it (the row's approved columns,
 * its check item, the product cache, a revision of the results), billing nothing. Each file
 * carries the signed-in person as its `answered-by` metadata: the round records them as who
 * decided.
 *
 * Before anything is written the console refuses what the round would refuse: a row no longer
 * waiting for a check, an NCM that is not a code of the NCM table in force, a SIM opening that
 * is not one of the verdict's. The file's name is a hash of what it says, as console answers'.
 */
import { createHash } from 'node:crypto';
import { tableInForce } from '../ncm-table/reference-table.js';
import { answersFolder } from '../pipeline/core/bucket-layout.js';
import type { CheckItem } from '../pipeline/core/check-records.js';
import { CSV_CONTENT_TYPE } from '../pipeline/outbox/results-files.js';
import { writeCsv } from '../spreadsheet/write-csv.js';
import { type DecisionAccepted, DecisionSubmission } from './api.js';
import { type ConsolePorts, type ConsoleUser, dropAsUser } from './ports.js';
import { ConsoleRefusal, invalidRequest } from './refusals.js';

/** The decisions file's columns, by the machine names the answers round reads. */
const DECISION_COLUMNS = [
  'row',
  'classification_id',
  'decision_ncm',
  'decision_sim',
  'decision_note',
] as const;

const dottedNcm = (digits: string) => `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6)}`;

/** The rows still waiting for a check, each item read again: the list the person saw may be old. */
const openItems = async (
  ports: Pick<ConsolePorts, 'checks' | 'batches'>,
  rows: readonly { batch_id: string; row: number }[],
): Promise<CheckItem[]> => {
  const items: CheckItem[] = [];
  for (const { batch_id, row } of rows) {
    const item = await ports.checks.get(batch_id, row);
    const name = (await ports.batches.getBatch(batch_id))?.name ?? batch_id;
    if (!item)
      throw new ConsoleRefusal(
        404,
        'check_not_found',
        `Row ${row} of batch ${name} has no verdict waiting for a check.`,
        { row, batch_name: name },
      );
    if (item.state !== 'to_check')
      throw new ConsoleRefusal(
        409,
        'already_decided',
        `Row ${row} of batch ${name} was decided already${item.decision ? ` by ${item.decision.by} on ${item.decision.at}` : ''}. Nothing was written.`,
        { row, batch_name: name, by: item.decision?.by ?? '', at: item.decision?.at ?? '' },
      );
    items.push(item);
  }
  return items;
};

/** The NCM's 8 digits, when it is a code of the NCM table in force; else a refusal saying why. */
const checkNcm = async (ports: Pick<ConsolePorts, 'objects'>, given: string): Promise<string> => {
  const digits = given.replace(/[.\s-]/g, '');
  if (!/^[0-9]{8}$/.test(digits))
    throw new ConsoleRefusal(
      400,
      'invalid_ncm',
      `The NCM "${given}" is not an NCM: an NCM has 8 digits (8471.30.12).`,
      { ncm: given },
    );
  const { table } = await tableInForce(ports.objects);
  if (!table.inForce(digits))
    throw new ConsoleRefusal(
      400,
      'ncm_not_in_force',
      `The NCM ${dottedNcm(digits)} is not a code of the NCM table in force (${table.asOf ?? 'undated'}, ${table.act}): SEFAZ rejects an NF-e that declares it. Nothing was written.`,
      { ncm: dottedNcm(digits), as_of: table.asOf ?? '', act: table.act },
    );
  return digits;
};

/** The SIM opening's 10 digits, when every row offers it for the NCM decided; null when none given. */
const checkSim = (items: readonly CheckItem[], ncm: string, given: string | null): string | null => {
  const text = given?.trim() ?? '';
  if (text === '') return null;
  const digits = text.replace(/[.\s-]/g, '');
  // The openings a verdict offers are its own NCM's: another NCM decided has none of them.
  const offered = items.every(
    (item) => item.ncm === ncm && item.sim_options.some((option) => option.code === digits),
  );
  if (!offered)
    throw new ConsoleRefusal(
      400,
      'sim_not_offered',
      `The SIM opening "${text}" is not one of the openings of NCM ${dottedNcm(ncm)} this verdict offers; choose one of them or none.`,
      { sim: text, ncm: dottedNcm(ncm) },
    );
  return digits;
};

/** One batch's decisions file: a line per row, in row order. */
const decisionsCsv = (
  items: readonly CheckItem[],
  decision: { ncm: string; sim: string | null; note: string },
): Buffer =>
  writeCsv(
    DECISION_COLUMNS,
    [...items]
      .sort((a, b) => a.row - b.row)
      .map((item) => [
        String(item.row),
        item.classification_id,
        dottedNcm(decision.ncm),
        decision.sim ?? '',
        decision.note,
      ]),
    { delimiter: ',' },
  );

export const submitDecision = async (
  ports: Pick<ConsolePorts, 'checks' | 'batches' | 'objects' | 'writers' | 'clock'>,
  body: unknown,
  user: ConsoleUser,
): Promise<DecisionAccepted> => {
  const parsed = DecisionSubmission.safeParse(body);
  if (!parsed.success) throw invalidRequest('decision', parsed.error.issues);
  const { rows, note } = parsed.data;
  const seen = new Set<string>();
  for (const { batch_id, row } of rows) {
    if (seen.has(`${batch_id}#${row}`))
      throw new ConsoleRefusal(400, 'invalid_request', `Row ${row} of batch ${batch_id} is decided twice.`, {
        field: 'rows',
      });
    seen.add(`${batch_id}#${row}`);
  }
  // Everything is checked before any file is written: a refusal writes nothing.
  const items = await openItems(ports, rows);
  const ncm = await checkNcm(ports, parsed.data.ncm);
  const sim = checkSim(items, ncm, parsed.data.sim);
  const byBatch = new Map<string, CheckItem[]>();
  for (const item of items) byBatch.set(item.batch_id, [...(byBatch.get(item.batch_id) ?? []), item]);
  const files: DecisionAccepted['files'] = [];
  for (const [batchId, batchItems] of byBatch) {
    const bytes = decisionsCsv(batchItems, { ncm, sim, note: note.trim() });
    const name = `console-${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}.csv`;
    const key = `${answersFolder(batchId)}${name}`;
    await dropAsUser(ports, { key, bytes, contentType: CSV_CONTENT_TYPE }, user);
    files.push({ batch_id: batchId, key, rows: batchItems.map((item) => item.row).sort((a, b) => a - b) });
  }
  return { files, ncm, sim };
};
