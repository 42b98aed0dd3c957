/**
 * Which verdicts wait for a person, and the check item each one gets. Pure.
 *
 *   resolved classification  ─┐  chosen candidate's confidence < check_below   low_confidence
 *   reused verdict (result)   ─┴▶ its SIM opening is pending_choice, none chosen  sim_pending_choice
 *
 * A batch without `check_below` checks nothing. A reused verdict a person already approved is
 * never asked again: its result keeps `check: approved` and the approved columns.
 */
import type { Candidate, Classification } from '../../tcs/schemas.js';
import { reusedPdfRelative } from './bucket-layout.js';
import type { CheckCandidate, CheckItem, CheckReason, SimChoice } from './check-records.js';
import type { RowRecord } from './records.js';
import type { RowResult } from './result-columns.js';
import { chosenCandidate, resultNcmDigits, verdictNotesOf } from './row-results.js';

/** How long a candidate's rationale may be on a check item: its first sentences, up to this. */
export const RATIONALE_MAX_CHARS = 400;

/**
 * Gives a rationale's first lines on one line, cut after the last sentence that ends within `max`
 * characters; a first sentence longer than that is cut at a word, with an ellipsis.
 */
export const rationaleLead = (rationale: string, max = RATIONALE_MAX_CHARS): string => {
  const text = rationale
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join(' ')
    .replace(/\s+/g, ' ');
  if (text.length <= max) return text;
  const head = text.slice(0, max + 1);
  let end = -1;
  for (const match of head.matchAll(/[.!?…](?=\s|$)/g)) if (match.index < max) end = match.index + 1;
  if (end > 0) return text.slice(0, end);
  const word = head.lastIndexOf(' ', max - 1);
  return `${text.slice(0, word > 0 ? word : max - 1).trimEnd()}…`;
};

const isPendingChoice = (c: Pick<Classification, 'chosen_sim_code'>, chosen: Candidate | null): boolean =>
  chosen?.sim.status === 'pending_choice' && c.chosen_sim_code === null;

/**
 * Gives why a resolved classification waits for a person under `check_below`: a confidence under
 * it, a SIM opening to choose. Empty when it does not wait, and always without a threshold.
 */
export const checkReasonsOfClassification = (
  c: Pick<Classification, 'candidates' | 'chosen_ncm' | 'chosen_sim_code'>,
  checkBelow: number | undefined,
): CheckReason[] => {
  if (checkBelow === undefined) return [];
  const chosen = chosenCandidate(c);
  return [
    ...(chosen !== null && chosen.confidence < checkBelow ? (['low_confidence'] as const) : []),
    ...(isPendingChoice(c, chosen) ? (['sim_pending_choice'] as const) : []),
  ];
};

/** Gives the SIM openings a result's notes offer to choose from, each as 10 digits; empty when none. */
export const simOptionsOfResult = (result: Pick<RowResult, 'detail_messages'>): string[] => {
  const options = verdictNotesOf(result)?.sim_options;
  if (!Array.isArray(options)) return [];
  return options.map((code) => String(code).replace(/\D/g, '')).filter((code) => code.length === 10);
};

/** A result's confidence column as a whole percentage, or null when it has none. */
const confidenceOfResult = (result: Pick<RowResult, 'confidence'>): number | null => {
  const text = (result.confidence ?? '').trim();
  const value = text === '' ? Number.NaN : Number(text);
  return Number.isFinite(value) ? value : null;
};

/**
 * Gives why a verdict kept as a result (a reused one) waits for a person under `check_below`;
 * empty for a verdict already approved, and without a threshold.
 */
export const checkReasonsOfResult = (
  result: Pick<RowResult, 'check' | 'confidence' | 'detail_messages'>,
  checkBelow: number | undefined,
): CheckReason[] => {
  if (checkBelow === undefined || result.check === 'approved') return [];
  const confidence = confidenceOfResult(result);
  return [
    ...(confidence !== null && confidence < checkBelow ? (['low_confidence'] as const) : []),
    ...(simOptionsOfResult(result).length > 0 ? (['sim_pending_choice'] as const) : []),
  ];
};

/**
 * Gives the result with this batch's mark: `to_check` when `reasons` say it waits, `approved` kept,
 * else no mark (a cached verdict marked by an earlier batch is not waiting in this one unless this
 * one says so).
 */
export const withCheckMark = (result: RowResult, reasons: readonly CheckReason[]): RowResult => {
  if (result.check === 'approved') return result;
  const { check: _earlier, ...unmarked } = result;
  return reasons.length > 0 ? { ...unmarked, check: 'to_check' } : unmarked;
};

/**
 * Whether a row is a reused verdict a person must check: marked by its batch's threshold, not
 * approved before.
 */
export const isReusedToCheck = (record: Pick<RowRecord, 'status' | 'result'>): boolean =>
  record.status === 'reused' && record.result?.check === 'to_check';

/** What a check item says of the row besides its verdict. */
export type CheckedRow = Pick<RowRecord, 'batch_id' | 'row' | 'product' | 'product_key' | 'fingerprint'>;

