/**
 * A row's outcome as the output columns of `results.csv` (`RESULT_COLUMNS`).
 * Pure: a Classification (or a pipeline reason) in, text cells out. Every value is the text
 * written to the CSV; a column left out is written empty.
 *
 * `row` is never set here: the CSV writer takes it from the RowRecord, and a cached verdict
 * copied into a later batch must not carry the row number of the batch that resolved it.
 */

import { formatNcm } from '../../spreadsheet/write-csv.js';
import { problemNameOf } from '../../tcs/errors.js';
import type { Candidate, Classification, Question, TariffLookup } from '../../tcs/schemas.js';
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import { detailMessage, detailMessagesOf, detailOf } from '../../wording/details.js';
import type { Message } from '../../wording/message.js';
import { declaredNcmDigits } from './ncm-in-force.js';
import { type Origin, type OriginLookup, type OriginLookups, originKey, sameOrigin } from './origins.js';
import type { BatchStop } from './records.js';
import { DUTY_COLUMNS, type ResultColumn, type RowResult } from './result-columns.js';

/** Every column but `status`, which each builder sets itself. */
type Columns = Partial<Record<Exclude<ResultColumn, 'status'>, string>>;

/** USD with two decimals, as `summary.json` and `results.csv` show money. */
const usd = (amount: number): string => amount.toFixed(2);
const RESOLVED_COST = usd(PRICE_PER_RESOLVED_USD);
const NO_COST = usd(0);

const DECIMAL = new Intl.NumberFormat('en-US', { useGrouping: false, maximumFractionDigits: 10 });

/**
 * Writes a number as plain decimal text: no exponent (`1e-7`), no float noise
 * (`0.30000000000000004`), no thousands separator, `.` as decimal point; "" for none or not finite.
 */
export const decimalText = (value: number | null | undefined): string => {
  if (value === null || value === undefined || !Number.isFinite(value)) return '';
  return DECIMAL.format(Object.is(value, -0) ? 0 : value);
};

/** Drops empty cells so a result holds only what it says. */
const compact = (columns: Columns): Columns =>
  Object.fromEntries(Object.entries(columns).filter(([, value]) => value !== undefined && value !== ''));

/**
 * Gives the candidate the verdict chose: the one with `chosen_ncm`, else the best ranked (rank 1);
 * null without candidates. The spec orders candidates but does not promise rank 1 is the chosen one.
 */
export const chosenCandidate = (c: Pick<Classification, 'candidates' | 'chosen_ncm'>): Candidate | null =>
  c.candidates.find((candidate) => candidate.ncm === c.chosen_ncm) ??
  [...c.candidates].sort((a, b) => a.rank - b.rank)[0] ??
  null;

const candidateLabel = (candidate: Candidate): string =>
  `${formatNcm(candidate.ncm)} (${candidate.confidence}%)`;

/** The other candidates, best first: `8482.10.90 (35%); 8482.80.00 (12%)`. */
const alternativesOf = (c: Classification, chosen: Candidate | null): string =>
  [...c.candidates]
    .filter((candidate) => candidate !== chosen)
    .sort((a, b) => a.rank - b.rank)
    .map(candidateLabel)
    .join('; ');

/**
 * Gives the duty columns of a tariff look-up (a verdict's own, or `GET /tariffs` for another
 * origin): the import or export duties and their source; only the source when nothing was found.
 */
const tariffColumnsOf = (tariffs: TariffLookup | null): Columns => {
  if (tariffs === null) return {};
  if (!tariffs.found) return { tariff_source: tariffs.source };
  if (tariffs.operation === 'import') {
    return {
      import_duty_applicable: decimalText(tariffs.import_duty_applicable),
      duty_kind: tariffs.duty_kind,
      statistical_rate: decimalText(tariffs.statistical_rate),
      // Null when the common external tariff does not differ from the import duty: left empty.
      aec: decimalText(tariffs.aec),
      tariff_source: tariffs.source,
    };
  }
  return {
    export_duty: decimalText(tariffs.export_duty),
    export_refund: decimalText(tariffs.export_refund),
    tariff_source: tariffs.source,
  };
};

