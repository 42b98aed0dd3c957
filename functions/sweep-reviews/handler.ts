/**
 * The daily sweep (a schedule): batches with rows the service abandoned after 30 days unanswered,
 * and batches with verdicts whose SIM openings the official registry has since confirmed, get
 * their results moved forward; questions still waiting on the reminder day are told again. See shared/pipeline/answers/sweep-reviews.ts and
 * sweep-sim-openings.ts.
 */
import { sweepAbandonedReviews } from '../../shared/pipeline/answers/sweep-reviews.js';
import { sweepSimOpenings } from '../../shared/pipeline/answers/sweep-sim-openings.js';
import { remindWaitingQuestions } from '../../shared/pipeline/notices/remind-questions.js';
import { ENV } from '../catalogue.js';
import {
  audit,
  batches,
  cache,
  checks,
  clock,
  events,
  notifier,
  reviews,
  simWatches,
} from '../port-builders.js';
import { logger, portsFor } from '../runtime.js';
import { service } from '../service-port.js';
import { streamingObjects } from '../streaming-bucket-port.js';

/** No batch's SIM confirmations are begun after this much of the invocation: the rest wait for the next. */
const SIM_SWEEP_BUDGET_MS = 10 * 60 * 1000;
/** SIM lookups and rows worked at once. */
const SIM_SWEEP_PARALLEL = 8;

/** The stack's `questionReminderDay`, else the default (21). */
const reminderDay = (): number | undefined => {
  const day = Number(process.env[ENV.questionReminderDay] ?? '');
  return Number.isInteger(day) && day > 0 ? day : undefined;
};

export const handler = async () => {
  const ports = await portsFor('sweep-reviews', {
    clock,
    objects: streamingObjects,
    batches,
    reviews,
    checks,
    audit,
    events,
    service,
    simWatches,
    cache,
    notifier,
  });
  // Real time, not a span: the 15 minutes a Lambda runs do not shrink with the local time scale.
  const until = ports.clock.now().getTime() + SIM_SWEEP_BUDGET_MS;
  const report = await sweepAbandonedReviews(ports);
  logger.info('review sweep', {
    pending: report.pending,
    abandoned: report.abandoned,
    batches: report.batches.map(({ batch_id, revision, abandoned }) => ({ batch_id, revision, abandoned })),
  });
  // The questions still waiting on the reminder day: told again, with the days left.
  const reminded = await remindWaitingQuestions(ports, await ports.reviews.listPending(), reminderDay());
  logger.info('question reminders', { ...reminded });
  const sims = await sweepSimOpenings(ports, { until, parallel: SIM_SWEEP_PARALLEL });
  const { batches: moved, ...counts } = sims;
  logger.info('SIM sweep', {
    ...counts,
    batches: moved.map(({ batch_id, revision }) => ({ batch_id, revision })),
  });
  return { ...report, reminded, sims };
};
