/**
 * review.xlsx's sheet of verdicts to check (docs/workbooks.md), after the questions: one row per
 * verdict waiting for a person, with what they need to decide it and three cells to decide it in.
 *
 *   Linha │ SKU │ Descrição │ Título │ ID da classificação │ Por que conferir │ NCM do serviço │
 *   Confiança do serviço │ Candidato N: NCM │ …: descrição │ …: confiança │ …: justificativa │ … │
 *   Destaques SIM │ Parecer (PDF) │ Linhas do mesmo produto │ NCM decidida ▾ │ Destaque SIM decidido ▾ │
 *   Observação da decisão
 *
 * The decided NCM offers the candidates' NCMs as an in-cell drop-down and still takes an NCM
 * typed (the list's error message is off: Excel and LibreOffice then keep any value); the round
 * checks a typed one against the NCM table in force. The decided SIM offers the SIM openings and
 * takes nothing else when there are some. The decision cells hold text, so a typed 84713012 stays
 * a code; they alone are unlocked, the sheet protected without a password like the questions.
 * Columns are to-check.csv's (to-check-files.ts) under localized headers, read back by
 * answers/decisions-file.ts. A batch with nothing to check has no such sheet.
 */
import { formatNcm } from '../../spreadsheet/write-csv.js';
import type { StreamedSheet } from '../../spreadsheet/write-xlsx.js';
import { xlsxText } from '../../spreadsheet/xlsx-layout.js';
import type { CellValue } from '../../spreadsheet/xlsx-parts.js';
import type { CellRule } from '../../spreadsheet/xlsx-rules.js';
import type { CheckItem } from '../core/check-records.js';
import { type FillInColumn, fillInSheet, orNull } from './fill-in-sheet.js';
import { resultCell } from './results-sheet-xml.js';
import type { CheckWords } from './review-labels.js';
import { openChecks, simOptionText } from './to-check-files.js';
import type { WorkbookWords } from './workbook-labels.js';

const percent = (confidence: number | null | undefined): CellValue =>
  confidence === null || confidence === undefined ? null : confidence / 100;

/** Why the verdict waits, in words. */
const reasonsText = (item: CheckItem, words: CheckWords): string =>
  item.reasons
    .map((reason) =>
      reason === 'low_confidence'
        ? words.reason.low_confidence(item.check_below)
        : words.reason.sim_pending_choice,
    )
    .join('; ');

/** The four columns of the candidate at `i` (0-based): its NCM, description, confidence and rationale. */
const candidateColumns = (c: CheckWords, i: number): FillInColumn<CheckItem>[] => {
  const candidate = (item: CheckItem) => item.candidates[i];
  return [
    {
      header: c.candidate(i + 1, 'ncm'),
      sample: '0000.00.00',
      max: 16,
      value: (item) => orNull(candidate(item) && formatNcm(candidate(item)!.ncm)),
    },
    {
      header: c.candidate(i + 1, 'description'),
      fits: (item) => candidate(item)?.description,
      max: 40,
      wrap: true,
      value: (item) => orNull(candidate(item)?.description),
    },
    {
      header: c.candidate(i + 1, 'confidence'),
      sample: '100%',
      max: 14,
      numFmt: '0%',
      value: (item) => percent(candidate(item)?.confidence),
    },
    {
      header: c.candidate(i + 1, 'rationale'),
      fits: (item) => candidate(item)?.rationale,
      max: 50,
      wrap: true,
      value: (item) => orNull(candidate(item)?.rationale),
    },
  ];
};