/**
 * Remarks a person should see next to a verdict: what is still open about it, as one message; none
 * when nothing is.
 */
const verdictNotes = (c: Classification, chosen: Candidate | null): Message[] => {
  const sim = chosen?.sim;
  const pending = sim && c.chosen_sim_code === null ? sim : null;
  const notes = {
    ...(pending?.status === 'pending_choice'
      ? { sim_options: pending.options.map((option) => formatNcm(option.code)) }
      : {}),
    ...(pending?.status === 'verifying' ? { sim_verifying: true } : {}),
    ...(c.tariffs && !c.tariffs.found ? { tariffs_reason: c.tariffs.reason } : {}),
    ...(c.file_has_text_layer === false ? { no_text_layer: true } : {}),
  };
  return Object.keys(notes).length > 0 ? [detailMessage('verdict_notes', notes)] : [];
};

/**
 * What a stored result's `verdict_notes` says (`verdictNotes`: `sim_options`, `sim_verifying`, …),
 * or null when it says nothing: the one way the checks, the SIM watches and the audit read it.
 */
export const verdictNotesOf = (result: Pick<RowResult, 'detail_messages'>): Record<string, unknown> | null =>
  (result.detail_messages ?? []).find((said) => said.code === 'verdict_notes')?.params ?? null;

/** A detail's messages and their English, or nothing when there are none. */
const said = (messages: readonly Message[]): Pick<RowResult, 'detail' | 'detail_messages'> =>
  messages.length > 0 ? detailOf(messages) : {};

/**
 * Says whether the ERP's NCM agrees with the verdict's, digits only: `yes`, `no`, or "" when the row
 * declared no NCM or there is no verdict. A 7-digit value is an NCM whose leading zero a
 * spreadsheet dropped (`9012100`), so it is compared with the zero back.
 */
export const currentNcmMatches = (currentNcm: string | null, chosenNcm: string | null): string => {
  const declared = declaredNcmDigits((currentNcm ?? '').replace(/\D/g, ''));
  if (declared === null || chosenNcm === null) return '';
  return declared === chosenNcm ? 'yes' : 'no';
};

/** A result's NCM as 8 digits (results hold it dotted, `0901.21.00`), or null. */
export const resultNcmDigits = (result: Pick<RowResult, 'ncm'>): string | null => {
  const digits = (result.ncm ?? '').replace(/\D/g, '');
  return digits.length === 8 ? digits : null;
};

/** The web app's link, when the caller has one (the 202 body carries it; the resource does not). */
const appUrlOf = (c: Classification, appUrl: string | null | undefined): string =>
  appUrl ?? ((c as { app_url?: unknown }).app_url as string | undefined) ?? '';

/**
 * The result of a resolved classification: the chosen NCM, SIM opening, confidence, alternatives,
 * duties, verdict PDF and what is still open about it, billed at the price of one verdict.
 */
export const resolvedResult = (
  c: Classification,
  ctx: { currentNcm: string | null; verdictPdf: string | null; appUrl?: string | null },
): RowResult => {
  const chosen = chosenCandidate(c);
  return {
    status: 'resolved',
    ...said(verdictNotes(c, chosen)),
    ...compact({
      classification_id: c.id,
      app_url: appUrlOf(c, ctx.appUrl),
      title: c.title ?? chosen?.product_name ?? '',
      ncm: c.chosen_ncm === null ? '' : formatNcm(c.chosen_ncm),
      ncm_description: chosen?.description,
      sim_code: c.chosen_sim_code === null ? '' : formatNcm(c.chosen_sim_code),
      confidence: chosen ? String(chosen.confidence) : '',
      confidence_band: chosen?.confidence_band,
      alternatives: alternativesOf(c, chosen),
      ...tariffColumnsOf(c.tariffs),
      verdict_pdf: ctx.verdictPdf ?? '',
      current_ncm_matches: currentNcmMatches(ctx.currentNcm, c.chosen_ncm),
    }),
    cost_usd: RESOLVED_COST,
  };
};

/** The questions as one readable cell: `O café é descafeinado? (Sim / Não) | Qual a embalagem?` */
export const questionsText = (questions: readonly Question[]): string =>
  questions.map((q) => (q.options.length > 0 ? `${q.text} (${q.options.join(' / ')})` : q.text)).join(' | ');

