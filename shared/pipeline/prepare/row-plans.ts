/**
 * What each row of the input comes to at Prepare: rejected (by its own cells or by the sheet it
 * names), not sent because it is a service, reused from an earlier batch's verdict, queued within
 * the batch's budget, or not submitted because the budget ran out before it.
 */

import { normaliseRow } from '../../spreadsheet/normalise-row.js';
import type { ColumnMapping, MappedRow, ProductRow, RowRejection } from '../../spreadsheet/schemas.js';
import { type ServiceMark, serviceMarkOf } from '../../spreadsheet/service-items.js';
import { PRICE_PER_RESOLVED_USD } from '../../tcs/schemas.js';
import { message } from '../../wording/index.js';
import { type Message, textMessage } from '../../wording/message.js';
import type { BatchOptions } from '../core/batch-options-schema.js';
import { forEachLimited } from '../core/calls-in-parallel.js';
import { type OriginLookups, originKey } from '../core/origins.js';
import type { PipelinePorts } from '../core/ports.js';
import type { CachedVerdict, PendingClassification, RowRecord, SheetRef } from '../core/records.js';
import type { RowResult } from '../core/result-columns.js';
import { bornRow, isFinalResult, resultNow, reuseKeysOf } from '../core/row-life.js';
import { notSubmittedResult, resultNcmDigits } from '../core/row-results.js';
import {
  joinedResult,
  NO_EARLIER_VERDICT,
  openClassificationOf,
  type ProductIdentity,
  productIdentity,
  reusableVerdict,
  reusedResult,
  sharedVerdictKey,
} from '../reuse/reuse.js';
import { type SheetProblem, sheetChecker } from './sheet-checker.js';

/** The reason of a row not sent because it is a service, not goods: only goods have an NCM. */
export const SERVICE_ITEM = 'service_item';

/**
 * What one input row comes to at Prepare, before it is written: rejected (by its own cells or by
 * the sheet it names), a service (the field of the file that says so), or valid with its product,
 * its checked sheet and its product identity.
 */
export type RowPlan =
  | { kind: 'rejected'; mapped: MappedRow; rejection: RowRejection }
  | { kind: 'service'; mapped: MappedRow; mark: ServiceMark }
  | {
      kind: 'valid';
      mapped: MappedRow;
      product: ProductRow;
      sheet: SheetRef | null;
      identity: ProductIdentity;
    };

const sheetRejection = (
  product: ProductRow,
  columns: ColumnMapping,
  failure: SheetProblem,
  folder: string,
): RowRejection => {
  const header = columns.fields.sheet?.header ?? 'sheet';
  const detail = `Column "${header}": "${product.sheet}" ${failure.why}.`;
  // `text`: the English sentence, shown as written where the table has no wording for the reason.
  const params = { header, value: product.sheet ?? '', folder, text: detail, ...failure.params };
  return {
    row: product.row,
    reason: failure.reason,
    column: 'sheet',
    detail,
    params,
    issues: [{ reason: failure.reason, column: 'sheet', detail, params }],
  };
};

const rejectedResult = (rejection: RowRejection): RowResult => ({
  status: 'rejected',
  reason: rejection.reason,
  // Every issue of the row, so one round of fixes is enough; each names the column as written.
  detail: rejection.issues.map((issue) => issue.detail).join(' '),
  detail_messages: rejection.issues.map((issue) =>
    issue.params ? { code: issue.reason, params: issue.params } : textMessage(issue.detail),
  ),
  cost_usd: '0.00',
});

/**
 * Gives a planner of rows, called chunk by chunk: each row validated, then the sheet it names
 * checked in the bucket (each sheet once for the whole batch, however many chunks and passes name
 * it). It gives one plan per row, in order.
 */
