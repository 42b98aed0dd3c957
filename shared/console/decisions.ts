/**
 * A decision given in the "To check" list goes the way a filled to-check.csv goes: the console
 * writes the decisions file a person would have sent (`row,classification_id,decision_ncm,
 * decision_sim,decision_note`, one line per row of that batch) into `answers/<batch-id>/`, one
 * file per batch the entry covers, and the answers round applies it (the row's approved columns,
 * its check item, the product cache, a revision of the results), billing nothing. Each file
 * carries the signed-in person as its `answered-by` metadata: the round records them as who
 * decided.
 *
 * Many entries approved at once at the service's own NCM (`POST /approvals`) go the same way:
 * one decisions file per batch with a line for every approved row of it, so each batch's round
 * applies them together.
 *
 * Before anything is written the console refuses what the round would refuse: a row no longer
 * waiting for a check, an NCM that is not a code of the NCM table in force, a SIM opening that
 * is not one of the verdict's. The file's name is a hash of what it says, as console answers'.
 */
import { tableInForce } from '../ncm-table/reference-table.js';
import type { NcmTable } from '../ncm-table/siscomex-table.js';
import { mapLimited } from '../pipeline/core/calls-in-parallel.js';
import type { CheckItem } from '../pipeline/core/check-records.js';
import { writeCsv } from '../spreadsheet/write-csv.js';
import {
  type ApprovalAccepted,
  ApprovalSubmission,
  type DecisionAccepted,
  DecisionSubmission,
} from './api.js';
import { type ConsolePorts, type ConsoleUser, dropPerBatch } from './ports.js';
import { ConsoleRefusal, invalidRequest } from './refusals.js';

/** The decisions file's columns, by the machine names the answers round reads. */
const DECISION_COLUMNS = [
  'row',
  'classification_id',
  'decision_ncm',
  'decision_sim',
  'decision_note',
] as const;

/** Check items read at once: a submission of 500 rows is read in a few round trips, not 500. */
const READS_AT_ONCE = 16;

const dottedNcm = (digits: string) => `${digits.slice(0, 4)}.${digits.slice(4, 6)}.${digits.slice(6)}`;

/** The rows still waiting for a check, each item read again (the list the person saw may be old), a few at a time. */
const openItems = async (
  ports: Pick<ConsolePorts, 'checks' | 'batches'>,
  rows: readonly { batch_id: string; row: number }[],
): Promise<CheckItem[]> => {
  const names = new Map<string, Promise<string>>();
  const nameOf = (batchId: string) => {
    const known = names.get(batchId);
    if (known) return known;
    const name = ports.batches.getBatch(batchId).then((batch) => batch?.name ?? batchId);
    names.set(batchId, name);
    return name;
  };
  return mapLimited(rows, READS_AT_ONCE, async ({ batch_id, row }) => {
    const item = await ports.checks.get(batch_id, row);
    if (item?.state === 'to_check') return item;
    const name = await nameOf(batch_id);
    if (!item)
      throw new ConsoleRefusal(
        404,
        'check_not_found',
        `Row ${row} of batch ${name} has no verdict waiting for a check.`,
        { row, batch_name: name },
      );
    throw new ConsoleRefusal(
      409,
      'already_decided',
      `Row ${row} of batch ${name} was decided already${item.decision ? ` by ${item.decision.by} on ${item.decision.at}` : ''}. Nothing was written.`,
      { row, batch_name: name, by: item.decision?.by ?? '', at: item.decision?.at ?? '' },
    );
  });
};

/** Refuses a submission that names one row twice: it would be decided twice. */
const refuseRepeatedRows = (rows: readonly { batch_id: string; row: number }[]): void => {
  const seen = new Set<string>();
  for (const { batch_id, row } of rows) {
    if (seen.has(`${batch_id}#${row}`))
      throw new ConsoleRefusal(400, 'invalid_request', `Row ${row} of batch ${batch_id} is decided twice.`, {
        field: 'rows',
      });
    seen.add(`${batch_id}#${row}`);
  }
};