/**
 * The result of a classification waiting for answers: its questions, at no cost. A provisional
 * proposal is named in `detail`, never in `ncm`: a spreadsheet user must not take it for a verdict.
 */
export const pendingResult = (c: Classification, ctx: { appUrl?: string | null } = {}): RowResult => {
  const provisional = c.candidates_are_provisional ? chosenCandidate(c) : null;
  return {
    status: 'pending_data',
    ...said([
      detailMessage('awaiting_answers', {
        questions: c.questions.length,
        provisional: provisional ? candidateLabel(provisional) : undefined,
      }),
    ]),
    ...compact({
      classification_id: c.id,
      app_url: appUrlOf(c, ctx.appUrl),
      title: c.title ?? '',
      questions: questionsText(c.questions),
    }),
    cost_usd: NO_COST,
  };
};

/** The result of a classification the service failed: its reason, at no cost. */
export const failedResult = (c: Classification): RowResult => ({
  status: 'failed',
  ...compact({
    reason: c.failure_reason ?? 'unknown',
    classification_id: c.id,
    title: c.title ?? '',
  }),
  ...said([detailMessage('failed', { reason: c.failure_reason ?? undefined })]),
  cost_usd: NO_COST,
});

/** The result of a classification abandoned because its questions went unanswered, at no cost. */
export const abandonedResult = (c: Classification): RowResult => ({
  status: 'abandoned',
  ...compact({
    classification_id: c.id,
    title: c.title ?? '',
  }),
  ...said([detailMessage('abandoned', {})]),
  cost_usd: NO_COST,
});

/** What a settled classification's result needs besides the classification itself. */
export type SettledContext = { currentNcm: string | null; verdictPdf: string | null; appUrl?: string | null };

/**
 * The result of a classification the service has settled (resolved, failed or abandoned), one
 * mapping for every path that reads one: Store, and the answers round's look at rows still
 * pending. Null while the classification is not settled.
 */
export const resultOfClassification = (c: Classification, ctx: SettledContext): RowResult | null => {
  switch (c.status) {
    case 'resolved':
      return resolvedResult(c, ctx);
    case 'failed':
      return failedResult(c);
    case 'abandoned':
      return { ...abandonedResult(c), ...(ctx.appUrl ? { app_url: ctx.appUrl } : {}) };
    default:
      return null;
  }
};

/**
 * The result of a row the pipeline could not finish: why, as a message, or as the error's text
 * (already scrubbed, safe to publish), kept as it is in every language; `extra` adds columns known
 * so far (the classification's id), never another status or detail.
 */
export const errorResult = (why: string | Message, extra: Partial<RowResult> = {}): RowResult => {
  const { status: _ignored, detail_messages: _messages, detail: _detail, ...columns } = extra;
  return {
    ...compact(columns),
    status: 'error',
    ...detailOf([typeof why === 'string' ? detailMessage('row_error', { text: why }) : why]),
    cost_usd: extra.cost_usd ?? NO_COST,
  };
};

/**
 * The result of a row never sent to the service (the budget, a batch-level stop): the reason code
 * and why, at no cost.
 */
export const notSubmittedResult = (reason: string, why: Message): RowResult => ({
  status: 'not_submitted',
  ...compact({ reason }),
  ...said([why]),
  cost_usd: NO_COST,
});

/**
 * A row of an answers round whose answers were not sent (a stop, a refusal, a missing sheet):
 * it waits for answers again, its pending result kept and the reason said.
 */
export const answersNotSentResult = (
  pending: RowResult | undefined,
  failure: RowResult,
  classificationId: string | undefined,
): RowResult => {
  const kept: RowResult =
    pending?.status === 'pending_data'
      ? pending
      : {
          status: 'pending_data',
          ...compact({ classification_id: classificationId ?? '' }),
          cost_usd: NO_COST,
        };
  const why = [failure.reason, failure.detail].filter(Boolean).join(': ');
  return { ...kept, ...detailOf([detailMessage('answers_not_sent', { why: why || undefined })]) };
};

