/**
 * What moves a reused product's first row moves its other rows in the batch too. Prepare keeps one
 * check item and one SIM watch per reused product, on its first row, counting the others
 * (prepare/reused-products.ts), since every row of the product holds the same verdict itself.
 * When a person decides that verdict, or the daily sweep sees its
 * SIM openings confirmed, the first row is moved where the item or the watch is handled, and the
 * product's other rows here: found in one pass over the batch a page at a time, moved a few at
 * once, each with the guard of the row as read.
 *
 *   decideReusedRows    FinalizeAnswers, after a round decided such an item (apply-decisions.ts)
 *   confirmReusedRows   the SIM sweep, after it moved such a watch's row (sweep-sim-openings.ts)
 *
 * Run again (a retried step), each finds the rows already moved and writes nothing.
 */

import { forEachLimited } from '../core/calls-in-parallel.js';
import type { CheckItem } from '../core/check-records.js';
import type { BatchStore, PipelinePorts } from '../core/ports.js';
import type { RowRecord } from '../core/records.js';
import type { SimWatch } from '../core/sim-watch.js';
import { ROWS_PER_PAGE } from '../finalize/standing-rows.js';
import { approvedResult, decideRow } from './apply-decisions.js';
import { confirmedResult, type SimConfirmation } from './sim-confirmation.js';

/** Rows moved at once: a page's go out in parallel, never one after another. */
const ROWS_IN_FLIGHT = 16;

/** The first row of a reused product: its row and the verdict its other rows hold. */
type Lead = { row: number; classification_id: string };

/**
 * Where a pass over the batch begins (`after` a row, null: at the start) and when it stops to go
 * on in the next leg: after the page that ends at or past `until` (ms since the epoch), so every
 * leg moves a page at least.
 */
export type PassLeg = { after: number | null; until: number; now: () => number };

/**
 * What a pass over the batch did: how many rows it moved, and where the next leg goes on (null: the
 * batch is done).
 */
export type PassMoved = { moved: number; after: number | null };

/**
 * Every other row of the leads' products (same fingerprint, same verdict, `reused`), a page at a
 * time, handed to `move` a few at once; how many were moved (`move` says whether it moved one).
 */
const moveOtherRows = async <L extends Lead>(
  batches: Pick<BatchStore, 'rowsPage'>,
  batchId: string,
  leads: ReadonlyMap<string, L>,
  move: (row: RowRecord, lead: L) => Promise<boolean>,
  leg: PassLeg = { after: null, until: Number.POSITIVE_INFINITY, now: Date.now },
): Promise<PassMoved> => {
  if (leads.size === 0) return { moved: 0, after: null };
  let moved = 0;
  let after: number | null = leg.after;
  do {
    const page = await batches.rowsPage(batchId, { after, limit: ROWS_PER_PAGE });
    const others = page.rows.flatMap((row) => {
      const lead = row.fingerprint === undefined ? undefined : leads.get(row.fingerprint);
      const holds =
        lead !== undefined &&
        row.row !== lead.row &&
        row.status === 'reused' &&
        row.classification_id === lead.classification_id;
      return holds ? [{ row, lead }] : [];
    });
    await forEachLimited(others, ROWS_IN_FLIGHT, async ({ row, lead }) => {
      if (await move(row, lead)) moved += 1;
    });
    after = page.next;
    if (after !== null && leg.now() >= leg.until) return { moved, after };
  } while (after !== null);
  return { moved, after: null };
};

/** Leads by their product's fingerprint. */
const byFingerprint = <L extends { fingerprint: string | null }>(leads: readonly L[]): Map<string, L> =>
  new Map(leads.flatMap((lead) => (lead.fingerprint === null ? [] : [[lead.fingerprint, lead] as const])));

type DecidedItem = CheckItem & { decision: NonNullable<CheckItem['decision']> };

/**
 * Writes a round's decisions on reused products on the products' other rows still `to_check`,
 * from `leg.after` until the leg's time is spent; returns how many rows it moved and where
 * FinalizeAnswers' next leg goes on.
 */
export const decideReusedRows = async (
  ports: Pick<PipelinePorts, 'batches' | 'checks'>,
  batchId: string,
  roundId: string,
  leg?: PassLeg,
): Promise<PassMoved> => {
  const items = await ports.checks.listByBatch(batchId);
  const decided = items.filter(
    (item): item is DecidedItem => item.followers_reuse === true && item.decision?.round_id === roundId,
  );
  return moveOtherRows(
    ports.batches,
    batchId,
    byFingerprint(decided),
    async (row, { decision }) => {
      if (row.result?.check !== 'to_check') return false;
      const moved = await ports.batches.moveRow(batchId, row.row, {
        move: 'decided',
        result: approvedResult(row.result, decision),
        read_at: row.updated_at,
        at: decision.at,
      });
      // Written meanwhile (the daily sweep): read again, as PrepareAnswers does for the first row.
      return moved || (await decideRow(ports.batches, batchId, row.row, decision)) !== null;
    },
    leg,
  );
};

/**
 * Writes the SIM sweep's confirmations of reused products' watches on the products' other rows
 * still showing the SIM openings unconfirmed, in one pass; returns how many rows it moved. A row
 * written meanwhile (a decision) is read again once; one that keeps changing is left as it is, its
 * product's watch already closed with the first row.
 */
export const confirmReusedRows = async (
  ports: Pick<PipelinePorts, 'batches'>,
  batch: { batchId: string; checkBelow: number | undefined; at: string },
  confirmed: readonly { watch: SimWatch; confirmation: SimConfirmation }[],
): Promise<PassMoved> => {
  const leads = confirmed.flatMap(({ watch, confirmation }) =>
    (watch.followers ?? 0) > 0 ? [{ ...watch, confirmation }] : [],
  );
  return moveOtherRows(ports.batches, batch.batchId, byFingerprint(leads), async (read, { confirmation }) => {
    let row: RowRecord | null = read;
    for (let tries = 0; row?.result && tries < 2; tries++) {
      const result = confirmedResult(row.result, confirmation, batch.checkBelow)?.result;
      if (!result) return false;
      const move = { move: 'sim_confirmed', result, read_at: row.updated_at, at: batch.at } as const;
      if (await ports.batches.moveRow(batch.batchId, row.row, move)) return true;
      row = await ports.batches.getRow(batch.batchId, row.row);
    }
    return false;
  });
};