export const rowPlanner = (
  ports: Pick<PipelinePorts, 'objects'>,
  batch: {
    options: BatchOptions;
    acceptedCountries: ReadonlySet<string>;
    folder: string;
    columns: ColumnMapping;
  },
) => {
  const { options, acceptedCountries, folder, columns } = batch;
  const checkSheet = sheetChecker(ports.objects, folder, `the batch folder ${folder}`);
  const defaults = {
    ...(options.operation ? { operation: options.operation } : {}),
    ...(options.country ? { country: options.country } : {}),
  };
  return async (rows: readonly MappedRow[]): Promise<RowPlan[]> => {
    const plans: RowPlan[] = [];
    for (const mapped of rows) {
      // A service is not goods: never sent, whatever else its cells hold.
      const mark = serviceMarkOf(mapped, columns);
      if (mark) {
        plans.push({ kind: 'service', mapped, mark });
        continue;
      }
      const outcome = normaliseRow(mapped, defaults, acceptedCountries, columns);
      if (outcome.status === 'rejected') {
        plans.push({ kind: 'rejected', mapped, rejection: outcome.rejection });
        continue;
      }
      const product = outcome.product;
      let sheet: SheetRef | null = null;
      if (product.sheet !== null) {
        const checked = await checkSheet(product.sheet);
        if (!('sheet' in checked)) {
          plans.push({
            kind: 'rejected',
            mapped,
            rejection: sheetRejection(product, columns, checked, folder),
          });
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
};

/**
 * Gives a finder, fed the plans of a file read in chunks, of which products reuse a verdict and
 * the cache key it is under: found on a first read of the whole file, because any row of a product
 * with a reusable verdict makes every row of it reused, the rows before it included. Holds one
 * entry per reused product.
 *
 * Under `reclassify: ended_codes` it also finds the products whose verdict's code the table in
 * force (`inForce`) no longer holds: the only ones that batch classifies again.
 */
export const reusableProductFinder = (
  ports: Pick<PipelinePorts, 'cache'>,
  reuse: { options: BatchOptions; now: Date; inForce?: (ncm: string) => boolean },
) => {
  const keyByFingerprint = new Map<string, string>();
  const recheckFingerprints = new Set<string>();
  // Under `verdict_per_country` no verdict of another origin serves: its key is not looked up.
  const keyedIdentity = (
    identity: ProductIdentity,
  ): ProductIdentity | Omit<ProductIdentity, 'product_fingerprint'> =>
    reuse.options.verdict_per_country
      ? { product_key: identity.product_key, fingerprint: identity.fingerprint }
      : identity;
  return {
    keyByFingerprint: keyByFingerprint as ReadonlyMap<string, string>,
    /** Under `ended_codes`: the products whose verdict's code is no longer in force. */
    recheckFingerprints: recheckFingerprints as ReadonlySet<string>,
    add: async (plans: readonly RowPlan[]): Promise<void> => {
      if (reuse.options.reclassify === 'all') return;
      const open = plans.flatMap((plan) =>
        plan.kind === 'valid' && !keyByFingerprint.has(plan.identity.fingerprint) ? [plan] : [],
      );
      const keys = [...new Set(open.flatMap((plan) => reuseKeysOf(keyedIdentity(plan.identity))))];
      if (keys.length === 0) return;
      const cached = await ports.cache.getMany(keys);
      for (const { identity } of open) {
        if (keyByFingerprint.has(identity.fingerprint)) continue;
        const answers = reuseKeysOf(keyedIdentity(identity)).map((candidate) => ({
          candidate,
          answer: reusableVerdict({ ...reuse, identity, cached: cached.get(candidate) }),
        }));
        // A verdict made for the row's own origin first, then one of the same goods made for another.
        const key = (
          answers.find(({ answer }) => answer.verdict?.fingerprint === identity.fingerprint) ??
          answers.find(({ answer }) => answer.verdict)
        )?.candidate;
        if (key) {
          keyByFingerprint.set(identity.fingerprint, key);
          recheckFingerprints.delete(identity.fingerprint);
        } else if (answers.some(({ answer }) => !answer.verdict && answer.why === 'not_in_force'))
          recheckFingerprints.add(identity.fingerprint);
      }
    },
  };
};

/**
 * Gives a finder, fed the plans of a file read in chunks, of which products wait for answers to a
 * classification of an earlier batch, so their rows join it instead of asking the same questions
 * again: one lookup of the product cache's pending entries per chunk, for the products that reuse
 * no verdict. Holds one small entry per such product; `reclassify: all` joins too (asking again
 * would ask the same questions again).
 */
export const openClassificationFinder = (
  ports: Pick<PipelinePorts, 'cache'>,
  batch: { batchId: string; now: Date },
) => {
  const openByFingerprint = new Map<string, PendingClassification>();
  const looked = new Set<string>();
  return {
    openByFingerprint: openByFingerprint as ReadonlyMap<string, PendingClassification>,
    add: async (plans: readonly RowPlan[], reused: ReadonlyMap<string, string>): Promise<void> => {
      const fresh = new Map<string, ProductIdentity>();
      for (const plan of plans) {
        if (plan.kind !== 'valid') continue;
        const { fingerprint } = plan.identity;
        if (reused.has(fingerprint) || looked.has(fingerprint)) continue;
        looked.add(fingerprint);
        fresh.set(fingerprint, plan.identity);
      }
      if (fresh.size === 0) return;
      const keys = [...new Set([...fresh.values()].map((identity) => identity.product_key))];
      const pending = await ports.cache.getPending(keys);
      for (const [fingerprint, identity] of fresh) {
        const open = openClassificationOf({ ...batch, identity, pending: pending.get(identity.product_key) });
        if (open) openByFingerprint.set(fingerprint, open);
      }
    },
  };
};

/** Each open classification joined for a chunk's rows, written in parallel: `join` at most 8 at a time. */
const JOINS_IN_FLIGHT = 8;

/**
 * Gives the joiner of the second read, called chunk by chunk, which gives the open classifications
 * the chunk's rows may join: the rows of a chunk that join one are added to its review item
 * (`ReviewStore.join`), a product at a time, the products of a chunk in parallel, before
 * the chunk's records are planned. A join the item refuses (answered, closed, abandoned since the
 * first read) drops the product: its rows are classified as if nothing were open. With shared
 * classifications only each product's first row joins (the rest follow it); with `classify_each`
 * every row does. `write: false` (a plan-only batch) writes nothing and takes every open one.
 */
export const classificationJoiner = (
  ports: Partial<Pick<PipelinePorts, 'reviews'>>,
  batch: { batchId: string; options: BatchOptions; now: Date; write: boolean },
  open: ReadonlyMap<string, PendingClassification>,
) => {
  const joinable = new Map(open);
  const joined = new Set<string>();
  const everyRow = batch.options.duplicates === 'classify_each';
  return async (
    plans: readonly RowPlan[],
    reused: ReadonlyMap<string, CachedVerdict>,
  ): Promise<ReadonlyMap<string, PendingClassification>> => {
    const rowsByFingerprint = new Map<string, number[]>();
    for (const plan of plans) {
      if (plan.kind !== 'valid') continue;
      const { fingerprint } = plan.identity;
      if (reused.has(fingerprint) || !joinable.has(fingerprint)) continue;
      if (!everyRow && (joined.has(fingerprint) || rowsByFingerprint.has(fingerprint))) continue;
      rowsByFingerprint.set(fingerprint, [...(rowsByFingerprint.get(fingerprint) ?? []), plan.mapped.row]);
    }
    const { reviews } = ports;
    if (batch.write && reviews) {
      const at = batch.now.toISOString();
      await forEachLimited([...rowsByFingerprint], JOINS_IN_FLIGHT, async ([fingerprint, rows]) => {
        const pending = joinable.get(fingerprint)!;
        const rowsJoining = rows.map((row) => ({ batch_id: batch.batchId, row }));
        if (!(await reviews.join(pending.classification_id, rowsJoining, at))) joinable.delete(fingerprint);
      });
    } else if (!reviews) {
      // No review table to join through: every product is classified as if nothing were open.
      joinable.clear();
    }
    for (const fingerprint of rowsByFingerprint.keys())
      if (joinable.has(fingerprint)) joined.add(fingerprint);
    return joinable;
  };
};

/** How many reused verdicts one Prepare invocation keeps once read: a few MB, whatever the file. */
const VERDICTS_KEPT = 2_000;

/**
 * Takes a chunk's plans, the keys its reused products' verdicts are under and, optionally, the
 * verdicts this invocation already read, and gives the verdicts by fingerprint, reading from the
 * cache only those not kept yet (and keeping them while fewer than VERDICTS_KEPT are): the count of
 * the batch and the store pass after it read a nightly export's verdicts once.
 */
export const reusedVerdicts = async (
  ports: Pick<PipelinePorts, 'cache'>,
  plans: readonly RowPlan[],
  keyByFingerprint: ReadonlyMap<string, string>,
  read: Map<string, CachedVerdict> = new Map(),
): Promise<Map<string, CachedVerdict>> => {
  const keys = new Map<string, string>();
  for (const plan of plans) {
    if (plan.kind !== 'valid') continue;
    const key = keyByFingerprint.get(plan.identity.fingerprint);
    if (key) keys.set(plan.identity.fingerprint, key);
  }
  if (keys.size === 0) return new Map();
  const unread = [...new Set(keys.values())].filter((key) => !read.has(key));
  const cached = unread.length === 0 ? new Map<string, CachedVerdict>() : await ports.cache.getMany(unread);
  for (const [key, verdict] of cached) if (read.size < VERDICTS_KEPT) read.set(key, verdict);
  const verdicts = new Map<string, CachedVerdict>();
  for (const [fingerprint, key] of keys) {
    const verdict = read.get(key) ?? cached.get(key);
    if (verdict) verdicts.set(fingerprint, verdict);
  }
  return verdicts;
};

/**
 * Takes a batch's options and gives how many classifications its `max_usd` pays for (no limit
 * without one) and what a row left out says.
 */
export const budgetOf = (options: BatchOptions): { budget: number; detail: Message } => {
  const budget =
    options.max_usd === undefined
      ? Number.POSITIVE_INFINITY
      : Math.floor(options.max_usd / PRICE_PER_RESOLVED_USD + 1e-9);
  const detail = message('over_budget', {
    max_usd: options.max_usd ?? 0,
    covered: budget,
    price: PRICE_PER_RESOLVED_USD.toFixed(2),
  });
  return { budget, detail };
};

/**
 * A follower whose leader the budget left out: it shares that outcome from its birth, since the
 * leader is final at once and will never be sent.
 */
const followingLeftOut = (follower: RowRecord, leaderRow: number, leaderResult: RowResult): RowRecord => {
  const shown = resultNow(follower, { row: leaderRow, status: leaderResult.status, result: leaderResult });
  return isFinalResult(shown) ? bornRow(follower, { as: 'final', result: shown }) : follower;
};

/** The fields every row record starts with: where it is in the file, its cells, its first attempt. */
const recordBase = (batchId: string, plan: RowPlan, at: string) => ({
  batch_id: batchId,
  row: plan.mapped.row,
  line: plan.mapped.line,
  cells: plan.mapped.cells,
  attempt: 1,
  dispatch: 1,
  updated_at: at,
});

/** The record of a row never sent: rejected by its cells or its sheet, or a service, not goods. */
const unsentRecord = (
  base: ReturnType<typeof recordBase>,
  plan: Exclude<RowPlan, { kind: 'valid' }>,
): RowRecord =>
  plan.kind === 'rejected'
    ? bornRow({ ...base, rejection: plan.rejection }, { as: 'final', result: rejectedResult(plan.rejection) })
    : bornRow(base, {
        as: 'final',
        result: notSubmittedResult(SERVICE_ITEM, message(SERVICE_ITEM, plan.mark)),
      });

/**
 * Takes how the planner knows exposure order and a queued leader's plan, and gives the leader's
 * place in the send order and the value its verdict covers (none in the file's order).
 */
const exposureFieldsOf = (
  exposure: {
    placeOf?: (plan: Extract<RowPlan, { kind: 'valid' }>) => number | undefined;
    coversValueOf?: (plan: Extract<RowPlan, { kind: 'valid' }>) => number | undefined;
  },
  plan: Extract<RowPlan, { kind: 'valid' }>,
): Pick<RowRecord, 'send_order' | 'covers_value_cents'> => {
  const place = exposure.placeOf?.(plan);
  const covers = exposure.coversValueOf?.(plan);
  return {
    ...(place !== undefined ? { send_order: place } : {}),
    ...(covers !== undefined && covers > 0 ? { covers_value_cents: covers } : {}),
  };
};

/**
 * Gives a planner that turns each plan into the row record Prepare writes, in file order:
 * rejected; reused from the cache; joined to an earlier batch's classification waiting for
 * answers; a follower of the first row of the same goods (of any origin, unless the batch says
 * `verdict_per_country`) unless it says `duplicates: classify_each`; queued while the budget
 * lasts (or, in exposure order, when the budget pays for its product: `inBudget`), a leader naming
 * its followers' other origins; else `not_submitted`. Only the rows queued count against the
 * budget. Called chunk after chunk, in file order: it remembers each product's first row (one
 * number per product), not the rows.
 */
export const rowRecordPlanner = (
  batchId: string,
  reuse: {
    options: BatchOptions;
    now: Date;
    /** The other origins of a product's rows (the survey's `productOriginsCollector`), named on its leader. */
    otherOrigins?: (productFingerprint: string, own: string) => string[];
    /** In exposure order: a queued leader's place in the send order (its product's rank). */
    placeOf?: (plan: Extract<RowPlan, { kind: 'valid' }>) => number | undefined;
    /** In exposure order, from a file with a value column: the value a queued leader's verdict covers, in cents. */
    coversValueOf?: (plan: Extract<RowPlan, { kind: 'valid' }>) => number | undefined;
    /**
     * In exposure order under a budget that leaves products out: whether the budget pays for a
     * product (one of the most exposed it covers, first-places.ts `exposureBudget`). Without it the
     * budget pays for the first products in the file's order.
     */
    inBudget?: (plan: Extract<RowPlan, { kind: 'valid' }>) => boolean;
  },
) => {
  const { options, now } = reuse;
  const at = now.toISOString();
  const { budget, detail: budgetDetail } = budgetOf(options);
  const budgetResult = notSubmittedResult('budget_exceeded', budgetDetail);
  // Under `ended_codes` only the products whose verdict's code ended are classified.
  const recheckOnly = options.reclassify === 'ended_codes';
  const noVerdictResult = notSubmittedResult(NO_EARLIER_VERDICT, message(NO_EARLIER_VERDICT, {}));
  const shareClassifications = options.duplicates !== 'classify_each';
  /** Each product's first row (queued, joined, or left out by the budget): the row the others follow. */
  const leaderRows = new Map<string, number>();
  /** The products whose first row the budget left out: their later rows end as that row did. */
  const leftOutByBudget = new Set<string>();
  let dispatched = 0;
  let overBudget = 0;
  let joinedRows = 0;
  const recordsOf = (
    plans: readonly RowPlan[],
    reusable: ReadonlyMap<string, CachedVerdict>,
    joins: ReadonlyMap<string, PendingClassification> = new Map(),
    /** Under `ended_codes`: the products to classify again (reusableProductFinder). */
    recheck: ReadonlySet<string> = new Set(),
    /** Look-ups made for reused verdicts' other origins, by the verdict's 8-digit NCM. */
    lookupsOf: (ncm: string) => OriginLookups | undefined = () => undefined,
  ): RowRecord[] =>
    plans.map((plan): RowRecord => {
      const base = recordBase(batchId, plan, at);
      if (plan.kind !== 'valid') return unsentRecord(base, plan);
      const { fingerprint } = plan.identity;
      const valid = {
        ...base,
        product: plan.product,
        ...(plan.sheet ? { sheet: plan.sheet } : {}),
        product_key: plan.identity.product_key,
        fingerprint,
      };
      const verdict = reusable.get(fingerprint);
      // Rows of the same goods share a leader, whatever their origin unless `verdict_per_country`.
      const group = sharedVerdictKey(plan.identity, options);
      const leader = shareClassifications ? leaderRows.get(group) : undefined;
      if (verdict) {
        const ncm = resultNcmDigits(verdict.result);
        const lookups = ncm ? lookupsOf(ncm) : undefined;
        return bornRow(
          { ...valid, classification_id: verdict.classification_id },
          { as: 'final', result: reusedResult(verdict, plan.product, options.check_below, lookups) },
        );
      }
      const open = joins.get(fingerprint);
      if (open && leader === undefined) {
        // Waits for the answers of an earlier batch's classification: no new one, no charge.
        joinedRows += 1;
        if (shareClassifications) leaderRows.set(group, plan.mapped.row);
        return bornRow(
          { ...valid, classification_id: open.classification_id },
          { as: 'final', result: joinedResult(open, plan.product) },
        );
      }
      if (recheckOnly && !recheck.has(fingerprint) && !open) {
        // No earlier verdict of the product as it is now: nothing to re-check, nothing sent.
        return bornRow(valid, { as: 'final', result: noVerdictResult });
      }
      if (leader !== undefined) {
        const follower = bornRow({ ...valid, follows: leader }, { as: 'following' });
        return leftOutByBudget.has(group) ? followingLeftOut(follower, leader, budgetResult) : follower;
      }
      if (reuse.inBudget ? reuse.inBudget(plan) : dispatched < budget) {
        dispatched += 1;
        leaderRows.set(group, plan.mapped.row);
        // Each other origin of its followers is a classification not made: its tariffs come with the verdict.
        const others = reuse.otherOrigins?.(plan.identity.product_fingerprint, originKey(plan.product)) ?? [];
        return bornRow(
          {
            ...valid,
            ...(others.length > 0 ? { other_origins: others } : {}),
            ...exposureFieldsOf(reuse, plan),
          },
          { as: 'queued' },
        );
      }
      overBudget += 1;
      leaderRows.set(group, plan.mapped.row);
      leftOutByBudget.add(group);
      return bornRow(valid, { as: 'final', result: budgetResult });
    });
  return {
    recordsOf,
    /** Rows that joined an earlier batch's classification waiting for answers, so far. */
    joinedRows: (): number => joinedRows,
    /** The batch's problem when the budget left rows out, else null. */
    budgetProblem: (): Message | null =>
      overBudget > 0
        ? message('budget_exceeded', { max_usd: options.max_usd ?? 0, covered: budget, over: overBudget })
        : null,
  };
};
