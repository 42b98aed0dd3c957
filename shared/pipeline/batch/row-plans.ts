/**
 * What each row of the input comes to at Prepare: rejected (by its own cells or by the sheet it
 * names), reused from an earlier batch's verdict, queued within the batch's budget, or not
 * submitted because the budget ran out before it.
 */
import {
  type ColumnMapping,
  type MappedRow,
  normaliseRow,
  type ProductRow,
  type RowRejection,
  type SpreadsheetRead,
} from '../../spreadsheet/index.js';
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import { fingerprintKey } from '../core/keys.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchOptions, CachedVerdict, RowRecord, RowResult, SheetRef } from '../core/records.js';
import { notSubmittedResult } from '../core/row-results.js';
import { followerResult } from '../core/same-product.js';
import { type ProductIdentity, productIdentity, reusableVerdict, reusedResult } from './reuse.js';
import { type SheetProblem, sheetChecker } from './sheet-checker.js';

/** What each row comes to at Prepare, before it is written. */
export type RowPlan =
  | { kind: 'rejected'; mapped: MappedRow; rejection: RowRejection }
  | {
      kind: 'valid';
      mapped: MappedRow;
      product: ProductRow;
      sheet: SheetRef | null;
      identity: ProductIdentity;
    };

const sheetRejection = (product: ProductRow, columns: ColumnMapping, failure: SheetProblem): RowRejection => {
  const detail = `Column "${columns.fields.sheet?.header ?? 'sheet'}": "${product.sheet}" ${failure.why}.`;
  return {
    row: product.row,
    reason: failure.reason,
    column: 'sheet',
    detail,
    issues: [{ reason: failure.reason, column: 'sheet', detail }],
  };
};

const rejectedResult = (rejection: RowRejection): RowResult => ({
  status: 'rejected',
  reason: rejection.reason,
  // Every issue of the row, so one round of fixes is enough; each names the column as written.
  detail: rejection.issues.map((issue) => issue.detail).join(' '),
  cost_usd: '0.00',
});

/** Validation of every row, then of the sheets the valid rows name. */
export const planRows = async (
  ports: Pick<PipelinePorts, 'objects'>,
  read: SpreadsheetRead,
  options: BatchOptions,
  acceptedCountries: ReadonlySet<string>,
  folder: string,
): Promise<RowPlan[]> => {
  const checkSheet = sheetChecker(ports.objects, folder, `the batch folder ${folder}`);
  const defaults = {
    ...(options.operation ? { operation: options.operation } : {}),
    ...(options.country ? { country: options.country } : {}),
  };
  const plans: RowPlan[] = [];
  for (const mapped of read.rows) {
    const outcome = normaliseRow(mapped, defaults, acceptedCountries, read.columns);
    if (outcome.status === 'rejected') {
      plans.push({ kind: 'rejected', mapped, rejection: outcome.rejection });
      continue;
    }
    const product = outcome.product;
    let sheet: SheetRef | null = null;
    if (product.sheet !== null) {
      const checked = await checkSheet(product.sheet);
      if (!('sheet' in checked)) {
        plans.push({ kind: 'rejected', mapped, rejection: sheetRejection(product, read.columns, checked) });
        continue;
      }
      sheet = checked.sheet;
    }
    plans.push({
      kind: 'valid',
      mapped,
      product,
      sheet,
      identity: productIdentity(product, sheet?.sha256 ?? null),
    });
  }
  return plans;
};

/** One cache read for the whole batch; none when the batch reclassifies everything. */
export const readCachedVerdicts = async (
  ports: Pick<PipelinePorts, 'cache'>,
  plans: readonly RowPlan[],
  options: BatchOptions,
): Promise<Map<string, CachedVerdict>> => {
  if (options.reclassify === 'all') return new Map();
  const keys = [
    ...new Set(
      plans.flatMap((plan) =>
        plan.kind === 'valid' ? [plan.identity.product_key, fingerprintKey(plan.identity.fingerprint)] : [],
      ),
    ),
  ];
  return keys.length === 0 ? new Map() : ports.cache.getMany(keys);
};

/** How many classifications batch.json's max_usd pays for, and what a row after them says. */
const budgetOf = (options: BatchOptions): { budget: number; detail: string } => {
  const budget =
    options.max_usd === undefined
      ? Number.POSITIVE_INFINITY
      : Math.floor(options.max_usd / PRICE_PER_RESOLVED_USD + 1e-9);
  const detail =
    `The batch budget (max_usd ${options.max_usd} in batch.json) covers ${budget} ` +
    `classification(s) at USD ${PRICE_PER_RESOLVED_USD.toFixed(2)}; this row came after them and was not submitted.`;
  return { budget, detail };
};

