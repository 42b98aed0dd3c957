/**
 * A verdict whose SIM openings the official registry had not confirmed yet (the chosen candidate's
 * `sim.status` `verifying`): the service says to ask `GET /sim-openings` again later, and the daily
 * sweep does. A watch remembers what waits.
 *
 * One watch per product of a batch that shows the verdict in its results (`sim#<batch>#<row>`, on
 * the product's leader), not one per classification: what moves forward is each batch's
 * results (its own revision, audit event and, for several openings, check item), and rows of later
 * batches that reuse the verdict hold it under their own batch, where nothing indexes them by
 * classification. The service is still asked once per distinct NCM and operation, however many
 * rows wait on it. Followers are never watched: they show their leader's outcome. A reused
 * product's other rows each hold the verdict: its watch counts them (`followers`), and the sweep
 * moves them with its first row.
 */
import * as z from 'zod';
import type { Classification } from '../../tcs/schemas.js';
import { ClassificationId } from '../../tcs/schemas.js';
import type { CachedVerdict, RowRecord } from './records.js';
import type { RowResult } from './result-columns.js';
import { chosenCandidate, resultNcmDigits, verdictNotesOf } from './row-results.js';

const SIM_WATCH_STATES = ['open', 'settled'] as const;

/**
 * One row's watch on a verdict whose SIM openings wait: what to ask the registry (NCM, operation),
 * the product's cache keys, and whether the sweep has settled it and with what answer.
 */
export const SimWatch = z.object({
  batch_id: z.string(),
  row: z.number().int().min(1),
  classification_id: ClassificationId,
  /** The chosen NCM (8 digits) and the row's operation: what `GET /sim-openings` is asked. */
  ncm: z.string().regex(/^[0-9]{8}$/),
  operation: z.enum(['import', 'export']),
  /** The product's keys in the product cache, whose verdict follows when it is this classification. */
  product_key: z.string().nullable(),
  fingerprint: z.string().nullable(),
  state: z.enum(SIM_WATCH_STATES),
  /** A reused product's other rows in the batch, each holding the verdict: moved with this one. */
  followers: z.number().int().min(0).optional(),
  created_at: z.string(),
  /** When the sweep settled it, and what the registry said. */
  settled_at: z.string().optional(),
  outcome: z.enum(['available', 'none']).optional(),
});
export type SimWatch = z.infer<typeof SimWatch>;

/**
 * Gives the open watch of a row whose resolved verdict waits for its SIM openings (the chosen
 * candidate's `sim.status` `verifying`, no code chosen); null when it does not wait, or when the
 * row has no NCM or operation to ask about.
 */
export const simWatchOfVerdict = (
  row: Pick<RowRecord, 'batch_id' | 'row' | 'product' | 'product_key' | 'fingerprint'>,
  c: Pick<Classification, 'id' | 'candidates' | 'chosen_ncm' | 'chosen_sim_code'>,
  at: string,
): SimWatch | null => {
  const operation = row.product?.operation;
  const waits = c.chosen_sim_code === null && chosenCandidate(c)?.sim.status === 'verifying';
  if (!waits || !c.chosen_ncm || !operation) return null;
  return {
    batch_id: row.batch_id,
    row: row.row,
    classification_id: c.id,
    ncm: c.chosen_ncm,
    operation,
    product_key: row.product_key ?? null,
    fingerprint: row.fingerprint ?? null,
    state: 'open',
    created_at: at,
  };
};

/** Whether a kept verdict's note still says its SIM openings are not confirmed. */
const resultAwaitsSim = (result: Pick<RowResult, 'sim_code' | 'detail_messages'>): boolean =>
  (result.sim_code ?? '') === '' && verdictNotesOf(result)?.sim_verifying === true;

/**
 * Gives the open watch of a row that reuses a cached verdict whose SIM openings still waited when
 * it was kept (the row shows that verdict in its own batch's results, which the sweep moves
 * forward too); null for any other row.
 */
export const simWatchOfReuse = (
  row: Pick<RowRecord, 'batch_id' | 'row' | 'status' | 'product' | 'product_key' | 'fingerprint'>,
  cached: Pick<CachedVerdict, 'classification_id' | 'result'>,
  at: string,
): SimWatch | null => {
  const operation = row.product?.operation;
  const ncm = resultNcmDigits(cached.result);
  if (row.status !== 'reused' || !resultAwaitsSim(cached.result) || !ncm || !operation) return null;
  return {
    batch_id: row.batch_id,
    row: row.row,
    classification_id: cached.classification_id,
    ncm,
    operation,
    product_key: row.product_key ?? null,
    fingerprint: row.fingerprint ?? null,
    state: 'open',
    created_at: at,
  };
};
