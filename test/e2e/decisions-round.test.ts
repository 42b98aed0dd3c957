/**
 * End to end: a person signs off the verdicts under the batch's threshold, through the local
 * runtime against the sandbox. The sample catalogue with `check_below: 90` marks `to_check`
 * exactly the verdicts under 90 % and those whose SIM opening waits for a choice (as the sandbox's
 * own classifications say); review.xlsx's sheet of verdicts to check is filled as its drop-downs
 * allow (one NCM typed that is not in force), saved again by LibreOffice and dropped into
 * answers/<batch-id>/: every decision but the typed one is applied (approved NCM and SIM, who),
 * the typed one refused naming the row and why, a results revision written, nothing posted or
 * billed. A second file, as the console writes decisions, settles the refused row. The same
 * catalogue dropped again reuses the approved codes and asks no one anything.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { strToU8, unzipSync, zipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import {
  elementsNamed,
  partXml,
  sheetCells,
  sheetNamed,
  sqrefCovers,
  unescapeXml,
  withInlineString,
  workbookSheets,
} from '../helpers/xlsx-xml.js';
import { adminClassifications, E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir } from './helpers.js';

const SAMPLE = fileURLToPath(new URL('../../sample-data/', import.meta.url));
const temp = makeTempDir('decisions');
const OPTIONS = join(temp.dir, 'batch.json');
const CHECK_BELOW = 90;
/** In no list and not in force in the NCM table carried (a test of its own checks that). */
const NOT_IN_FORCE = '8471.30.99';
const BY = 'ana.revisora';

let pipeline: LocalPipeline;

beforeAll(async () => {
  const sample = JSON.parse(readFileSync(join(SAMPLE, 'batch.json'), 'utf8')) as Record<string, unknown>;
  // A budget for every row: the re-run must find every product already classified.
  writeFileSync(OPTIONS, JSON.stringify({ ...sample, max_usd: 500, check_below: CHECK_BELOW }));
  pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-decisions' },
  });
}, 180_000);

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

type Row = Record<string, string>;
const records = (path: string): Row[] =>
  Papa.parse<Row>(readFileSync(path, 'utf8').replace(/^\uFEFF/, ''), { header: true, skipEmptyLines: true })
    .data;
const byRow = (rows: readonly Row[]) => new Map(rows.map((row) => [Number(row.row), row]));
const outcomeSummary = (dir: string) => JSON.parse(readFileSync(join(dir, 'summary.json'), 'utf8'));

/** The sandbox's own classifications, as much of them as says whether a person must check one. */
type AdminClassification = {
  id: string;
  status: string;
  chosen_ncm: string | null;
  chosen_sim_code: string | null;
  candidates: { ncm: string; confidence: number; sim: { status: string } }[];
};
const mustCheck = (c: AdminClassification | undefined): boolean => {
  if (c?.status !== 'resolved') return false;
  const chosen = c.candidates.find((candidate) => candidate.ncm === c.chosen_ncm);
  if (!chosen) return false;
  return (
    chosen.confidence < CHECK_BELOW || (chosen.sim.status === 'pending_choice' && c.chosen_sim_code === null)
  );
};

const billed = () => pipeline.sandbox?.stats().billed_usd ?? Number.NaN;
const posts = () =>
  Object.entries(pipeline.sandbox?.stats().requests_by_route ?? {})
    .filter(([route]) => route.startsWith('POST'))
    .reduce((sum, [, count]) => sum + Number(count), 0);

