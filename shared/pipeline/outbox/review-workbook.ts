/**
 * review.xlsx: the questions of the rows waiting for answers, made to be answered in Excel or
 * LibreOffice and dropped back into `answers/<batch-id>/` like a filled review.csv (the answers
 * round reads either: answers/answers-file.ts).
 *
 *   one row per waiting product (rows of the same product resume with it), in row order:
 *   Linha │ SKU │ Referência │ Descrição │ ID │ NCM provisória │ Confiança │ (ID da pergunta 1) │
 *   Pergunta 1 │ Resposta 1 ▾ │ … │ Nova ficha técnica │ Abandonada em │ Dias restantes │ Linhas do mesmo produto
 *
 * Then, when verdicts wait for a person, the sheet to check them in (check-sheet.ts).
 *
 * An answer cell offers the question's suggested answers as an in-cell drop-down (data validation
 * over a hidden sheet, so options may hold commas and be long) and still takes a typed answer,
 * with a warning, since the service's options are suggestions; a question without options takes
 * free text of up to 500 characters. Only the answer cells and the new-sheet cells are unlocked
 * (fill-in-sheet.ts). The question ids stay in hidden columns: the round matches answers to
 * questions by them.
 */
import type { Readable } from 'node:stream';
import type ExcelJS from 'exceljs';
import { columnLetter } from '../../spreadsheet/columns.js';
import { formatNcm } from '../../spreadsheet/write-csv.js';
import { streamWorkbook, type WorkbookWriter } from '../../spreadsheet/write-xlsx.js';
import { xlsxText } from '../../spreadsheet/xlsx-layout.js';
import { LIMITS } from '../../tcs/schemas.js';
import type { CheckItem } from '../core/check-records.js';
import { type BatchRecord, daysLeft, type ReviewItem } from '../core/records.js';
import { writeCheckSheet } from './check-sheet.js';
import { type FillInColumn, orNull, writeFillInSheet } from './fill-in-sheet.js';
import { mostQuestions } from './results-files.js';
import type { WorkbookWords } from './workbook-labels.js';
import { wordsForBatch } from './workbook-language.js';

/** A column's letters from its number (1-based). */
const column = (n: number): string => columnLetter(n - 1);

/** What review.xlsx is made from: the batch, its items waiting for answers, its check items and its date. */
export type ReviewWorkbookInput = {
  batch: Pick<BatchRecord, 'header' | 'options'>;
  /** The items still waiting, as review.csv lists them (`pendingReviewItems`). */
  items: readonly ReviewItem[];
  /** Leader row → the rows of the same product that resume with its answers. */
  sameProductRows?: ReadonlyMap<number, readonly number[]>;
  /** What the workbook is as of: the days left are counted from it, and it dates the file. */
  at: Date;
  /** The batch's check items: those still `to_check` get a sheet after the questions (check-sheet.ts). */
  checks?: readonly CheckItem[];
};

/**
 * review.xlsx as a stream made as it is read (the questions sheet, then the sheet of verdicts to
 * check when any): give it to an upload as its body.
 */
export const reviewWorkbook = (input: ReviewWorkbookInput): Readable =>
  streamWorkbook((workbook) => writeReviewWorkbook(workbook, input), input.at);

