/**
 * Unit: the sandbox core on a fake clock — transitions in time order across jumps, billing
 * exactly once, the in-progress gauge and its integral, the cap and its Retry-After,
 * abandonment, priorAttempts, snapshots.
 */
import { describe, expect, it } from 'vitest';
import type { ClassifyInput } from '../../local/sandbox/classifier/contract.js';
import { createMonotonicClock, DAY_MS } from '../../local/sandbox/core/clock.js';
import { ClassificationEngine, type CreateInput, stageAt } from '../../local/sandbox/core/engine.js';
import { fakeClassifier } from './helpers/fake-classifier.js';

const ORG = 'org_sandbox';

const setup = (options: { concurrencyLimit?: number; timeScale?: number } = {}) => {
  let real = Date.parse('2026-01-01T00:00:00Z');
  const clock = createMonotonicClock(() => real);
  const calls: ClassifyInput[] = [];
  const engine = new ClassificationEngine({
    clock,
    classifier: fakeClassifier(calls),
    seed: 'unit',
    timeScale: options.timeScale ?? 1,
    concurrencyLimit: options.concurrencyLimit ?? 10,
  });
  const input = (description = 'Café torrado em grão', orgId = ORG): CreateInput => ({
    orgId,
    author: { keyId: 'key_1', name: 'API key classify' },
    operation: 'import',
    country: 'CN',
    description,
    externalReference: null,
    sheet: null,
  });
  const create = (description?: string, orgId?: string) => {
    const result = engine.create(input(description, orgId));
    if (result.kind !== 'created') throw new Error('cap');
    return result.record;
  };
  return {
    engine,
    clock,
    calls,
    create,
    input,
    /** Real time passing (the clock follows). */
    tick: (ms: number) => {
      real += ms;
    },
  };
};

describe('runs', () => {
  it('last 45–75 s × time scale, show their stages in order, and resolve once', () => {
    const { engine, create, tick } = setup();
    const record = create();
    const run = record.run!;
    expect(run.endsAt - run.startedAt).toBeGreaterThanOrEqual(45_000);
    expect(run.endsAt - run.startedAt).toBeLessThanOrEqual(75_000);
    expect(run.stages).toEqual(['extraction', 'retrieval', 'verdict', 'validation', 'sim']);
    expect(stageAt(run, run.startedAt)).toBe('extraction');
    expect(stageAt(run, run.endsAt - 1)).toBe('sim');
    tick(run.endsAt - run.startedAt - 1);
    expect(engine.get(ORG, record.id)!.status).toBe('in_progress');
    tick(1);
    expect(engine.get(ORG, record.id)!.status).toBe('resolved');
    expect(record.resolvedAt).toBe(run.endsAt);
    tick(DAY_MS);
    expect(engine.stats(ORG).billed_per_classification).toEqual({ [record.id]: 1 });
  });

  it('scale the run length', () => {
    const { create } = setup({ timeScale: 0.01 });
    const run = create().run!;
    expect(run.endsAt - run.startedAt).toBeGreaterThanOrEqual(450);
    expect(run.endsAt - run.startedAt).toBeLessThanOrEqual(750);
  });

  it('give the classifier the run end as now, and counts earlier identical attempts', () => {
    const { create, calls } = setup();
    const first = create('same text');
    create('other text');
    create('same text');
    expect(calls.map((c) => c.priorAttempts)).toEqual([0, 0, 1]);
    expect(calls[0]!.now.getTime()).toBe(first.run!.endsAt);
  });
});

describe('the gauge, its integral and the meter across a clock jump', () => {
  it('are exact whatever the jump', () => {
    const { engine, clock, create, tick } = setup();
    const a = create();
    tick(10_000);
    const b = create();
    const c = create('fail please');
    const d = create('ask me');
    expect(engine.stats(ORG).in_progress_now).toBe(4);
    clock.advance(40 * DAY_MS);
    const stats = engine.stats(ORG);
    const runs = [a, b, c, d].map((r) => r.history[0]!.endsAt - r.history[0]!.startedAt);
    expect(stats.in_progress_now).toBe(0);
    expect(stats.in_progress_max).toBe(4);
    expect(stats.slot_seconds).toBeCloseTo(runs.reduce((x, y) => x + y, 0) / 1000, 9);
    expect(stats.billed_per_classification).toEqual({ [a.id]: 1, [b.id]: 1 });
    expect(stats.billed_usd).toBe(4);
    expect(stats.by_status).toEqual({ resolved: 2, failed: 1, abandoned: 1 });
    // Abandoned exactly 30 days after the questions were asked.
    expect(d.finishedAt! - d.history[0]!.endsAt).toBe(30 * DAY_MS);
  });

  it('counts each organisation apart', () => {
    const { engine, create, clock } = setup();
    create();
    create(undefined, 'org_other');
    clock.advance(DAY_MS);
    expect(engine.stats(ORG).billed_count).toBe(1);
    expect(engine.stats('org_other').billed_count).toBe(1);
    expect(engine.activeOrganizations()).toEqual([ORG, 'org_other']);
  });
});

describe('the cap', () => {
  it('refuses beyond the limit with the seconds until the first slot frees (at least 1)', () => {
    const { engine, create, input, tick } = setup({ concurrencyLimit: 2 });
    const first = create();
    create();
    tick(5_000);
    const refused = engine.create(input());
    expect(refused.kind).toBe('cap');
    const earliest = Math.min(first.run!.endsAt, engine.listOf(ORG)[1]!.run!.endsAt);
    expect(refused.kind === 'cap' && refused.retryAfterSeconds).toBe(
      Math.ceil((earliest - (first.createdAt + 5_000)) / 1000),
    );
    tick(earliest - first.createdAt - 5_000);
    expect(engine.create(input()).kind).toBe('created');
  });

  it('answers take a slot, pending_data frees one', () => {
    const { engine, create, clock } = setup({ concurrencyLimit: 1 });
    const asking = create('ask me');
    clock.advance(80_000);
    expect(engine.inProgressCount(ORG)).toBe(0);
    create();
    const refused = engine.answer(ORG, asking.id, {
      answers: [{ question_id: 'q1', answer: 'coffee' }],
      sheet: null,
    });
    expect(refused.kind).toBe('cap');
    clock.advance(80_000);
    const accepted = engine.answer(ORG, asking.id, {
      answers: [{ question_id: 'q1', answer: 'coffee' }],
      sheet: null,
    });
    expect(accepted.kind).toBe('accepted');
    expect(asking.run!.stages[0]).toBe('answers_intake');
    expect(asking.answers).toEqual([{ question_id: 'q1', question_text: 'What is it?', answer: 'coffee' }]);
  });
});

describe('snapshots', () => {
  it('restore into an engine that continues the same timeline', () => {
    const first = setup();
    const record = first.create();
    first.create('ask me');
    const snapshot = JSON.parse(JSON.stringify(first.engine.snapshot()));
    const second = setup();
    second.engine.restore(snapshot);
    second.clock.advance(31 * DAY_MS);
    const stats = second.engine.stats(ORG);
    expect(stats.billed_per_classification).toEqual({ [record.id]: 1 });
    expect(stats.by_status).toEqual({ resolved: 1, abandoned: 1 });
    expect(second.create().id).not.toBe(record.id);
  });
});