/** A row not submitted because its batch stopped: the stop's Problem name and detail. */
export const stoppedResult = (stop: BatchStop): RowResult =>
  notSubmittedResult(
    problemNameOf(stop.type),
    detailMessage('not_submitted', { reason: problemNameOf(stop.type), text: stop.detail }),
  );

/** The notes of a verdict's own origin that a row of another origin does not share. */
const OWN_ORIGIN_NOTES = ['tariffs_reason'] as const;
/** The notes of a verdict's own operation that a row of the other operation does not share. */
const OWN_OPERATION_NOTES = ['sim_options', 'sim_verifying', 'sim_none'] as const;

/** What a row of another origin notes of its own look-up: tariffs not found, its SIM openings. */
const lookupNotes = (lookup: OriginLookup | undefined, otherOperation: boolean): Record<string, unknown> => {
  const openings = otherOperation ? lookup?.sim_openings : undefined;
  return {
    ...(lookup && !lookup.tariffs.found ? { tariffs_reason: lookup.tariffs.reason } : {}),
    ...(openings?.status === 'available'
      ? { sim_options: openings.openings.map((opening) => formatNcm(opening.code)) }
      : {}),
    ...(openings?.status === 'verifying' ? { sim_verifying: true } : {}),
    ...(openings?.status === 'none' ? { sim_none: true } : {}),
  };
};

/**
 * Gives the result a row of origin `rowOrigin` shows from a verdict made for `verdict.origin`: the
 * same verdict (NCM, candidates, rationale, PDF, check), with the row's own duties (from `lookups`,
 * else the verdict's own `origin_lookups`), its own SIM openings when its operation differs,
 * `verdict_from` naming the classification and its origin, and a detail saying so. A row of the
 * verdict's own origin, or a result with no NCM, shows it unchanged. Never carries the look-ups of
 * other origins: only the verdict keeps them.
 */
export const resultForOrigin = (
  result: RowResult,
  verdict: { origin: Origin | null | undefined; lookups?: OriginLookups | undefined },
  rowOrigin: Origin | null,
): RowResult => {
  const { origin: made } = verdict;
  const other = made && rowOrigin && !sameOrigin(made, rowOrigin) && result.ncm ? made : null;
  // The common case, a row of the verdict's own origin: the result itself, copied only to drop the look-ups.
  if (!other && result.origin_lookups === undefined) return result;
  const { origin_lookups: kept, ...shown } = result;
  if (!other || !rowOrigin) return shown;
  const lookup = verdict.lookups?.[originKey(rowOrigin)] ?? kept?.[originKey(rowOrigin)];
  const otherOperation = other.operation !== rowOrigin.operation;
  const columns: RowResult = { ...shown };
  for (const column of DUTY_COLUMNS) delete columns[column];
  if (otherOperation) {
    delete columns.sim_code;
    delete columns.approved_sim;
  }
  const dropped = new Set<string>([...OWN_ORIGIN_NOTES, ...(otherOperation ? OWN_OPERATION_NOTES : [])]);
  const messages = detailMessagesOf(shown);
  const earlierNotes = messages.find((said) => said.code === 'verdict_notes')?.params ?? {};
  const notes = {
    ...Object.fromEntries(Object.entries(earlierNotes).filter(([name]) => !dropped.has(name))),
    ...lookupNotes(lookup, otherOperation),
  };
  const origin = detailMessage('other_origin', {
    classification_id: shown.classification_id ?? '',
    country: other.country,
    operation: other.operation,
    own_country: rowOrigin.country,
    own_operation: rowOrigin.operation,
    looked_up: lookup !== undefined,
  });
  const rest = messages.filter((said) => said.code !== 'verdict_notes');
  return {
    ...columns,
    ...compact({
      verdict_from: shown.classification_id
        ? `${shown.classification_id} (${other.country}, ${other.operation})`
        : '',
      ...tariffColumnsOf(lookup?.tariffs ?? null),
    }),
    ...detailOf([
      origin,
      ...(Object.keys(notes).length > 0 ? [detailMessage('verdict_notes', notes)] : []),
      ...rest,
    ]),
  };
};