/** soffice headless with a profile of its own: opens the workbook and saves it again as xlsx. */
const saveWithLibreOffice = (input: string, outDir: string): string => {
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${join(temp.dir, 'libreoffice-profile')}`,
      '--headless',
      '--convert-to',
      'xlsx',
      '--outdir',
      outDir,
      input,
    ],
    { stdio: 'pipe', timeout: 120_000 },
  );
  return join(outDir, 'review.xlsx');
};

/** A list validation's options, as written in its rule (`"a,b"`). */
const listOf = (formula: string | null | undefined): string[] =>
  /^"(.*)"$/.exec(formula ?? '')?.[1]?.split(',') ?? [];

/**
 * What erp-update.csv must hold, worked out from results.csv alone: each SKU once, at its first
 * row whose code to declare (a person's approved NCM, else the verdict's) is settled and differs
 * from the NCM the file declared (its `NCM` cell, digits, a lost leading zero put back), or where
 * none was declared.
 */
const expectedErpUpdate = (results: readonly Row[]) => {
  const lines = new Map<string, string[]>();
  for (const row of results) {
    if (!['resolved', 'reused'].includes(row.status ?? '') || row.check === 'to_check') continue;
    const approved = row.check === 'approved';
    const code = ((approved && row.approved_ncm) || row.ncm || '').replace(/\D/g, '');
    const declared = (row.NCM ?? '').replace(/\D/g, '').padStart(8, '0');
    const sku = row.SKU ?? '';
    if (code.length !== 8 || code === declared || sku === '' || lines.has(sku)) continue;
    lines.set(sku, [sku, code, row.classification_id ?? '', approved ? (row.decided_by ?? '') : '']);
  }
  return [...lines.values()];
};
const erpLines = (path: string) =>
  records(path).map((line) => [
    line.sku ?? '',
    line.ncm ?? '',
    line.classification_id ?? '',
    line.approved_by ?? '',
  ]);

// What the tests hand on to each other (one pipeline, one batch).
const out = join(temp.dir, 'out');
let batchId = '';
let first: Map<number, Row> = new Map();
let toCheck: number[] = [];
/** Row → the NCM and SIM decided in the workbook (dotted); the refused row is not in it. */
const decided = new Map<number, { ncm: string; sim: string }>();
let refusedRow = 0;

describe('verdicts to check, decided in review.xlsx through LibreOffice', () => {
  it('marks to_check exactly the verdicts under the threshold and those whose SIM opening waits for a choice', async () => {
    ({ batchId } = await pipeline.submit({
      file: join(SAMPLE, 'products.csv'),
      optionsFile: OPTIONS,
      sheetsDir: SAMPLE,
    }));
    const outcome = await pipeline.waitForBatch(batchId);
    expect(outcome.state).toBe('completed');
    const before = join(out, 'before');
    await pipeline.copyOutbox(batchId, before);
    first = byRow(records(join(before, 'results.csv')));
    expect([...first.values()].map((row) => row.status)).not.toContain('over_budget');

    // erp-update.csv: exactly the products whose settled code differs from the declared one, or
    // that declared none; the verdicts waiting for a person are left out and counted.
    const erp = erpLines(join(before, 'erp-update.csv'));
    expect(erp).toEqual(expectedErpUpdate([...first.values()]));
    expect(erp.every((line) => /^\d{8}$/.test(line[1]!) && line[3] === '')).toBe(true);
    expect(outcomeSummary(before).erp_update).toEqual({
      waiting_rows: [...first.values()].filter(
        (row) => row.status === 'pending_data' || row.check === 'to_check',
      ).length,
      rows_without_sku: 0,
    });

    const service = new Map(
      (
        (await adminClassifications(
          `${pipeline.sandbox?.origin}/__admin`,
        )) as unknown as AdminClassification[]
      ).map((c) => [c.id, c]),
    );
    const expected = [...first.values()]
      .filter((row) => row.status === 'resolved' && mustCheck(service.get(row.classification_id ?? '')))
      .map((row) => Number(row.row));
    const marked = [...first.values()]
      .filter((row) => row.check === 'to_check')
      .map((row) => Number(row.row));
    expect(expected.length).toBeGreaterThan(1);
    // Both reasons are there: verdicts under 90 % and SIM openings to choose (the coffee, the wine).
    const simToChoose = (row: Row) => {
      const c = service.get(row.classification_id ?? '');
      const chosen = c?.candidates.find((candidate) => candidate.ncm === c.chosen_ncm);
      return chosen?.sim.status === 'pending_choice' && c?.chosen_sim_code === null;
    };
    expect(expected.filter((row) => simToChoose(first.get(row)!)).length).toBeGreaterThan(0);
    expect(expected.filter((row) => !simToChoose(first.get(row)!)).length).toBeGreaterThan(0);
    expect(marked).toEqual(expected);
    toCheck = marked;

    // to-check.csv lists each product once (its first row), the rows of the same product beside it.
    const listed = records(join(before, 'to-check.csv'));
    const covered = listed.flatMap((line) => [
      Number(line.row),
      ...(line.same_product_rows ?? '').split(' ').filter(Boolean).map(Number),
    ]);
    expect(covered.sort((a, b) => a - b)).toEqual(marked);
    for (const line of listed) {
      expect(line.classification_id, line.row).toBe(first.get(Number(line.row))?.classification_id);
      expect(line.ncm, line.row).toBe(first.get(Number(line.row))?.ncm);
      expect(line.candidate_1_ncm, line.row).toMatch(/^\d{4}\.\d{2}\.\d{2}$/);
      expect(line.decision_ncm, line.row).toBe('');
    }
  }, 600_000);

  it('applies the decisions chosen from the drop-downs after LibreOffice saves the workbook, refuses the NCM typed that is not in force, and bills nothing', async () => {
    const before = join(out, 'before');
    const listed = records(join(before, 'to-check.csv'));
    const parts = unzipSync(readFileSync(join(before, 'review.xlsx')));
    expect(workbookSheets(parts).map((sheet) => sheet.name)).toContain('Conferir');
    const sheet = sheetNamed(parts, 'Conferir');
    const cells = sheetCells(parts, 'Conferir');
    const letter = (header: string) => {
      const found = [...cells].find(
        ([reference, cell]) => /^[A-Z]+1$/.test(reference) && cell.text === header,
      );
      if (!found) throw new Error(`no column "${header}" on the sheet`);
      return found[0].replace(/1$/, '');
    };
    const rules = elementsNamed(partXml(parts, sheet.path), 'dataValidation').map(
      ({ attributes, inner }) => ({
        sqref: attributes.sqref ?? '',
        formula: ((f) => (f === undefined ? null : unescapeXml(f)))(
          elementsNamed(inner, 'formula1')[0]?.inner,
        ),
      }),
    );
    const listAt = (reference: string) =>
      listOf(rules.find((rule) => sqrefCovers(rule.sqref, reference))?.formula);

    let xml = partXml(parts, sheet.path);
    for (const [i, line] of listed.entries()) {
      const at = i + 2;
      const row = Number(cells.get(`${letter('Linha')}${at}`)?.text);
      expect(row).toBe(Number(line.row));
      const ncms = listAt(`${letter('NCM decidida')}${at}`);
      const sims = listAt(`${letter('Destaque SIM decidido')}${at}`);
      expect(ncms[0], `row ${row}`).toBe(line.candidate_1_ncm);
      if (i === 0) {
        // Typed, not from the list: the round refuses it.
        refusedRow = row;
        xml = withInlineString(xml, `${letter('NCM decidida')}${at}`, NOT_IN_FORCE);
        continue;
      }
      // The second row takes its second candidate when it has one; the others their first.
      const ncm = (i === 1 ? ncms[1] : undefined) ?? ncms[0]!;
      const sim = sims.find((code) => code.startsWith(ncm)) ?? '';
      xml = withInlineString(xml, `${letter('NCM decidida')}${at}`, ncm);
      if (sim) xml = withInlineString(xml, `${letter('Destaque SIM decidido')}${at}`, sim);
      xml = withInlineString(xml, `${letter('Observação da decisão')}${at}`, `Conferido: ${ncm} & ficha`);
      decided.set(row, { ncm, sim });
    }
    // Some decisions take a SIM opening from its list.
    expect([...decided.values()].filter((choice) => choice.sim !== '').length).toBeGreaterThan(0);
    const filledDir = join(temp.dir, 'filled');
    mkdirSync(filledDir, { recursive: true });
    writeFileSync(join(filledDir, 'review.xlsx'), zipSync({ ...parts, [sheet.path]: strToU8(xml) }));
    const saved = saveWithLibreOffice(join(filledDir, 'review.xlsx'), join(temp.dir, 'libreoffice'));
    expect(partXml(unzipSync(readFileSync(saved)), 'docProps/app.xml')).toContain('LibreOffice');

    const billedBefore = billed();
    const postsBefore = posts();
    const { roundId } = await pipeline.submitAnswers({ file: saved, batchId, answeredBy: BY });
    const round = await pipeline.waitForBatch(roundId);
    expect(round.state).toBe('completed');
    const after = join(out, 'round');
    await pipeline.copyOutbox(batchId, after);

    // The questions sheet's rows, left unanswered, are reported as such; then one line per decision.
    const report = records(join(after, 'answers-report.csv'));
    const listedRows = new Set(listed.map((line) => line.row));
    expect(report.filter((line) => !listedRows.has(line.row ?? '')).map((line) => line.outcome)).toEqual(
      expect.arrayContaining(['skipped_unanswered']),
    );
    expect(
      new Set(report.filter((line) => !listedRows.has(line.row ?? '')).map((line) => line.outcome)),
    ).toEqual(new Set(['skipped_unanswered']));
    const decisionLines = report.filter((line) => listedRows.has(line.row ?? ''));
    expect(decisionLines).toHaveLength(listed.length);
    expect(Object.fromEntries(decisionLines.map((line) => [line.row, line.outcome]))).toEqual(
      Object.fromEntries(
        listed.map((line) => [line.row, Number(line.row) === refusedRow ? 'ncm_not_in_force' : 'decided']),
      ),
    );
    expect(report.find((line) => Number(line.row) === refusedRow)?.detail).toMatch(
      new RegExp(
        `^Row ${refusedRow}: NCM ${NOT_IN_FORCE.replace(/\./g, '\\.')} is not in force in the NCM table`,
      ),
    );
    expect(JSON.stringify(round.summary.problems)).toContain('decision_ncm_not_in_force');

    // Nothing posted to the service, nothing billed.
    expect(billed()).toBe(billedBefore);
    expect(posts()).toBe(postsBefore);

    // The revision: decided rows approved with who and what, the service's columns beside them,
    // the rows of the same product alike; the refused one still to check.
    expect(round.summary.revision).toBe(1);
    expect(existsSync(join(after, 'results.rev1.csv'))).toBe(true);
    const results = byRow(records(join(after, 'results.csv')));
    const sameProduct = new Map(
      listed.map((line) => [
        Number(line.row),
        (line.same_product_rows ?? '').split(' ').filter(Boolean).map(Number),
      ]),
    );
    for (const [row, choice] of decided) {
      for (const shown of [row, ...(sameProduct.get(row) ?? [])]) {
        expect(results.get(shown), `row ${shown}`).toMatchObject({
          status: first.get(shown)?.status,
          check: 'approved',
          approved_ncm: choice.ncm,
          approved_sim: choice.sim,
          ncm: first.get(shown)?.ncm,
          decided_by: BY,
          cost_usd: first.get(shown)?.cost_usd,
        });
      }
      expect(results.get(row)?.decision_note).toBe(`Conferido: ${choice.ncm} & ficha`);
      expect(results.get(row)?.decided_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    }
    expect(results.get(refusedRow)).toMatchObject({ check: 'to_check', approved_ncm: '' });

    // erp-update.csv again, with the approved codes and who approved them; the refused row still out.
    const erp = erpLines(join(after, 'erp-update.csv'));
    expect(erp).toEqual(expectedErpUpdate([...results.values()]));
    const approvedSkus = [...decided.keys()].map((row) => results.get(row)?.SKU);
    expect(erp.filter((line) => line[3] === BY).map((line) => line[0])).toEqual(
      expect.arrayContaining(approvedSkus.filter((sku) => erp.some((line) => line[0] === sku))),
    );
    expect(erp.some((line) => line[3] === BY)).toBe(true);
    expect(erp.map((line) => line[0])).not.toContain(results.get(refusedRow)?.SKU);
    expect(records(join(after, 'to-check.csv')).map((line) => Number(line.row))).toEqual([refusedRow]);
  }, 600_000);

  it('settles the refused row from a decisions file as the console writes it, then a re-run reuses the approved codes without asking', async () => {
    const listed = records(join(out, 'before', 'to-check.csv'));
    const refused = listed.find((line) => Number(line.row) === refusedRow)!;
    const file = join(temp.dir, 'decisions.csv');
    writeFileSync(
      file,
      'row,classification_id,decision_ncm,decision_sim,decision_note\r\n' +
        `${refusedRow},${refused.classification_id},${refused.candidate_1_ncm!.replace(/\./g, '')},,\r\n`,
    );
    const billedBefore = billed();
    const { roundId } = await pipeline.submitAnswers({ file, batchId, answeredBy: 'bia.fiscal' });
    expect((await pipeline.waitForBatch(roundId)).state).toBe('completed');
    const after = join(out, 'second-round');
    await pipeline.copyOutbox(batchId, after);
    expect(records(join(after, 'answers-report.csv')).map((line) => line.outcome)).toEqual(['decided']);
    expect(byRow(records(join(after, 'results.csv'))).get(refusedRow)).toMatchObject({
      check: 'approved',
      approved_ncm: refused.candidate_1_ncm,
      decided_by: 'bia.fiscal',
    });
    // Nothing left to check: the file the outbox held is emptied to its header.
    expect(records(join(after, 'to-check.csv'))).toEqual([]);
    expect(billed()).toBe(billedBefore);
    const approved = byRow(records(join(after, 'results.csv')));

    // The same catalogue again: every approved verdict is reused approved, nothing waits.
    const again = await pipeline.submit({
      file: join(SAMPLE, 'products.csv'),
      optionsFile: OPTIONS,
      sheetsDir: SAMPLE,
    });
    expect((await pipeline.waitForBatch(again.batchId)).state).toBe('completed');
    const rerun = join(out, 'rerun');
    await pipeline.copyOutbox(again.batchId, rerun);
    const reused = byRow(records(join(rerun, 'results.csv')));
    expect([...reused.values()].filter((row) => row.check === 'to_check').map((row) => row.row)).toEqual([]);
    for (const row of toCheck) {
      expect(reused.get(row), `row ${row}`).toMatchObject({
        status: 'reused',
        check: 'approved',
        approved_ncm: approved.get(row)?.approved_ncm,
        approved_sim: approved.get(row)?.approved_sim,
        decided_by: approved.get(row)?.decided_by,
        cost_usd: '0.00',
      });
    }
    expect(existsSync(join(rerun, 'to-check.csv'))).toBe(false);
    expect(
      workbookSheets(unzipSync(readFileSync(join(rerun, 'review.xlsx')))).map((s) => s.name),
    ).not.toContain('Conferir');
  }, 600_000);
});
