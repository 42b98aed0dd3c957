/**
 * The daily SIM sweep: a verdict stored while the official registry was still verifying its SIM
 * openings (the chosen candidate's `sim.status` `verifying`) is looked up again, as the service
 * says to (`GET /sim-openings`, free), and its batch's results move forward once it is confirmed.
 *
 *   open watches (one Scan) ─▶ none: done
 *     ─▶ GET /sim-openings once per distinct NCM and operation, a few at once
 *     ─▶ still verifying: left for tomorrow
 *     ─▶ confirmed: each completed batch with such rows, one after another:
 *          each row, a few at once: the `sim_confirmed` move (one opening: `sim_code`; several:
 *          listed in the note, and `to_check` with a check item under `check_below`; none: the
 *          note says so), its `sim_confirmed` audit event, the product cache's verdict when it is
 *          this classification; a reused product's other rows moved with its first
 *          (reused-product-rows.ts)
 *          ─▶ FinalizeAnswers without a round: a new results revision ─▶ the watches closed
 *
 * Run again, it changes nothing: a closed watch is not listed, and a row that already shows the
 * confirmation (a run that stopped before closing its watch) is not moved again; its event is
 * recorded again under the same key (written once) and its batch revised (no second revision when
 * nothing changed).
 *
 * Bounded: a batch is begun only before `until`; the batches not begun keep their watches open for
 * the next run (the next day's), since a row's work and its batch's revision must both be done
 * before its watch is closed.
 */
import { TcsError } from '../../tcs/errors.js';
import type { Operation } from '../../tcs/schemas.js';
import type { AuditEvent } from '../core/audit-records.js';
import { mapLimited } from '../core/calls-in-parallel.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord, RowRecord } from '../core/records.js';
import { reuseKeysOf } from '../core/row-life.js';
import type { SimWatch } from '../core/sim-watch.js';
import { checkItemOfResult } from '../core/verdict-check.js';
import { type NcmDescriber, ncmDescriber } from '../outbox/divergence-sheet.js';
import type { FinalizeAnswersPorts, FinalizeAnswersResult } from './finalize-answers.js';
import { confirmReusedRows } from './reused-product-rows.js';
import {
  type ConfirmedRow,
  confirmationDetail,
  confirmationOf,
  confirmedResult,
  type SimConfirmation,
} from './sim-confirmation.js';
import { reviseBatchResults } from './sweep-reviews.js';

/**
 * The ports the SIM sweep uses: FinalizeAnswers', the SIM watches, check items, the audit log and the
 * product cache.
 */
export type SweepSimPorts = FinalizeAnswersPorts &
  Pick<PipelinePorts, 'simWatches' | 'checks' | 'audit' | 'cache'>;

/**
 * What a SIM sweep found and did: watches open, lookups made and failed, rows confirmed or left,
 * batches revised.
 */
export type SimSweepReport = {
  /** Watches open when the sweep began. */
  open: number;
  /** Distinct NCM and operation asked about. */
  asked: number;
  /** Lookups that failed (left for tomorrow, as if still verifying). */
  failed_lookups: number;
  /** Rows whose SIM openings the registry has confirmed, moved forward now. */
  confirmed: number;
  /** Rows still verifying, or whose batch is not completed yet: left for tomorrow. */
  waiting: number;
  /** Rows of batches not begun before the time ran out: left for the next run. */
  left: number;
  /** The batches whose results moved forward, with what FinalizeAnswers reported. */
  batches: FinalizeAnswersResult[];
};

/** How the SIM sweep works: how many lookups and rows at once, and the time after which no batch is begun. */
export type SimSweepSettings = {
  /** Lookups and rows worked at once. */
  parallel: number;
  /** No batch is begun at or after this time (ms since the epoch). */
  until: number;
};

const REVISION_DETAIL = 'daily sweep: SIM openings confirmed by the official registry';

const lookupKey = (watch: Pick<SimWatch, 'ncm' | 'operation'>) => `${watch.ncm}:${watch.operation}`;

