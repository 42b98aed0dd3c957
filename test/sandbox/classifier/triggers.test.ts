import { describe, expect, it } from 'vitest';
import { sandboxClassifier } from '../../../local/sandbox/classifier/index.js';
import { KNOWN_FAILURE_REASONS } from '../../../shared/tcs/schemas.js';
import { described, expectPending, expectResolved, expectValidVerdict, input } from './helpers.js';

const { classify, triggers } = sandboxClassifier;
const CLEAR = 'Rolamento de esferas 6204';

describe('trigger phrases', () => {
  it('documents every phrase with a one-line effect', () => {
    expect(triggers.length).toBeGreaterThanOrEqual(20);
    for (const { phrase, effect } of triggers) {
      expect(phrase).toMatch(/^\[sandbox:[a-z-]+(=[A-Za-z0-9_]+)?\]$/);
      expect(effect).not.toContain('\n');
      expect(effect.length).toBeGreaterThan(10);
    }
  });

  it('each documented phrase changes the verdict of a clear description', () => {
    const plain = classify(described(CLEAR));
    for (const { phrase } of triggers) {
      const concrete = phrase.replace('=N]', '=2]');
      const verdict = classify(described(`${CLEAR} ${concrete}`));
      expectValidVerdict(verdict);
      expect(verdict, concrete).not.toEqual(plain);
    }
  });

  it.each(KNOWN_FAILURE_REASONS)('fail=%s fails with that reason', (reason) => {
    expect(classify(described(`${CLEAR} [sandbox:fail=${reason}]`))).toEqual({
      status: 'failed',
      failure_reason: reason,
    });
  });

  it.each(KNOWN_FAILURE_REASONS)('fail-once=%s fails the first attempt and resolves the retry', (reason) => {
    const description = `[sandbox:fail-once=${reason}] ${CLEAR}`;
    expect(classify(described(description, { priorAttempts: 0 }))).toEqual({
      status: 'failed',
      failure_reason: reason,
    });
    const retry = classify(described(description, { priorAttempts: 1 }));
    expectResolved(retry);
    expect(retry.chosen_ncm).toBe('84821010');
  });

  it('is case-insensitive and works from the sheet text', () => {
    expect(classify(described(`${CLEAR} [SANDBOX:FAIL=TIMED_OUT]`))).toEqual({
      status: 'failed',
      failure_reason: 'timed_out',
    });
    expect(classify(input({ description: CLEAR, sheetText: 'Ficha [sandbox:fail=persist_failed]' }))).toEqual(
      {
        status: 'failed',
        failure_reason: 'persist_failed',
      },
    );
  });

  it('ignores unknown tags and values', () => {
    const verdict = classify(described(`${CLEAR} [sandbox:fail=on_fire] [sandbox:explode]`));
    expectResolved(verdict);
    expect(verdict.chosen_ncm).toBe('84821010');
  });

  it('ask forces questions on a clear description, offering the matched product first', () => {
    const verdict = classify(described(`${CLEAR} [sandbox:ask]`));
    expectPending(verdict);
    expect(verdict.questions[0]!.options[0]).toBe('Rolamento de esferas');
  });

  it.each([1, 2, 3, 4, 5])('ask=%i asks exactly that many questions', (count) => {
    const verdict = classify(described(`${CLEAR} [sandbox:ask=${count}]`));
    expectPending(verdict);
    expect(verdict.questions).toHaveLength(count);
    expect(verdict.questions.map((question) => question.id)).toEqual(
      Array.from({ length: count }, (_, i) => `q${i + 1}`),
    );
  });

  it('asks free-text questions too (empty options)', () => {
    const verdict = classify(described(`${CLEAR} [sandbox:ask=5]`));
    expectPending(verdict);
    expect(verdict.questions.some((question) => question.options.length === 0)).toBe(true);
  });

  it('ask-provisional adds a provisional proposal, with or without a match', () => {
    for (const description of [CLEAR, 'Produto importado da China']) {
      const verdict = classify(described(`${description} [sandbox:ask-provisional]`));
      expectPending(verdict);
      expect(verdict.provisional.length).toBeGreaterThan(0);
      expect(verdict.title).toBe(verdict.provisional[0]!.product_name);
    }
    const matched = classify(described(`${CLEAR} [sandbox:ask-provisional]`));
    expectPending(matched);
    expect(matched.provisional[0]!.ncm).toBe('84821010');
  });

  it.each(['verifying', 'none', 'auto_selected', 'pending_choice', 'chosen'] as const)(
    'sim=%s sets the rank-1 sim status and chosen_sim_code',
    (status) => {
      for (const description of [CLEAR, 'Cimento Portland comum', 'Xampu']) {
        const verdict = classify(described(`${description} [sandbox:sim=${status}]`));
        expectResolved(verdict);
        const sim = verdict.candidates[0]!.sim;
        expect(sim.status).toBe(status);
        expect(verdict.chosen_sim_code).toBe(sim.code);
        expect(sim.code === null).toBe(status !== 'auto_selected' && status !== 'chosen');
      }
    },
  );

  it.each([
    ['low', 0, 49],
    ['medium', 50, 79],
    ['high', 80, 100],
  ] as const)('confidence=%s puts rank 1 in that band', (band, min, max) => {
    for (const description of [CLEAR, 'Café arábica em grãos', 'Cerveja lager em lata']) {
      const verdict = classify(described(`${description} [sandbox:confidence=${band}]`));
      expectResolved(verdict);
      const { confidence, confidence_band } = verdict.candidates[0]!;
      expect(confidence_band).toBe(band);
      expect(confidence).toBeGreaterThanOrEqual(min);
      expect(confidence).toBeLessThanOrEqual(max);
    }
  });

  it.each(['no_data', 'not_available'] as const)('tariff=%s makes the tariffs not found', (reason) => {
    const verdict = classify(described(`${CLEAR} [sandbox:tariff=${reason}]`));
    expectResolved(verdict);
    expect(verdict.tariffs).toMatchObject({ found: false, reason });
  });

  it('combines several tags with the matched product', () => {
    const verdict = classify(
      described(
        '[sandbox:sim=chosen] Rolamento de esferas [sandbox:confidence=medium] [sandbox:tariff=no_data]',
      ),
    );
    expectResolved(verdict);
    expect(verdict.chosen_ncm).toBe('84821010');
    expect(verdict.candidates[0]!.sim.status).toBe('chosen');
    expect(verdict.candidates[0]!.confidence_band).toBe('medium');
    expect(verdict.tariffs.found).toBe(false);
  });

  it('a failure tag wins over any other tag', () => {
    expect(classify(described(`${CLEAR} [sandbox:ask] [sandbox:fail=service_unavailable]`))).toEqual({
      status: 'failed',
      failure_reason: 'service_unavailable',
    });
  });
});
