/** Shared fixtures and the spec's invariants, checked on every verdict the tests produce. */
import { expect } from 'vitest';
import type { ClassifyInput, Verdict } from '../../../local/sandbox/classifier/contract.js';
import {
  Candidate,
  type Candidate as CandidateType,
  KNOWN_FAILURE_REASONS,
  Question,
  TariffLookup,
} from '../../../shared/tcs/schemas.js';

export const NOW = new Date('2026-07-01T12:00:00.000Z');

export const input = (overrides: Partial<ClassifyInput> = {}): ClassifyInput => ({
  operation: 'import',
  country: 'CN',
  description: null,
  sheetText: null,
  answers: [],
  priorAttempts: 0,
  seed: 'test-seed',
  now: NOW,
  ...overrides,
});

/** A first-run input for a description. */
export const described = (description: string, overrides: Partial<ClassifyInput> = {}): ClassifyInput =>
  input({ description, ...overrides });

const bandOf = (confidence: number) => (confidence >= 80 ? 'high' : confidence >= 50 ? 'medium' : 'low');

/** Candidate.sim rules of the spec, plus the schema. */
const expectValidCandidate = (candidate: CandidateType, rank: number, provisional: boolean) => {
  expect(Candidate.strict().parse(candidate)).toEqual(candidate);
  expect(candidate.rank).toBe(rank);
  expect(candidate.is_provisional).toBe(provisional);
  expect(candidate.confidence_band).toBe(bandOf(candidate.confidence));
  const { chapter, heading, subheading } = candidate.hierarchy;
  expect(candidate.ncm.startsWith(chapter!.code)).toBe(true);
  expect(candidate.ncm.startsWith(heading!.code)).toBe(true);
  expect(candidate.ncm.startsWith(subheading!.code)).toBe(true);
  const sim = candidate.sim;
  const hasCode = sim.status === 'auto_selected' || sim.status === 'chosen';
  expect(sim.code !== null).toBe(hasCode);
  if (sim.status === 'none' || sim.status === 'verifying') expect(sim.options).toEqual([]);
  expect(sim.verified_at === null).toBe(sim.status === 'verifying');
  if (sim.status === 'auto_selected')
    expect(sim.options).toEqual([{ code: sim.code, description: expect.any(String) }]);
  if (sim.status === 'pending_choice') expect(sim.options.length).toBeGreaterThanOrEqual(2);
  if (sim.status === 'chosen') expect(sim.options.map((option) => option.code)).toContain(sim.code);
  for (const option of sim.options) expect(option.code.startsWith(candidate.ncm)).toBe(true);
};

/** Every rule the contract and the spec put on a verdict. */
export const expectValidVerdict = (verdict: Verdict): void => {
  switch (verdict.status) {
    case 'resolved': {
      expect(verdict.candidates.length).toBeGreaterThanOrEqual(1);
      expect(verdict.candidates.length).toBeLessThanOrEqual(3);
      verdict.candidates.forEach((candidate, i) => {
        expectValidCandidate(candidate, i + 1, false);
      });
      const confidences = verdict.candidates.map((candidate) => candidate.confidence);
      expect([...confidences].sort((a, b) => b - a)).toEqual(confidences);
      const first = verdict.candidates[0]!;
      expect(verdict.chosen_ncm).toBe(first.ncm);
      expect(verdict.chosen_sim_code).toBe(first.sim.code);
      expect(verdict.title).toBe(first.product_name);
      expect(TariffLookup.parse(verdict.tariffs)).toEqual(verdict.tariffs);
      expect(new Set(verdict.candidates.map((candidate) => candidate.ncm)).size).toBe(
        verdict.candidates.length,
      );
      return;
    }
    case 'pending_data': {
      expect(verdict.questions.length).toBeGreaterThanOrEqual(1);
      expect(verdict.questions.length).toBeLessThanOrEqual(5);
      for (const question of verdict.questions) expect(Question.strict().parse(question)).toEqual(question);
      expect(new Set(verdict.questions.map((question) => question.id)).size).toBe(verdict.questions.length);
      expect(verdict.provisional.length).toBeLessThanOrEqual(3);
      verdict.provisional.forEach((candidate, i) => {
        expectValidCandidate(candidate, i + 1, true);
      });
      return;
    }
    case 'failed':
      expect(KNOWN_FAILURE_REASONS).toContain(verdict.failure_reason);
      return;
  }
};

export function expectResolved(
  verdict: Verdict,
): asserts verdict is Extract<Verdict, { status: 'resolved' }> {
  expectValidVerdict(verdict);
  expect(verdict.status).toBe('resolved');
}

export function expectPending(
  verdict: Verdict,
): asserts verdict is Extract<Verdict, { status: 'pending_data' }> {
  expectValidVerdict(verdict);
  expect(verdict.status).toBe('pending_data');
}