/** Each distinct NCM and operation asked once; a failed lookup waits, like a `verifying` one. */
const lookUp = async (
  ports: Pick<PipelinePorts, 'service'>,
  watches: readonly SimWatch[],
  parallel: number,
): Promise<{ answers: Map<string, SimConfirmation>; failed: number }> => {
  const queries = new Map(watches.map((watch) => [lookupKey(watch), watch]));
  let failed = 0;
  const answered = await mapLimited([...queries], parallel, async ([key, { ncm, operation }]) => {
    try {
      const answer = await ports.service.getSimOpenings({ ncm, operation: operation as Operation });
      return [key, confirmationOf(answer)] as const;
    } catch (error) {
      // The client has retried what it could; the registry is asked again tomorrow.
      if (!(error instanceof TcsError)) throw error;
      failed += 1;
      return [key, { kind: 'wait' } as SimConfirmation] as const;
    }
  });
  return { answers: new Map(answered), failed };
};

/** The row as it stands, while it still shows this watch's verdict; null when it moved on. */
const rowOfWatch = async (ports: Pick<PipelinePorts, 'batches'>, watch: SimWatch) => {
  const row = await ports.batches.getRow(watch.batch_id, watch.row);
  const shows = row?.result && row.classification_id === watch.classification_id;
  return shows && (row.status === 'resolved' || row.status === 'reused') ? row : null;
};

type RowOutcome =
  /** Moved now, or found moved by an earlier run: its event to record, its watch to close. */
  | { settle: true; event: AuditEvent | null }
  /** Changed by someone else between the read and the write, twice: tried again tomorrow. */
  | { settle: false };

/** The row moved (read again once if a decision was written meanwhile); its check item when it waits for a person. */
const confirmRow = async (
  ports: Pick<PipelinePorts, 'batches' | 'checks' | 'clock'>,
  batch: BatchRecord & { describe: NcmDescriber },
  watch: SimWatch,
  confirmation: SimConfirmation,
): Promise<RowOutcome> => {
  for (let tries = 0; tries < 2; tries++) {
    const row = await rowOfWatch(ports, watch);
    if (!row?.result) return { settle: true, event: null };
    const checkBelow = batch.options?.check_below;
    const confirmed = confirmedResult(row.result, confirmation, checkBelow);
    // Already showing it: an earlier run moved it and stopped before closing its watch. The same event
    // again (its time is the move's), written once.
    if (!confirmed)
      return { settle: true, event: eventOf(watch, row.updated_at, confirmationDetail(confirmation)) };
    const at = ports.clock.now().toISOString();
    const move = { move: 'sim_confirmed', result: confirmed.result, read_at: row.updated_at, at } as const;
    if (!(await ports.batches.moveRow(watch.batch_id, watch.row, move))) continue;
    if (confirmed.reasons.length > 0) {
      const followers = watch.followers ?? 0;
      await createCheckItem(ports, row, confirmed, confirmation, {
        checkBelow,
        describe: batch.describe,
        followers,
      });
    }
    return { settle: true, event: eventOf(watch, at, confirmed.detail) };
  }
  return { settle: false };
};

const eventOf = (watch: SimWatch, at: string, detail: string): AuditEvent => ({
  at,
  batch_id: watch.batch_id,
  row: watch.row,
  event: 'sim_confirmed',
  who: '',
  classification_id: watch.classification_id,
  detail,
});

/**
 * The row's check item, with the openings as the registry describes them: written if absent; an
 * item already waiting (a low confidence, marked by Store or Prepare) is offered the openings.
 */
const createCheckItem = async (
  ports: Pick<PipelinePorts, 'checks' | 'clock'>,
  row: RowRecord,
  confirmed: ConfirmedRow,
  confirmation: SimConfirmation,
  how: { checkBelow: number | undefined; describe: NcmDescriber; followers: number },
) => {
  const { checkBelow, describe, followers } = how;
  const made = checkItemOfResult(confirmed.result, row, await describe(), {
    reasons: confirmed.reasons,
    checkBelow,
    followers,
    now: ports.clock.now(),
  });
  // A reused product's other rows are marked with its first (reused-product-rows.ts).
  const item = followers > 0 ? { ...made, followers_reuse: true } : made;
  const offer = {
    reasons: confirmed.reasons,
    sim_options: confirmation.kind === 'several' ? [...confirmation.openings] : [],
  };
  if (!(await ports.checks.create({ ...item, ...offer })))
    await ports.checks.offerSimOptions(row.batch_id, row.row, offer);
};

