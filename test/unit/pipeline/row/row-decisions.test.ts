import { describe, expect, it } from 'vitest';
import { DEFAULT_POLL_POLICY, decideAfterPoll } from '../../../../shared/pipeline/row/row-decisions.js';

/** Production spans as they are: the clock on AWS. */
const production = { span: (productionMs: number) => productionMs };

const poll = (
  status: string,
  extra: { failure_reason?: string | null; attempt?: number; elapsed?: number } = {},
) =>
  decideAfterPoll({
    classification: { status, failure_reason: extra.failure_reason ?? null },
    attempt: extra.attempt ?? 1,
    elapsedSeconds: extra.elapsed ?? 10,
    clock: production,
  });

describe('decideAfterPoll', () => {
  it('waits the spec’s 3 s while in progress', () => {
    expect(poll('in_progress')).toEqual({ next: 'wait', waitSeconds: 3 });
  });

  it('keeps polling an unknown status', () => {
    expect(poll('under_review')).toEqual({ next: 'wait', waitSeconds: 3 });
  });

  it('polls less often once a run is far longer than usual', () => {
    expect(poll('in_progress', { elapsed: DEFAULT_POLL_POLICY.slowAfterSeconds })).toEqual({
      next: 'wait',
      waitSeconds: DEFAULT_POLL_POLICY.slowIntervalSeconds,
    });
  });

  it('hands a run that never ends to reconciliation', () => {
    const decision = poll('in_progress', { elapsed: DEFAULT_POLL_POLICY.giveUpAfterSeconds });
    expect(decision.next).toBe('reconcile');
  });

  it.each([
    ['resolved', { next: 'resolved' }],
    ['pending_data', { next: 'pending_data' }],
    ['abandoned', { next: 'abandoned' }],
  ])('ends polling on %s', (status, decision) => {
    expect(poll(status)).toEqual(decision);
  });

  it.each(['timed_out', 'service_unavailable', 'persist_failed'])(
    'retries a %s failure as a new attempt while attempts remain',
    (reason) => {
      expect(poll('failed', { failure_reason: reason, attempt: 1 })).toEqual({
        next: 'retry',
        attempt: 2,
        reason,
      });
      expect(poll('failed', { failure_reason: reason, attempt: DEFAULT_POLL_POLICY.maxAttempts })).toEqual({
        next: 'failed',
        reason,
      });
    },
  );

  it.each(['unexpected_format', 'no_valid_candidates', 'unreadable_pdf', 'some_new_reason'])(
    'records a %s failure without retrying',
    (reason) => {
      expect(poll('failed', { failure_reason: reason })).toEqual({ next: 'failed', reason });
    },
  );

  it('sizes thresholds through the clock but keeps waits in production seconds', () => {
    // A clock on which production time runs a hundred times faster, as the local runtime's can.
    const faster = { span: (productionMs: number) => productionMs * 0.01 };
    const at = (elapsedSeconds: number) =>
      decideAfterPoll({
        classification: { status: 'in_progress', failure_reason: null },
        attempt: 1,
        elapsedSeconds,
        clock: faster,
      });
    expect(at(DEFAULT_POLL_POLICY.slowAfterSeconds * 0.01 - 0.1)).toEqual({ next: 'wait', waitSeconds: 3 });
    expect(at(DEFAULT_POLL_POLICY.slowAfterSeconds * 0.01)).toEqual({ next: 'wait', waitSeconds: 30 });
    expect(at(DEFAULT_POLL_POLICY.giveUpAfterSeconds * 0.01).next).toBe('reconcile');
  });
});