/** What a check item takes from its batch: why it waits, the threshold, the row's followers, and the time. */
export type CheckContext = {
  reasons: readonly CheckReason[];
  checkBelow: number | undefined;
  /** Rows of the same product in this batch that follow this row. */
  followers: number;
  now: Date;
};

const rowFields = (row: CheckedRow) => ({
  batch_id: row.batch_id,
  row: row.row,
  product_key: row.product_key ?? null,
  fingerprint: row.fingerprint ?? null,
  sku: row.product?.sku ?? null,
  description: row.product?.description ?? null,
  operation: row.product?.operation ?? null,
  country: row.product?.country ?? null,
});

/**
 * Gives the check item of a resolved classification: its three best candidates with the start of
 * their rationale, and its SIM openings when one must be chosen.
 */
export const checkItemOfClassification = (
  c: Classification,
  row: CheckedRow,
  verdictPdf: string | null,
  ctx: CheckContext,
): CheckItem => {
  const chosen = chosenCandidate(c);
  const candidates: CheckCandidate[] = [...c.candidates]
    .sort((a, b) => a.rank - b.rank)
    .slice(0, 3)
    .map((candidate) => ({
      rank: candidate.rank,
      ncm: candidate.ncm,
      description: candidate.description,
      confidence: candidate.confidence,
      rationale: rationaleLead(candidate.rationale),
      chosen: candidate === chosen,
    }));
  const simOptions: SimChoice[] = isPendingChoice(c, chosen)
    ? (chosen?.sim.options ?? []).map((option) => ({ code: option.code, description: option.description }))
    : [];
  return {
    ...rowFields(row),
    classification_id: c.id,
    title: c.title ?? chosen?.product_name ?? null,
    reasons: [...ctx.reasons],
    check_below: ctx.checkBelow ?? null,
    ncm: c.chosen_ncm,
    confidence: chosen?.confidence ?? null,
    candidates,
    sim_options: simOptions,
    verdict_pdf: verdictPdf,
    followers: ctx.followers,
    state: 'to_check',
    created_at: ctx.now.toISOString(),
  };
};

/**
 * Reads an `alternatives` cell (`8482.10.90 (35%); 8482.80.00 (12%)`) back into each NCM's digits
 * and confidence, in the order written; a part that is no 8-digit NCM is left out.
 */
export const alternativesOfResult = (
  alternatives: string | undefined,
): { ncm: string; confidence: number | null }[] =>
  (alternatives ?? '')
    .split(';')
    .map((part) => /^\s*([0-9.\s]+?)\s*(?:\((\d{1,3})\s*%\))?\s*$/.exec(part))
    .flatMap((match) => {
      const ncm = match?.[1]?.replace(/\D/g, '') ?? '';
      if (ncm.length !== 8) return [];
      return [{ ncm, confidence: match?.[2] === undefined ? null : Number(match[2]) }];
    });

/**
 * Gives the check item of a verdict kept as a result (a reused row): the candidates from its columns
 * (`ncm`, `ncm_description`, `confidence`, `alternatives`), the others described by `describe`
 * (the NCM table in force; "" when it does not know the code), no rationale (the PDF has it), the
 * SIM openings by code alone. The verdict PDF as this batch's results will name it.
 */
export const checkItemOfResult = (
  result: RowResult,
  row: CheckedRow,
  describe: (ncmDigits: string) => string,
  ctx: CheckContext,
): CheckItem => {
  const ncm = resultNcmDigits(result);
  const read = confidenceOfResult(result);
  const confidence = read === null ? null : Math.max(0, Math.min(100, Math.round(read)));
  const chosen: CheckCandidate[] =
    ncm === null
      ? []
      : [
          {
            rank: 1,
            ncm,
            description: result.ncm_description || describe(ncm),
            confidence,
            rationale: '',
            chosen: true,
          },
        ];
  const others = alternativesOfResult(result.alternatives)
    .filter((alternative) => alternative.ncm !== ncm)
    .map((alternative, i) => ({
      rank: chosen.length + i + 1,
      ncm: alternative.ncm,
      description: describe(alternative.ncm),
      confidence: alternative.confidence === null ? null : Math.min(100, alternative.confidence),
      rationale: '',
      chosen: false,
    }));
  const pdf = result.verdict_pdf ?? '';
  return {
    ...rowFields(row),
    classification_id: result.classification_id ?? '',
    title: result.title || null,
    reasons: [...ctx.reasons],
    check_below: ctx.checkBelow ?? null,
    ncm,
    confidence,
    candidates: [...chosen, ...others].slice(0, 3),
    sim_options: simOptionsOfResult(result).map((code) => ({ code, description: '' })),
    verdict_pdf: pdf === '' ? null : pdf.startsWith('pdfs/') ? pdf : reusedPdfRelative(pdf),
    followers: ctx.followers,
    state: 'to_check',
    created_at: ctx.now.toISOString(),
  };
};