/**
 * The verdict each valid row may reuse, by fingerprint: its own product's, else one cached under
 * the fingerprint alone, else one another row of the same product in this file may reuse. Rows of
 * one product are reused together or classified together.
 */
const reusableByFingerprint = (
  plans: readonly RowPlan[],
  reuse: { options: BatchOptions; cached: ReadonlyMap<string, CachedVerdict>; now: Date },
): Map<string, CachedVerdict> => {
  const { options, cached, now } = reuse;
  const byFingerprint = new Map<string, CachedVerdict>();
  for (const plan of plans) {
    if (plan.kind !== 'valid' || byFingerprint.has(plan.identity.fingerprint)) continue;
    const { identity } = plan;
    for (const key of [identity.product_key, fingerprintKey(identity.fingerprint)]) {
      const found = reusableVerdict({ options, identity, cached: cached.get(key), now });
      if (found.verdict) {
        byFingerprint.set(identity.fingerprint, found.verdict);
        break;
      }
    }
  }
  return byFingerprint;
};

/**
 * Each plan as the row record Prepare writes, in file order: rejected; reused from the cache; a
 * follower of the first row of the same product (docs/architecture.md, property 11) unless the
 * batch says `duplicates: classify_each`; queued while the budget lasts; else `not_submitted`.
 * Only the rows queued count against the budget. `budgetProblem`: the batch's sentence when the
 * budget left rows out, else null.
 */
export const planRecords = (
  batchId: string,
  plans: readonly RowPlan[],
  reuse: { options: BatchOptions; cached: ReadonlyMap<string, CachedVerdict>; now: Date },
): { records: RowRecord[]; budgetProblem: string | null } => {
  const { options, cached, now } = reuse;
  const at = now.toISOString();
  const { budget, detail: budgetDetail } = budgetOf(options);
  const reusable = reusableByFingerprint(plans, { options, cached, now });
  const shareClassifications = options.duplicates !== 'classify_each';
  /** The first row of each product that was queued or left out: the row the others follow. */
  const leaders = new Map<string, RowRecord>();
  const records: RowRecord[] = [];
  let dispatched = 0;
  let overBudget = 0;
  for (const plan of plans) {
    const base = {
      batch_id: batchId,
      row: plan.mapped.row,
      line: plan.mapped.line,
      cells: plan.mapped.cells,
      attempt: 1,
      dispatch: 1,
      updated_at: at,
    };
    if (plan.kind === 'rejected') {
      const result = rejectedResult(plan.rejection);
      records.push({ ...base, status: 'rejected', rejection: plan.rejection, result, finished_at: at });
      continue;
    }
    const valid = {
      ...base,
      product: plan.product,
      ...(plan.sheet ? { sheet: plan.sheet } : {}),
      product_key: plan.identity.product_key,
      fingerprint: plan.identity.fingerprint,
    };
    const verdict = reusable.get(plan.identity.fingerprint);
    const leader = shareClassifications ? leaders.get(plan.identity.fingerprint) : undefined;
    if (verdict) {
      const result = reusedResult(verdict, plan.product);
      records.push({
        ...valid,
        status: 'reused',
        classification_id: verdict.classification_id,
        result,
        finished_at: at,
      });
    } else if (leader) {
      records.push(followerRecord({ ...valid, follows: leader.row }, leader, at));
    } else if (dispatched < budget) {
      dispatched += 1;
      records.push({ ...valid, status: 'queued' });
      leaders.set(plan.identity.fingerprint, records.at(-1)!);
    } else {
      overBudget += 1;
      const result = notSubmittedResult('budget_exceeded', budgetDetail);
      records.push({ ...valid, status: 'not_submitted', result, finished_at: at });
      leaders.set(plan.identity.fingerprint, records.at(-1)!);
    }
  }
  const budgetProblem =
    overBudget > 0
      ? `The budget of USD ${options.max_usd} (batch.json max_usd) covers ${budget} classification(s); ` +
        `${overBudget} row(s) after them were not submitted (budget_exceeded).`
      : null;
  return { records, budgetProblem };
};

/** A follower waits for its leader, or takes its outcome now when the leader is already final. */
const followerRecord = (
  follower: Omit<RowRecord, 'status'> & { follows: number },
  leader: RowRecord,
  at: string,
): RowRecord => {
  if (leader.status === 'queued') return { ...follower, status: 'following' };
  const result = followerResult(leader, follower);
  return { ...follower, status: result.status, result, finished_at: at };
};
