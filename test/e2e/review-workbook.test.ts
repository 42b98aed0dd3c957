/**
 * End to end: review.xlsx, the workbook a person answers in a spreadsheet program, through the
 * local runtime against the sandbox. A batch with Portuguese headers leaves three rows waiting;
 * its outbox holds results.xlsx and review.xlsx beside the CSVs. Two rows are answered by picking
 * from each answer cell's drop-down (the list validation's range on the hidden options sheet, read
 * from the workbook's XML as Excel would) or typing where the question has no options; the third
 * is left blank. LibreOffice saves the workbook again, and that copy, dropped into
 * answers/<batch-id>/, resumes exactly the two answered rows, billed once, with the chosen answers
 * reaching the service; dropping it again changes nothing. results.xlsx then agrees with
 * results.csv, the earlier results are kept as revision 1, and review.xlsx lists the row left.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { strToU8, type Unzipped, unzipSync, zipSync } from 'fflate';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { type AnswersFileRow, readAnswersFile } from '../../shared/pipeline/answers/answers-file.js';
import { readXlsxRecords } from '../../shared/spreadsheet/read-xlsx.js';
import {
  cellsCoveredBy,
  elementsNamed,
  partXml,
  rowNumber,
  sheetCells,
  sheetFormulaLinks,
  sheetNamed,
  sqrefCovers,
  unescapeXml,
  withInlineString,
  workbookPartPath,
  workbookSheets,
  type XlsxSheet,
} from '../helpers/xlsx-xml.js';
import {
  adminClassifications,
  column,
  E2E_ASSEMBLY_DIR,
  E2E_TIME_SCALE,
  makeTempDir,
  type SandboxClassification,
  writeCsv,
} from './helpers.js';

const temp = makeTempDir('review-workbook');
let pipeline: LocalPipeline | undefined;

afterAll(async () => {
  await pipeline?.close();
  temp.remove();
});

/** Rows 1–2 resolve; 3–5 ask: A and B will be answered from the workbook, C left blank. */
const CATALOGUE = [
  ['R-001', 'Café torrado em grãos', 'import', 'BR'],
  ['R-002', 'Smartphone 128 GB', 'import', 'BR'],
  ['Q-A', 'Peças diversas de reposição [sandbox:ask=2]', 'import', 'BR'],
  ['Q-B', 'Kit de ferramentas [sandbox:ask=3]', 'import', 'BR'],
  ['Q-C', 'Material elétrico [sandbox:ask=1]', 'export', 'UY'],
];
const WAITING = ['Q-A', 'Q-B', 'Q-C'];
const ANSWERED = ['Q-A', 'Q-B'];
/** Typed where a question has no options: `&` and `<` must survive the XML and LibreOffice. */
const TYPED: Record<string, string> = {
  'Q-A': 'Reposição em tratores & colheitadeiras <linha pesada>',
  'Q-B': 'Manutenção de bancada, uso profissional',
};
/** The pt statuses of results.xlsx, as the brief names them (not read from the code under test). */
const PT_STATUS: Record<string, string> = { resolved: 'Resolvida', pending_data: 'Aguardando respostas' };
const ANSWER_ROUTE = 'POST /v1/classifications/{id}/answers';
const CREATE_ROUTE = 'POST /v1/classifications';

// ---------------------------------------------------------------------------
// Reading CSVs
// ---------------------------------------------------------------------------

type Table = { header: string[]; rows: string[][] };

const readCsvTable = (path: string): Table => {
  const text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  const [header = [], ...rows] = Papa.parse<string[]>(text, { skipEmptyLines: true }).data;
  return { header, rows };
};

const bySku = (table: Table, name: string): Record<string, string> =>
  Object.fromEntries(table.rows.map((row) => [row[column(table, 'sku')], row[column(table, name)] ?? '']));

// ---------------------------------------------------------------------------
// Reading and writing an xlsx's parts, as a program that opens one would (through xlsx-xml.ts)
// ---------------------------------------------------------------------------

