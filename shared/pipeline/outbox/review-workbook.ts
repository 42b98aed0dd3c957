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
import { columnLetter } from '../../spreadsheet/column-letters.js';
import { formatNcm } from '../../spreadsheet/write-csv.js';
import { type StreamedSheet, streamWorkbook } from '../../spreadsheet/write-xlsx.js';
import { xlsxText } from '../../spreadsheet/xlsx-layout.js';
import { inlineStringCell, rowXml, sheetDataEnd, sheetEnd, sheetHead } from '../../spreadsheet/xlsx-parts.js';
import { type CellRule, sheetProtectionXml } from '../../spreadsheet/xlsx-rules.js';
import { LIMITS } from '../../tcs/schemas.js';
import type { CheckItem } from '../core/check-records.js';
import { type BatchRecord, daysLeft, type ReviewItem } from '../core/records.js';
import { checkSheet } from './check-sheet.js';
import { type FillInColumn, fillInSheet, orNull } from './fill-in-sheet.js';
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
  streamWorkbook(() => reviewSheets(input), input.at);

const reviewColumns = (
  items: readonly ReviewItem[],
  words: WorkbookWords,
  input: Pick<ReviewWorkbookInput, 'sameProductRows' | 'at'>,
  options: OptionLines,
): FillInColumn<ReviewItem>[] => {
  const r = words.review;
  const groups = Math.max(1, mostQuestions(items));
  const sameProduct = (item: ReviewItem) => (input.sameProductRows?.get(item.row) ?? []).join(' ');
  const columns: FillInColumn<ReviewItem>[] = [
    { header: r.row, max: 8, value: (item) => item.row },
    { header: r.sku, fits: (item) => item.sku, max: 24, value: (item) => orNull(item.sku) },
    {
      header: r.external_reference,
      fits: (item) => item.external_reference,
      max: 24,
      value: (item) => orNull(item.external_reference),
    },
    {
      header: r.description,
      fits: (item) => item.description,
      max: 50,
      wrap: true,
      value: (item) => orNull(item.description),
    },
    {
      header: r.classification_id,
      fits: (item) => item.classification_id,
      max: 24,
      value: (item) => item.classification_id,
    },
    {
      header: r.provisional_ncm,
      sample: '0000.00.00',
      max: 16,
      value: (item) => (item.provisional_ncm ? xlsxText(formatNcm(item.provisional_ncm)) : null),
    },
    {
      header: r.provisional_confidence,
      sample: '100%',
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
        max: 12,
        hidden: true,
        value: (item) => orNull(question(item)?.id),
      },
      {
        header: r.question(i + 1),
        fits: (item) => question(item)?.text,
        max: 50,
        wrap: true,
        value: (item) => orNull(question(item)?.text),
      },
      {
        header: r.answer(i + 1),
        fits: (item) => question(item)?.options,
        max: 40,
        wrap: true,
        // Unlocked where the item has this question, with its drop-down.
        fillIn: (item, index) =>
          question(item)
            ? { shaded: true, rule: answerValidation(options.range(item, index, i), words) }
            : null,
        value: () => null,
      },
    );
  }
  const abandons = columns.length + 2;
  columns.push(
    // A new technical sheet's path: unlocked, unshaded, its hint over the column.
    {
      header: r.sheet,
      max: 30,
      fillIn: () => ({ shaded: false, rule: null }),
      hint: words.hints.sheet,
      value: () => null,
    },
    {
      header: r.abandons_at,
      sample: words.dateFormat,
      max: 24,
      numFmt: words.dateFormat,
      value: (item) => new Date(item.abandons_at),
    },
    {
      header: r.days_left,
      sample: '30',
      max: 16,
      // Counted again whenever the workbook is opened; the value written is today's count.
      value: (item, line) => ({
        formula: `MAX(0,INT(${column(abandons)}${line}-NOW()))`,
        result: daysLeft(item.abandons_at, input.at),
      }),
    },
    {
      header: r.same_product_rows,
      fits: sameProduct,
      max: 30,
      value: (item) => orNull(sameProduct(item)),
    },
  );
  return columns;
};

/** An answer cell's rule: the suggested answers as a drop-down, else free text within the service's limit. */
const answerValidation = (list: string | undefined, words: WorkbookWords): CellRule =>
  list
    ? {
        type: 'list',
        formula: list,
        prompt: { title: words.hints.answerTitle, text: words.hints.pickOrType },
        // A warning, not a refusal: the service's options are suggestions, a typed answer is valid.
        alert: { style: 'warning', title: words.hints.notSuggestedTitle, text: words.hints.notSuggested },
      }
    : {
        type: 'textLength',
        operator: 'lessThanOrEqual',
        formula: String(LIMITS.answerMax),
        prompt: { title: words.hints.answerTitle, text: words.hints.typeFreely },
        alert: { style: 'stop', title: words.hints.tooLongTitle, text: words.hints.tooLong },
      };

/** review.xlsx's sheets in tab order: the questions, the verdicts to check when any, the hidden options. */
const reviewSheets = (input: ReviewWorkbookInput): StreamedSheet[] => {
  const words = wordsForBatch(input.batch);
  const items = [...input.items].sort((a, b) => a.row - b.row);
  const options = optionLines(items, words.sheets.options);
  const checks = checkSheet(input.checks ?? [], words, input.sameProductRows);
  return [
    fillInSheet(words.sheets.review, items, reviewColumns(items, words, input, options)),
    // After the questions sheet: the first sheet is the one a reader (and the answers round) opens.
    ...(checks ? [checks] : []),
    optionsSheet(items, words),
  ];
};

const hasOptions = (question: ReviewItem['questions'][number]): boolean => question.options.length > 0;

/** Where each question's suggested answers lie on the hidden sheet (`optionsSheet`). */
type OptionLines = {
  /** The range of the options of question `n` (from 0) of `item`, at `index` in the items; undefined when it has none. */
  range(item: ReviewItem, index: number, n: number): string | undefined;
};

/**
 * The hidden sheet holds one line per question that has options, in item order, the options
 * across it: an item's lines follow the lines of the items before it. Counted once per item (a
 * number each), so a long sheet keeps no text per question.
 */
const optionLines = (items: readonly ReviewItem[], sheetName: string): OptionLines => {
  const quoted = `'${sheetName.replace(/'/g, "''")}'`;
  const before = new Uint32Array(items.length);
  let lines = 0;
  items.forEach((item, index) => {
    before[index] = lines;
    lines += item.questions.filter(hasOptions).length;
  });
  return {
    range(item, index, n) {
      const question = item.questions[n];
      if (!question || !hasOptions(question)) return undefined;
      const line = (before[index] ?? 0) + item.questions.slice(0, n).filter(hasOptions).length + 1;
      return `${quoted}!$A$${line}:$${column(question.options.length)}$${line}`;
    },
  };
};

/** The hidden sheet `optionLines` points into, protected like the questions: one line per question with options. */
const optionsSheet = (items: readonly ReviewItem[], words: WorkbookWords): StreamedSheet => ({
  name: words.sheets.options,
  hidden: true,
  *xml() {
    yield sheetHead({ frozenRows: 0, columns: [] });
    let line = 0;
    for (const item of items) {
      for (const question of item.questions.filter(hasOptions)) {
        line += 1;
        const cells = question.options.map((option, i) =>
          inlineStringCell(`${column(i + 1)}${line}`, xlsxText(option)),
        );
        yield rowXml(line, cells.join(''));
      }
    }
    yield sheetDataEnd({ protection: sheetProtectionXml() });
    yield sheetEnd('portrait');
  },
});