const checkColumns = (
  items: readonly CheckItem[],
  words: WorkbookWords,
  sameProductRows: ReadonlyMap<number, readonly number[]>,
): FillInColumn<CheckItem>[] => {
  const c = words.check;
  const groups = items.reduce((most, item) => Math.max(most, item.candidates.length), 1);
  const sameProduct = (item: CheckItem) => (sameProductRows.get(item.row) ?? []).join(' ');
  const sims = (item: CheckItem) => item.sim_options.map(simOptionText).join('\n');
  const columns: FillInColumn<CheckItem>[] = [
    { header: c.row, max: 8, value: (item) => item.row },
    { header: c.sku, fits: (item) => item.sku, max: 24, value: (item) => orNull(item.sku) },
    {
      header: c.description,
      fits: (item) => item.description,
      max: 50,
      wrap: true,
      value: (item) => orNull(item.description),
    },
    {
      header: c.title,
      fits: (item) => item.title,
      max: 30,
      wrap: true,
      value: (item) => orNull(item.title),
    },
    {
      header: c.classification_id,
      fits: (item) => item.classification_id,
      max: 24,
      value: (item) => item.classification_id,
    },
    {
      header: c.reasons,
      fits: (item) => reasonsText(item, c),
      max: 30,
      wrap: true,
      value: (item) => xlsxText(reasonsText(item, c)),
    },
    {
      header: c.ncm,
      sample: '0000.00.00',
      max: 16,
      value: (item) => orNull(item.ncm && formatNcm(item.ncm)),
    },
    {
      header: c.confidence,
      sample: '100%',
      max: 16,
      numFmt: '0%',
      value: (item) => percent(item.confidence),
    },
  ];
  for (let i = 0; i < groups; i += 1) columns.push(...candidateColumns(c, i));
  columns.push(
    {
      header: c.sim_options,
      fits: sims,
      max: 40,
      wrap: true,
      value: (item) => orNull(sims(item)),
    },
    {
      header: c.verdict_pdf,
      fits: (item) => item.verdict_pdf,
      max: 40,
      // The same link as results.xlsx's: it opens the PDF beside the workbook.
      value: (item) => resultCell('verdict_pdf', item.verdict_pdf ?? '', words),
    },
    {
      header: c.same_product_rows,
      fits: sameProduct,
      max: 24,
      value: (item) => orNull(sameProduct(item)),
    },
    {
      header: c.decision_ncm,
      sample: '0000.00.00',
      max: 18,
      numFmt: '@',
      fillIn: (item) => ({ shaded: true, rule: decisionValidation(item, 'ncm', c) }),
      value: () => null,
    },
    {
      header: c.decision_sim,
      sample: '0000.00.00.00',
      max: 20,
      numFmt: '@',
      fillIn: (item) => ({ shaded: true, rule: decisionValidation(item, 'sim', c) }),
      value: () => null,
    },
    {
      header: c.decision_note,
      max: 40,
      wrap: true,
      // No rule, only its hint over the column.
      fillIn: () => ({ shaded: true, rule: null }),
      hint: c.hints.note,
      value: () => null,
    },
  );
  return columns;
};

/** A list written in its rule (`"8471.30.12,8471.41.00"`): codes hold no comma or quote. */
const inlineList = (values: readonly string[]): string => `"${values.join(',')}"`;

/** A decision cell's rule, or null when it takes free text with a hint only. */
const decisionValidation = (item: CheckItem, kind: 'ncm' | 'sim', words: CheckWords): CellRule | null => {
  if (kind === 'ncm') {
    const codes = [...new Set(item.candidates.map((candidate) => formatNcm(candidate.ncm)))];
    if (codes.length === 0) return null;
    // No alert: a typed NCM is a decision too, checked by the round against the table in force.
    return {
      type: 'list',
      formula: inlineList(codes),
      prompt: { title: words.hints.ncmTitle, text: words.hints.ncm },
    };
  }
  if (kind === 'sim' && item.sim_options.length > 0) {
    return {
      type: 'list',
      formula: inlineList(item.sim_options.map((option) => formatNcm(option.code))),
      prompt: { title: words.hints.simTitle, text: words.hints.sim },
      alert: { style: 'stop', title: words.hints.simTitle, text: words.hints.sim },
    };
  }
  return null;
};

/**
 * The sheet of verdicts to check, for a review.xlsx being streamed after its questions sheet: one
 * row per item still `to_check`; null when there is none.
 */
export const checkSheet = (
  allItems: readonly CheckItem[],
  words: WorkbookWords,
  sameProductRows: ReadonlyMap<number, readonly number[]> = new Map(),
): StreamedSheet | null => {
  const items = openChecks(allItems);
  if (items.length === 0) return null;
  // The row and SKU stay in view while the candidates scroll by.
  return fillInSheet(words.check.sheet, items, checkColumns(items, words, sameProductRows), 2);
};