type Validation = { type: string; sqref: string; formula1: string | null };

type Workbook = {
  parts: Unzipped;
  sheets: XlsxSheet[];
  part(path: string): string;
  /** A sheet's cells as the user sees their text, by reference (`J3`). */
  cells(sheet: XlsxSheet): Map<string, string>;
  validations(sheet: XlsxSheet): Validation[];
  /** 1-based numbers of the columns `<cols>` hides. */
  hiddenColumns(sheet: XlsxSheet): Set<number>;
  /** Whether the cell's style unlocks it (`<protection locked="0">` in its `cellXfs` entry). */
  unlocked(sheet: XlsxSheet, reference: string): boolean;
};

/** Finds every part through xl/workbook.xml and xl/_rels/workbook.xml.rels, as a reader must. */
const openWorkbook = (bytes: Uint8Array): Workbook => {
  const parts = unzipSync(bytes);
  const part = (path: string): string => partXml(parts, path);
  const stylesPath = workbookPartPath(parts, 'styles');
  if (stylesPath === undefined) throw new Error('the workbook has no styles part');
  const cellXfs = elementsNamed(part(stylesPath), 'cellXfs')[0]?.inner ?? '';
  const xfs = elementsNamed(cellXfs, 'xf');
  return {
    parts,
    sheets: workbookSheets(parts),
    part,
    cells: (sheet) =>
      new Map([...sheetCells(parts, sheet.name)].map(([reference, cell]) => [reference, cell.text])),
    validations: (sheet) =>
      elementsNamed(part(sheet.path), 'dataValidation').map(({ attributes, inner }) => {
        const { type = 'none', sqref = '' } = attributes;
        const formula = elementsNamed(inner, 'formula1')[0]?.inner;
        return { type, sqref, formula1: formula === undefined ? null : unescapeXml(formula) };
      }),
    hiddenColumns: (sheet) => {
      const hidden = new Set<number>();
      for (const { attributes } of elementsNamed(part(sheet.path), 'col')) {
        const { min, max, hidden: flag } = attributes;
        if (flag !== '1' && flag !== 'true') continue;
        for (let n = Number(min); n <= Number(max); n++) hidden.add(n);
      }
      return hidden;
    },
    unlocked: (sheet, reference) => {
      const style = sheetCells(parts, sheet.name).get(reference)?.style ?? 0;
      const locked = elementsNamed(xfs[style]?.inner ?? '', 'protection')[0]?.attributes.locked;
      return locked === '0' || locked === 'false';
    },
  };
};

/** The validation whose sqref (`J3`, `M2:M3`, `J2 J4`) covers the cell. */
const validationAt = (validations: readonly Validation[], reference: string): Validation | undefined =>
  validations.find((validation) => sqrefCovers(validation.sqref, reference));

/** A list validation's options: its range (`'Opções'!$A$3:$E$3`, quoted or not) read on its sheet. */
const listOptions = (workbook: Workbook, formula: string): string[] => {
  const match = /^(?:'((?:[^']|'')+)'|([^!]+))!(\$?[A-Z]+\$?[0-9]+:\$?[A-Z]+\$?[0-9]+)$/.exec(formula);
  if (!match) throw new Error(`not a range on a sheet: ${formula}`);
  const name = match[1] === undefined ? (match[2] as string) : match[1].replace(/''/g, "'");
  const cells = workbook.cells(sheetNamed(workbook.parts, name));
  return cellsCoveredBy(match[3]!).map((reference) => cells.get(reference) ?? '');
};

// ---------------------------------------------------------------------------
// The questions sheet of a review.xlsx
// ---------------------------------------------------------------------------

type AnswerCell = {
  n: number;
  questionId: string;
  reference: string;
  validation: Validation | undefined;
  /** The list's options when the validation is a list. */
  options: string[] | null;
};
type WaitingRow = {
  sku: string;
  /** The SKU cell: locked, without a rule (what an answer cell is not). */
  skuReference: string;
  classificationId: string;
  line: number;
  answers: AnswerCell[];
};