/** The product cache's verdict, when it is this classification's, confirmed as the rows are. */
const confirmCachedVerdict = async (
  ports: Pick<PipelinePorts, 'cache'>,
  watch: SimWatch,
  confirmation: SimConfirmation,
) => {
  if (watch.product_key === null || watch.fingerprint === null) return;
  const keys = reuseKeysOf({ product_key: watch.product_key, fingerprint: watch.fingerprint });
  const cached = await ports.cache.getMany(keys);
  for (const verdict of cached.values()) {
    if (verdict.classification_id !== watch.classification_id) continue; // a newer verdict
    const confirmed = confirmedResult(verdict.result, confirmation, undefined);
    if (confirmed) await ports.cache.put({ ...verdict, result: confirmed.result });
  }
};

/** One completed batch: its rows a few at once, then its revision, then its watches closed. */
const sweepBatch = async (
  ports: SweepSimPorts,
  batch: BatchRecord & { describe: NcmDescriber },
  watches: readonly { watch: SimWatch; confirmation: SimConfirmation }[],
  parallel: number,
  cachedDone: Set<string>,
): Promise<{ revised: FinalizeAnswersResult; settled: number }> => {
  const outcomes = await mapLimited(watches, parallel, async ({ watch, confirmation }) => {
    const outcome = await confirmRow(ports, batch, watch, confirmation);
    if (outcome.settle && !cachedDone.has(watch.classification_id)) {
      cachedDone.add(watch.classification_id);
      await confirmCachedVerdict(ports, watch, confirmation);
    }
    return { watch, confirmation, outcome };
  });
  const events = outcomes.flatMap(({ outcome }) => (outcome.settle && outcome.event ? [outcome.event] : []));
  if (events.length > 0) await ports.audit.record(events);
  await confirmReusedRows(
    ports,
    { batchId: batch.batch_id, checkBelow: batch.options?.check_below, at: ports.clock.now().toISOString() },
    outcomes.filter(({ outcome }) => outcome.settle),
  );
  const revised = await reviseBatchResults(ports, batch.batch_id, REVISION_DETAIL);
  const settling = outcomes.filter(({ outcome }) => outcome.settle);
  const at = ports.clock.now().toISOString();
  await mapLimited(settling, parallel, ({ watch, confirmation }) =>
    ports.simWatches.settle(watch.batch_id, watch.row, {
      at,
      outcome: confirmation.kind === 'none' ? 'none' : 'available',
    }),
  );
  return { revised, settled: settling.length };
};

/**
 * The daily SIM sweep: asks the registry about every open watch, writes each
 * confirmation on its rows, revises each completed batch concerned and closes its watches, until
 * `settings.until`; returns what it found and did. Running it again changes nothing.
 */
export const sweepSimOpenings = async (
  ports: SweepSimPorts,
  settings: SimSweepSettings,
): Promise<SimSweepReport> => {
  const open = await ports.simWatches.listOpen();
  const report: SimSweepReport = {
    open: open.length,
    asked: 0,
    failed_lookups: 0,
    confirmed: 0,
    waiting: 0,
    left: 0,
    batches: [],
  };
  if (open.length === 0) return report;
  const { answers, failed } = await lookUp(ports, open, settings.parallel);
  report.asked = answers.size;
  report.failed_lookups = failed;

  const byBatch = new Map<string, { watch: SimWatch; confirmation: SimConfirmation }[]>();
  for (const watch of open) {
    const confirmation = answers.get(lookupKey(watch)) ?? { kind: 'wait' };
    if (confirmation.kind === 'wait') {
      report.waiting += 1;
      continue;
    }
    byBatch.set(watch.batch_id, [...(byBatch.get(watch.batch_id) ?? []), { watch, confirmation }]);
  }
  const cachedDone = new Set<string>();
  // The candidates' descriptions on a check item, from the NCM table in force: read once, if needed.
  const describe = ncmDescriber(ports.objects);
  for (const [batchId, watches] of [...byBatch].sort(([a], [b]) => a.localeCompare(b))) {
    if (ports.clock.now().getTime() >= settings.until) {
      report.left += watches.length;
      continue;
    }
    const batch = await ports.batches.getBatch(batchId);
    // A batch still running shows its rows when it finalizes: its watches wait for a later run.
    if (batch?.state !== 'completed') {
      report.waiting += watches.length;
      continue;
    }
    const { revised, settled } = await sweepBatch(
      ports,
      { ...batch, describe },
      watches,
      settings.parallel,
      cachedDone,
    );
    report.confirmed += settled;
    report.waiting += watches.length - settled;
    report.batches.push(revised);
  }
  return report;
};
