/**
 * Which language a batch's workbooks speak: `language` in batch.json, else the language of the
 * input's own headers (spreadsheet/header-language.ts); and the way back, from a returned
 * review.xlsx's headers in any language to the review.csv columns they stand for.
 */
import { headerKey } from '../../spreadsheet/columns.js';
import { headerLanguage, LANGUAGES, type Language } from '../../spreadsheet/header-language.js';
import { LIMITS } from '../../tcs/schemas.js';
import type { BatchRecord } from '../core/records.js';
import { WORKBOOK_WORDS, type WorkbookWords } from './workbook-labels.js';

/** The batch's language: `language` in batch.json, else the one its input's headers are written in. */
export const workbookLanguage = (batch: Pick<BatchRecord, 'header' | 'options'>): Language =>
  batch.options?.language ?? headerLanguage(batch.header);

/** The words of a batch's workbooks, in the batch's language (`workbookLanguage`). */
export const wordsForBatch = (batch: Pick<BatchRecord, 'header' | 'options'>): WorkbookWords =>
  WORKBOOK_WORDS[workbookLanguage(batch)];

/** The hidden sheet of suggested answers review.xlsx carries, by its name in each language. */
export const OPTIONS_SHEET_NAMES: ReadonlySet<string> = new Set(
  LANGUAGES.map((language) => WORKBOOK_WORDS[language].sheets.options),
);

/**
 * The review.xlsx headers of every language, as header keys, → the review.csv column each one is
 * (`Resposta 2` → `answer2`): the answers round finds its columns in a workbook as in a CSV.
 */
export const REVIEW_HEADER_KEYS: ReadonlyMap<string, string> = new Map(
  LANGUAGES.flatMap((language) => {
    const r = WORKBOOK_WORDS[language].review;
    return [
      [headerKey(r.row), 'row'],
      [headerKey(r.classification_id), 'classificationid'],
      [headerKey(r.sheet), 'sheet'],
      ...Array.from({ length: LIMITS.questionsMax }, (_, i) => [
        [headerKey(r.questionId(i + 1)), `question${i + 1}id`],
        [headerKey(r.answer(i + 1)), `answer${i + 1}`],
      ]).flat(),
    ] as [string, string][];
  }),
);

/** review.xlsx's sheet of verdicts to check (check-sheet.ts), by its name in each language. */
export const CHECK_SHEET_NAMES: ReadonlySet<string> = new Set(
  LANGUAGES.map((language) => WORKBOOK_WORDS[language].check.sheet),
);

/**
 * The headers of review.xlsx's sheet of verdicts to check in every language, and to-check.csv's
 * own column names, as header keys → to-check.csv's column each one is (`NCM decidida` →
 * `decision_ncm`): decisions are read back from either file alike (answers/decisions-file.ts).
 */
export const CHECK_HEADER_KEYS: ReadonlyMap<string, string> = new Map(
  LANGUAGES.flatMap((language) => {
    const c = WORKBOOK_WORDS[language].check;
    return (['row', 'classification_id', 'decision_ncm', 'decision_sim', 'decision_note'] as const).flatMap(
      (name): [string, string][] => [
        [headerKey(c[name]), name],
        [headerKey(name), name],
      ],
    );
  }),
);