/** Every waiting row of the first sheet, located by its headers, with each answer cell's rule. */
const questionRows = (workbook: Workbook): WaitingRow[] => {
  const [first] = workbook.sheets;
  if (!first) throw new Error('the workbook has no sheet');
  const cells = workbook.cells(first);
  const validations = workbook.validations(first);
  const headers = new Map<string, string>();
  for (const [reference, text] of cells) {
    const match = /^([A-Z]+)1$/.exec(reference);
    if (match) headers.set(text, match[1]!);
  }
  const letters = (header: string): string => {
    const found = headers.get(header);
    if (!found) throw new Error(`no column "${header}" in ${[...headers.keys()].join(', ')}`);
    return found;
  };
  const lines = [...new Set([...cells.keys()].map((reference) => rowNumber(reference)))]
    .filter((line) => line > 1)
    .sort((a, b) => a - b);
  return lines.map((line) => {
    const answers: AnswerCell[] = [];
    for (let n = 1; headers.has(`ID da pergunta ${n}`); n++) {
      const questionId = cells.get(`${letters(`ID da pergunta ${n}`)}${line}`) ?? '';
      if (questionId === '') continue;
      const reference = `${letters(`Resposta ${n}`)}${line}`;
      const validation = validationAt(validations, reference);
      const options =
        validation?.type === 'list' && validation.formula1
          ? listOptions(workbook, validation.formula1)
          : null;
      answers.push({ n, questionId, reference, validation, options });
    }
    return {
      sku: cells.get(`${letters('SKU')}${line}`) ?? '',
      skuReference: `${letters('SKU')}${line}`,
      classificationId: cells.get(`${letters('ID da classificação')}${line}`) ?? '',
      line,
      answers,
    };
  });
};

/** The sandbox's admin view, with the parts of a classification this test reads. */
type AdminClassification = SandboxClassification & {
  questions: { id: string; text: string; options: string[] }[];
  answers: { question_id: string; answer: string }[];
  _sandbox: { finished_runs: { round: number; outcome: string }[] };
};

const adminView = async (): Promise<Map<string, AdminClassification>> => {
  const items = (await adminClassifications(`${pipeline?.sandbox?.origin}/__admin`)) as AdminClassification[];
  return new Map(items.map((item) => [item.id, item]));
};

const requests = (route: string): number => pipeline?.sandbox?.stats().requests_by_route[route] ?? 0;

const xlsxTable = async (path: string): Promise<Table> => {
  const { records } = await readXlsxRecords(new Uint8Array(readFileSync(path)), 'workbook.xlsx');
  const [header, ...rows] = records.map((record) => record.cells);
  return { header: header ?? [], rows };
};

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

// ---------------------------------------------------------------------------
// What the tests hand on to each other (they share one pipeline and one batch)
// ---------------------------------------------------------------------------

const out = join(temp.dir, 'out');
let batchId = '';
let resultsCsvBefore: Buffer | undefined;
let waiting: WaitingRow[] = [];
/** SKU → the answers put in the workbook: question id → answer. */
const chosen: Record<string, Record<string, string>> = {};
let savedByLibreOffice = '';