const reviewColumns = (
  items: readonly ReviewItem[],
  words: WorkbookWords,
  input: Pick<ReviewWorkbookInput, 'sameProductRows' | 'at'>,
  options: ReadonlyMap<string, string>,
): FillInColumn<ReviewItem>[] => {
  const r = words.review;
  const groups = Math.max(1, mostQuestions(items));
  const sameProduct = (item: ReviewItem) => (input.sameProductRows?.get(item.row) ?? []).join(' ');
  const columns: FillInColumn<ReviewItem>[] = [
    { header: r.row, fits: [], max: 8, value: (item) => item.row },
    { header: r.sku, fits: items.map((i) => i.sku), max: 24, value: (item) => orNull(item.sku) },
    {
      header: r.external_reference,
      fits: items.map((i) => i.external_reference),
      max: 24,
      value: (item) => orNull(item.external_reference),
    },
    {
      header: r.description,
      fits: items.map((i) => i.description),
      max: 50,
      wrap: true,
      value: (item) => orNull(item.description),
    },
    {
      header: r.classification_id,
      fits: items.map((i) => i.classification_id),
      max: 24,
      value: (item) => item.classification_id,
    },
    {
      header: r.provisional_ncm,
      fits: ['0000.00.00'],
      max: 16,
      value: (item) => (item.provisional_ncm ? xlsxText(formatNcm(item.provisional_ncm)) : null),
    },
    {
      header: r.provisional_confidence,
      fits: ['100%'],
      max: 24,
      numFmt: '0%',
      value: (item) => (item.provisional_confidence === null ? null : item.provisional_confidence / 100),
    },
  ];
  for (let i = 0; i < groups; i += 1) {
    const question = (item: ReviewItem) => item.questions[i];
    columns.push(
      {
        header: r.questionId(i + 1),
        fits: [],
        max: 12,
        hidden: true,
        value: (item) => orNull(question(item)?.id),
      },
      {
        header: r.question(i + 1),
        fits: items.map((item) => question(item)?.text),
        max: 50,
        wrap: true,
        value: (item) => orNull(question(item)?.text),
      },
      {
        header: r.answer(i + 1),
        fits: items.flatMap((item) => question(item)?.options ?? []),
        max: 40,
        wrap: true,
        // Unlocked where the item has this question, with its drop-down.
        fillIn: (item) => {
          const asked = question(item);
          if (!asked) return null;
          const list = options.get(`${item.classification_id} ${asked.id}`);
          return { shaded: true, rule: answerValidation(list, words) };
        },
        value: () => null,
      },
    );
  }
  const abandons = columns.length + 2;
  columns.push(
    // A new technical sheet's path: unlocked, unshaded, its hint over the column.
    {
      header: r.sheet,
      fits: [],
      max: 30,
      fillIn: () => ({ shaded: false, rule: null }),
      hint: words.hints.sheet,
      value: () => null,
    },
    {
      header: r.abandons_at,
      fits: [words.dateFormat],
      max: 24,
      numFmt: words.dateFormat,
      value: (item) => new Date(item.abandons_at),
    },
    {
      header: r.days_left,
      fits: ['30'],
      max: 16,
      // Counted again whenever the workbook is opened; the value written is today's count.
      value: (item, line) => ({
        formula: `MAX(0,INT(${column(abandons)}${line}-NOW()))`,
        result: daysLeft(item.abandons_at, input.at),
      }),
    },
    {
      header: r.same_product_rows,
      fits: items.map(sameProduct),
      max: 30,
      value: (item) => orNull(sameProduct(item)),
    },
  );
  return columns;
};

/** An answer cell's rule: the suggested answers as a drop-down, else free text within the service's limit. */
const answerValidation = (list: string | undefined, words: WorkbookWords): ExcelJS.DataValidation =>
  list
    ? {
        type: 'list',
        allowBlank: true,
        formulae: [list],
        showInputMessage: true,
        promptTitle: words.hints.answerTitle,
        prompt: words.hints.pickOrType,
        // A warning, not a refusal: the service's options are suggestions, a typed answer is valid.
        showErrorMessage: true,
        errorStyle: 'warning',
        errorTitle: words.hints.notSuggestedTitle,
        error: words.hints.notSuggested,
      }
    : {
        type: 'textLength',
        operator: 'lessThanOrEqual',
        allowBlank: true,
        formulae: [LIMITS.answerMax],
        showInputMessage: true,
        promptTitle: words.hints.answerTitle,
        prompt: words.hints.typeFreely,
        showErrorMessage: true,
        errorStyle: 'stop',
        errorTitle: words.hints.tooLongTitle,
        error: words.hints.tooLong,
      };

const writeReviewWorkbook = async (workbook: WorkbookWriter, input: ReviewWorkbookInput): Promise<void> => {
  const words = wordsForBatch(input.batch);
  const items = [...input.items].sort((a, b) => a.row - b.row);
  const options = optionRanges(items, words.sheets.options);
  await writeFillInSheet(workbook, words.sheets.review, items, reviewColumns(items, words, input, options));
  // After the questions sheet: the first sheet is the one a reader (and the answers round) opens.
  await writeCheckSheet(workbook, input.checks ?? [], words, input.sameProductRows);
  await writeOptionsSheet(workbook, items, words);
};

const withOptions = (items: readonly ReviewItem[]) =>
  items.flatMap((item) =>
    item.questions.filter((question) => question.options.length > 0).map((question) => ({ item, question })),
  );

/**
 * Where each question's suggested answers lie on the hidden sheet: one line per question that has
 * options, the options across it. Keyed by `<classification id> <question id>`.
 */
const optionRanges = (items: readonly ReviewItem[], sheetName: string): Map<string, string> => {
  const quoted = `'${sheetName.replace(/'/g, "''")}'`;
  return new Map(
    withOptions(items).map(({ item, question }, i) => [
      `${item.classification_id} ${question.id}`,
      `${quoted}!$A$${i + 1}:$${column(question.options.length)}$${i + 1}`,
    ]),
  );
};

/** The hidden sheet `optionRanges` points into, protected like the questions. */
const writeOptionsSheet = async (
  workbook: WorkbookWriter,
  items: readonly ReviewItem[],
  words: WorkbookWords,
) => {
  const sheet = workbook.addWorksheet(words.sheets.options, { state: 'hidden' });
  for (const { question } of withOptions(items)) {
    sheet.addRow(question.options.map((option) => xlsxText(option))).commit();
  }
  await sheet.protect('', { selectLockedCells: true, selectUnlockedCells: true });
  sheet.commit();
};
