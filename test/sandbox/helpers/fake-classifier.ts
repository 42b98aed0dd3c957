/**
 * A tiny ClassifierPort for unit tests of the sandbox core: the description decides the
 * outcome ("ask" → questions, "fail" → failed, anything else → resolved), so a test reads
 * as its own fixture.
 */
import type { ClassifierPort, ClassifyInput, Verdict } from '../../../local/sandbox/classifier/contract.js';
import type { Candidate } from '../../../shared/tcs/schemas.js';

const candidate = (now: Date): Candidate => ({
  rank: 1,
  ncm: '09012100',
  description: 'Café torrado, não descafeinado',
  product_name: 'Café torrado',
  confidence: 90,
  confidence_band: 'high',
  is_provisional: false,
  hierarchy: { section: null, chapter: null, heading: null, subheading: null },
  rationale: 'Posição 09.01.',
  applied_rules: ['1', '6'],
  cited_notes: [],
  discarded_alternatives: [],
  missing_data: [],
  sim: { status: 'none', code: null, options: [], verified_at: now.toISOString() },
});

export const fakeClassifier = (calls: ClassifyInput[] = []): ClassifierPort => ({
  classify(input): Verdict {
    calls.push(input);
    const text = input.description ?? '';
    if (text.includes('fail')) return { status: 'failed', failure_reason: 'timed_out' };
    if (text.includes('ask') && input.answers.length === 0) {
      return {
        status: 'pending_data',
        title: null,
        questions: [{ id: 'q1', text: 'What is it?', options: [] }],
        provisional: [],
      };
    }
    return {
      status: 'resolved',
      title: 'Café torrado',
      candidates: [candidate(input.now)],
      chosen_ncm: '09012100',
      chosen_sim_code: null,
      tariffs: { found: false, reason: 'no_data', source: 'fake', queried_at: input.now.toISOString() },
    };
  },
  lookupTariff: (_q, now) => ({
    found: false,
    reason: 'no_data',
    source: 'fake',
    queried_at: now.toISOString(),
  }),
  lookupSimOpenings: (q, _now) => ({ ...q, status: 'verifying', openings: [], verified_at: null }),
  countries: [{ code: 'CN', name: 'China', mercosur: false }],
  triggers: [],
});