describe('review.xlsx through the local runtime and LibreOffice', () => {
  it('writes results.xlsx and review.xlsx beside the CSVs, one row per waiting product, in Portuguese', async () => {
    // Started here, not in a hook: a changed handler means a fresh synthesis (20 s or more).
    pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-review-workbook' },
    });
    const file = writeCsv(
      join(temp.dir, 'produtos.csv'),
      ['sku', 'descrição', 'operação', 'país'],
      CATALOGUE,
    );
    batchId = (await pipeline.submit({ file })).batchId;
    const first = await pipeline.waitForBatch(batchId);
    expect(first.summary.by_status).toMatchObject({ resolved: 2, pending_data: 3 });
    expect(first.outboxKeys).toEqual(
      expect.arrayContaining(
        ['results.csv', 'results.xlsx', 'review.csv', 'review.xlsx'].map(
          (name) => `outbox/${batchId}/${name}`,
        ),
      ),
    );
    const before = join(out, 'before');
    await pipeline.copyOutbox(batchId, before);
    for (const name of ['results.csv', 'results.xlsx', 'review.csv', 'review.xlsx'])
      expect(existsSync(join(before, name)), name).toBe(true);
    resultsCsvBefore = readFileSync(join(before, 'results.csv'));

    // The questions sheet first, the options sheet hidden behind it.
    const review = openWorkbook(readFileSync(join(before, 'review.xlsx')));
    expect(review.sheets.map(({ name, state }) => ({ name, state }))).toEqual([
      { name: 'Perguntas', state: 'visible' },
      { name: 'Opções', state: 'hidden' },
    ]);
    const table = await xlsxTable(join(before, 'review.xlsx'));
    expect(table.header).toEqual(
      expect.arrayContaining([
        'Linha',
        'SKU',
        'Descrição',
        'ID da classificação',
        'ID da pergunta 1',
        'Pergunta 1',
        'Resposta 1',
        'ID da pergunta 3',
        'Pergunta 3',
        'Resposta 3',
      ]),
    );
    // Q-B asks three questions, the most any row asks: no fourth group.
    expect(table.header).not.toContain('Resposta 4');
    expect(table.header).not.toContain('answer_1');
    expect(table.rows.map((row) => row[column(table, 'SKU')])).toEqual(WAITING);
    expect(table.rows.map((row) => row[column(table, 'Linha')])).toEqual(['3', '4', '5']);

    // The same products, the same classifications as review.csv.
    const reviewCsv = readCsvTable(join(before, 'review.csv'));
    expect(
      Object.fromEntries(
        table.rows.map((row) => [row[column(table, 'SKU')], row[column(table, 'ID da classificação')]]),
      ),
    ).toEqual(bySku(reviewCsv, 'classification_id'));
    // The question ids are there for the round, in hidden columns.
    const hidden = review.hiddenColumns(review.sheets[0]!);
    for (const n of [1, 2, 3])
      expect(hidden.has(column(table, `ID da pergunta ${n}`) + 1), `ID da pergunta ${n}`).toBe(true);
    expect(hidden.has(column(table, 'Resposta 1') + 1)).toBe(false);
    expect(readCsvTable(join(before, 'results.csv')).rows).toHaveLength(CATALOGUE.length);
    expect((await xlsxTable(join(before, 'results.xlsx'))).rows).toHaveLength(CATALOGUE.length);
  }, 180_000);

  it('offers each question’s suggested answers as a list, and LibreOffice keeps the lists and the answers picked', async () => {
    const before = join(out, 'before');
    const original = openWorkbook(readFileSync(join(before, 'review.xlsx')));
    waiting = questionRows(original);
    expect(waiting.map((row) => row.sku)).toEqual(WAITING);
    expect(waiting.map((row) => row.answers.length)).toEqual([2, 3, 1]);

    // Every answer cell, answered or not, is unlocked and carries the rule its question calls for:
    // the service's options as the list, or free text within 500 characters.
    const service = await adminView();
    for (const row of waiting) {
      const classification = service.get(row.classificationId);
      expect(classification?.status, row.sku).toBe('pending_data');
      expect(row.answers.map((answer) => answer.questionId)).toEqual(
        classification?.questions.map((question) => question.id),
      );
      for (const answer of row.answers) {
        const question = classification?.questions.find((q) => q.id === answer.questionId);
        const where = `${row.sku} ${answer.reference}`;
        expect(original.unlocked(original.sheets[0]!, answer.reference), where).toBe(true);
        if (question?.options.length) {
          expect(answer.validation?.type, where).toBe('list');
          expect(answer.options, where).toEqual(question.options);
        } else {
          expect(answer.validation, where).toMatchObject({ type: 'textLength', formula1: '500' });
        }
      }
      // Nothing else of the row is open to typing.
      expect(original.unlocked(original.sheets[0]!, row.skuReference), row.skuReference).toBe(false);
      expect(validationAt(original.validations(original.sheets[0]!), row.skuReference)).toBeUndefined();
    }

    // Pick: the last option of each list (a range cut short would not reach it), typed text otherwise.
    let xml = original.part(original.sheets[0]!.path);
    for (const row of waiting.filter((r) => ANSWERED.includes(r.sku))) {
      chosen[row.sku] = {};
      for (const answer of row.answers) {
        const value = answer.options ? answer.options[answer.options.length - 1]! : TYPED[row.sku]!;
        chosen[row.sku]![answer.questionId] = value;
        xml = withInlineString(xml, answer.reference, value);
      }
    }
    // Both kinds are exercised: Q-A's first question has options, its second none.
    expect(waiting[0]?.answers.map((answer) => answer.options !== null)).toEqual([true, false]);
    const filledDir = join(temp.dir, 'filled');
    mkdirSync(filledDir, { recursive: true });
    const filledPath = join(filledDir, 'review.xlsx');
    writeFileSync(filledPath, zipSync({ ...original.parts, [original.sheets[0]!.path]: strToU8(xml) }));

    const expected = (sku: string) =>
      waiting
        .find((row) => row.sku === sku)
        ?.answers.map((answer) => ({
          n: answer.n,
          question_id: answer.questionId,
          answer: chosen[sku]?.[answer.questionId] ?? '',
        }));
    const answersOf = async (path: string): Promise<Record<string, AnswersFileRow>> => {
      const file = await readAnswersFile(new Uint8Array(readFileSync(path)), 'review.xlsx');
      expect(file.format).toBe('xlsx');
      return Object.fromEntries(
        file.rows.map((row) => [
          waiting.find((w) => w.classificationId === row.classification_id)?.sku ?? '',
          row,
        ]),
      );
    };
    // What was written reads back as written, before LibreOffice touches it.
    expect((await answersOf(filledPath))['Q-A']?.answers).toEqual(expected('Q-A'));

    savedByLibreOffice = saveWithLibreOffice(filledPath, join(temp.dir, 'libreoffice'));
    const saved = openWorkbook(readFileSync(savedByLibreOffice));
    expect(saved.part('docProps/app.xml')).toContain('LibreOffice');
    expect(saved.sheets.map(({ name, state }) => ({ name, state }))).toEqual([
      { name: 'Perguntas', state: 'visible' },
      { name: 'Opções', state: 'hidden' },
    ]);
    // The lists still point at the same options, the typed cells still take free text, and the
    // picked answers are in their cells.
    const savedRows = questionRows(saved);
    expect(savedRows.map((row) => row.sku)).toEqual(WAITING);
    const savedCells = saved.cells(saved.sheets[0]!);
    for (const [i, row] of savedRows.entries()) {
      for (const [j, answer] of row.answers.entries()) {
        const originalAnswer = waiting[i]?.answers[j];
        const where = `${row.sku} ${answer.reference}`;
        expect(answer.reference, where).toBe(originalAnswer?.reference);
        expect(answer.validation?.type, where).toBe(originalAnswer?.validation?.type);
        expect(answer.options, where).toEqual(originalAnswer?.options);
        expect(savedCells.get(answer.reference) ?? '', where).toBe(
          chosen[row.sku]?.[answer.questionId] ?? '',
        );
      }
    }
    expect(savedRows.flatMap((row) => row.answers).filter((a) => a.validation?.type === 'list').length).toBe(
      waiting.flatMap((row) => row.answers).filter((a) => a.options !== null).length,
    );

    // And the round's reader finds them: two rows answered in full, the third with empty answers.
    const read = await answersOf(savedByLibreOffice);
    expect(Object.keys(read).sort()).toEqual(WAITING);
    expect(read['Q-A']?.answers).toEqual(expected('Q-A'));
    expect(read['Q-B']?.answers).toEqual(expected('Q-B'));
    expect(read['Q-C']?.answers.map((answer) => answer.answer)).toEqual(['']);
  }, 180_000);

  it('resumes exactly the two answered rows from the LibreOffice copy, billed once, with the answers chosen', async () => {
    if (!pipeline) throw new Error('the pipeline did not start');
    expect(pipeline.sandbox?.stats().billed_usd).toBe(4);
    const answerRequestsBefore = requests(ANSWER_ROUTE);
    const createRequestsBefore = requests(CREATE_ROUTE);
    const id = (sku: string) => waiting.find((row) => row.sku === sku)?.classificationId ?? '';

    const { roundId } = await pipeline.submitAnswers({
      file: savedByLibreOffice,
      batchId,
      answeredBy: 'ana.revisora',
    });
    const round = await pipeline.waitForBatch(roundId);
    expect(round.state).toBe('completed');
    expect(round.outboxKeys).toEqual(
      expect.arrayContaining(
        [
          'results.csv',
          'results.xlsx',
          'results.rev1.csv',
          'results.rev1.xlsx',
          'review.xlsx',
          'answers-report.csv',
        ].map((name) => `outbox/${batchId}/${name}`),
      ),
    );
    const after = join(out, 'round');
    await pipeline.copyOutbox(batchId, after);
    expect(bySku(readCsvTable(join(after, 'results.csv')), 'status')).toEqual({
      'R-001': 'resolved',
      'R-002': 'resolved',
      'Q-A': 'resolved',
      'Q-B': 'resolved',
      'Q-C': 'pending_data',
    });
    const report = readCsvTable(join(after, 'answers-report.csv'));
    expect(
      Object.fromEntries(
        report.rows.map((row) => [row[column(report, 'row')], row[column(report, 'outcome')]]),
      ),
    ).toEqual({ '3': 'resumed', '4': 'resumed', '5': 'skipped_unanswered' });
    expect(round.summary).toMatchObject({
      revision: 1,
      billed_usd: 8,
      by_status: { resolved: 4, pending_data: 1 },
    });
    // The workbook's own hidden options sheet is no sheet the user added: nothing said of it.
    expect(JSON.stringify(round.summary.problems)).not.toContain('sheet');

    // The service: USD 2.00 for each of the two, once; the third neither answered nor billed;
    // one answers request each, and no classification created anew.
    expect(pipeline.sandbox?.stats().billed_usd).toBe(8);
    expect(requests(ANSWER_ROUTE) - answerRequestsBefore).toBe(2);
    expect(requests(CREATE_ROUTE) - createRequestsBefore).toBe(0);
    const service = await adminView();
    for (const sku of ANSWERED) {
      const classification = service.get(id(sku));
      expect(classification?.status, sku).toBe('resolved');
      expect(classification?._sandbox.billed_times, sku).toBe(1);
      expect(
        classification?._sandbox.finished_runs.filter((run) => run.round === 2),
        sku,
      ).toHaveLength(1);
      // What the service received is what was picked from the lists and typed.
      expect(
        Object.fromEntries(classification?.answers.map((a) => [a.question_id, a.answer]) ?? []),
        sku,
      ).toEqual(chosen[sku]);
    }
    const unanswered = service.get(id('Q-C'));
    expect(unanswered).toMatchObject({ status: 'pending_data', answers: [], _sandbox: { billed_times: 0 } });

    // The same workbook dropped again: every row already answered or left, nothing sent or billed.
    const again = await pipeline.waitForBatch(
      (await pipeline.submitAnswers({ file: savedByLibreOffice, batchId, answeredBy: 'ana.revisora' }))
        .roundId,
    );
    expect(again.state).toBe('completed');
    const second = join(out, 'again');
    await pipeline.copyOutbox(batchId, second);
    const secondReport = readCsvTable(join(second, 'answers-report.csv'));
    expect(secondReport.rows.map((row) => row[column(secondReport, 'outcome')])).toEqual([
      'already_answered',
      'already_answered',
      'skipped_unanswered',
    ]);
    expect(again.summary.revision).toBe(1);
    expect(pipeline.sandbox?.stats().billed_usd).toBe(8);
    expect(requests(ANSWER_ROUTE) - answerRequestsBefore).toBe(2);
    const serviceAgain = await adminView();
    for (const sku of ANSWERED) {
      expect(
        serviceAgain.get(id(sku))?._sandbox.finished_runs.filter((run) => run.round === 2),
        sku,
      ).toHaveLength(1);
    }
    expect(serviceAgain.get(id('Q-C'))?._sandbox.billed_times).toBe(0);
    expect(bySku(readCsvTable(join(second, 'results.csv')), 'status')).toMatchObject({
      'Q-A': 'resolved',
      'Q-B': 'resolved',
      'Q-C': 'pending_data',
    });
  }, 180_000);

  it('moves results.xlsx forward with results.csv, keeps revision 1 of both, and leaves the unanswered row in review.xlsx', async () => {
    const after = join(out, 'round');
    const results = readCsvTable(join(after, 'results.csv'));
    const statuses = bySku(results, 'status');
    const ncms = bySku(results, 'ncm');

    const workbook = openWorkbook(readFileSync(join(after, 'results.xlsx')));
    expect(workbook.sheets.map((sheet) => sheet.name)).toEqual([
      'Resultados',
      'Resumo',
      'Divergências de NCM',
    ]);
    const sheet = await xlsxTable(join(after, 'results.xlsx'));
    expect(sheet.rows).toHaveLength(CATALOGUE.length);
    const cell = (row: string[], header: string) => row[column(sheet, header)] ?? '';
    const shown = Object.fromEntries(
      sheet.rows.map((row) => [cell(row, 'sku'), { status: cell(row, 'Situação'), ncm: cell(row, 'NCM') }]),
    );
    for (const sku of ANSWERED) {
      expect(shown[sku]?.status, sku).toBe('Resolvida');
      expect(shown[sku]?.ncm, sku).toMatch(/^\d{4}\.\d{2}\.\d{2}$/);
    }
    // Row by row the workbook says what results.csv says.
    expect(shown).toEqual(
      Object.fromEntries(
        Object.keys(statuses).map((sku) => [sku, { status: PT_STATUS[statuses[sku]!], ncm: ncms[sku] }]),
      ),
    );

    // Each verdict PDF is a link that opens a PDF beside the workbook; every resolved row has one.
    const links = sheetFormulaLinks(unzipSync(readFileSync(join(after, 'results.xlsx'))), 'Resultados');
    const resolvedRows = Object.values(statuses).filter((status) => status === 'resolved').length;
    expect(links.size).toBe(resolvedRows);
    for (const target of links.values()) {
      expect(target, target).toMatch(/^pdfs\/[^/]+\.pdf$/);
      expect(readFileSync(join(after, target)).subarray(0, 5).toString('latin1'), target).toBe('%PDF-');
    }

    // The earlier results kept beside them: the CSV as it was, the workbook still waiting on A and B.
    expect(readFileSync(join(after, 'results.rev1.csv')).equals(resultsCsvBefore as Buffer)).toBe(true);
    const revision = await xlsxTable(join(after, 'results.rev1.xlsx'));
    const revisionStatus = Object.fromEntries(
      revision.rows.map((row) => [row[column(revision, 'sku')], row[column(revision, 'Situação')]]),
    );
    expect(revisionStatus).toMatchObject({
      'R-001': 'Resolvida',
      'Q-A': 'Aguardando respostas',
      'Q-B': 'Aguardando respostas',
    });

    // review.xlsx now holds only the row left unanswered, its list still pointing at its options.
    const review = openWorkbook(readFileSync(join(after, 'review.xlsx')));
    const left = questionRows(review);
    expect(left.map((row) => row.sku)).toEqual(['Q-C']);
    expect(left[0]?.answers.map((answer) => answer.options)).toEqual(
      waiting.find((row) => row.sku === 'Q-C')?.answers.map((answer) => answer.options),
    );
    expect(Object.keys(bySku(readCsvTable(join(after, 'review.csv')), 'classification_id'))).toEqual(['Q-C']);
  }, 60_000);
});