/** The NCM's 8 digits, when it is a code of the NCM table in force; else a refusal saying why. */
const checkNcm = (table: NcmTable, given: string): string => {
  const digits = given.replace(/[.\s-]/g, '');
  if (!/^[0-9]{8}$/.test(digits))
    throw new ConsoleRefusal(
      400,
      'invalid_ncm',
      `The NCM "${given}" is not an NCM: an NCM has 8 digits (8471.30.12).`,
      { ncm: given },
    );
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

/** One row's decision as its decisions file's line says it. */
type DecidedRow = { item: CheckItem; ncm: string; sim: string | null; note: string };

/** One batch's decisions file: a line per row, in row order. */
const decisionsCsv = (decided: readonly DecidedRow[]): Buffer =>
  writeCsv(
    DECISION_COLUMNS,
    [...decided]
      .sort((a, b) => a.item.row - b.item.row)
      .map(({ item, ncm, sim, note }) => [
        String(item.row),
        item.classification_id,
        dottedNcm(ncm),
        sim ?? '',
        note,
      ]),
    { delimiter: ',' },
  );

/**
 * Takes one decision on an entry's rows (an NCM in force, a SIM opening the verdict offers or
 * none, a note) from the signed-in person and writes it as a decisions file per batch; refuses
 * before writing anything when a row no longer waits or the code would be refused by the round.
 */
export const submitDecision = async (
  ports: Pick<ConsolePorts, 'checks' | 'batches' | 'objects' | 'writers' | 'clock'>,
  body: unknown,
  user: ConsoleUser,
): Promise<DecisionAccepted> => {
  const parsed = DecisionSubmission.safeParse(body);
  if (!parsed.success) throw invalidRequest('decision', parsed.error.issues);
  const { rows, note } = parsed.data;
  refuseRepeatedRows(rows);
  // Everything is checked before any file is written: a refusal writes nothing.
  const items = await openItems(ports, rows);
  const ncm = checkNcm((await tableInForce(ports.objects)).table, parsed.data.ncm);
  const sim = checkSim(items, ncm, parsed.data.sim);
  const decided = items.map((item) => ({ item, ncm, sim, note: note.trim() }));
  return { files: await dropPerBatch(ports, decided, decisionsCsv, user), ncm, sim };
};

/**
 * Approves many entries at the service's own NCM at once (each with a SIM opening it offers, or
 * none, under one note) from the signed-in person: one decisions file per batch holds every
 * approved row of it, so a batch's round applies them together. Nothing is written unless every
 * row still waits, still has the NCM the page showed, and that NCM is in force.
 */
export const submitApproval = async (
  ports: Pick<ConsolePorts, 'checks' | 'batches' | 'objects' | 'writers' | 'clock'>,
  body: unknown,
  user: ConsoleUser,
): Promise<ApprovalAccepted> => {
  const parsed = ApprovalSubmission.safeParse(body);
  if (!parsed.success) throw invalidRequest('approval', parsed.error.issues);
  const { entries, note } = parsed.data;
  refuseRepeatedRows(entries.flatMap((entry) => entry.rows));
  const { table } = await tableInForce(ports.objects);
  const decided: DecidedRow[] = [];
  // Every entry's rows read together, a few at a time, then taken back entry by entry.
  const read = await openItems(
    ports,
    entries.flatMap((entry) => entry.rows),
  );
  let at = 0;
  for (const entry of entries) {
    const items = read.slice(at, at + entry.rows.length);
    at += entry.rows.length;
    const ncm = checkNcm(table, entry.ncm);
    const other = items.find((item) => item.ncm !== ncm);
    if (other)
      throw new ConsoleRefusal(
        409,
        'not_services_choice',
        `Row ${other.row} of batch ${other.batch_id}: the service's NCM is ${other.ncm ? dottedNcm(other.ncm) : 'none'}, not ${dottedNcm(ncm)}; decide it on its own. Nothing was written.`,
        { row: other.row, ncm: dottedNcm(ncm), services: other.ncm ? dottedNcm(other.ncm) : '' },
      );
    const sim = checkSim(items, ncm, entry.sim);
    for (const item of items) decided.push({ item, ncm, sim, note: note.trim() });
  }
  return { files: await dropPerBatch(ports, decided, decisionsCsv, user), entries: entries.length };
};
