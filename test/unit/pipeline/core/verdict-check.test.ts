import { describe, expect, it } from 'vitest';
import { reusedPdfRelative } from '../../../../shared/pipeline/core/bucket-layout.js';
import { CheckItem } from '../../../../shared/pipeline/core/check-records.js';
import { resolvedResult } from '../../../../shared/pipeline/core/row-results.js';
import {
  alternativesOfResult,
  type CheckedRow,
  checkItemOfClassification,
  checkItemOfResult,
  checkReasonsOfClassification,
  checkReasonsOfResult,
  RATIONALE_MAX_CHARS,
  rationaleLead,
  simOptionsOfResult,
  withCheckMark,
} from '../../../../shared/pipeline/core/verdict-check.js';
import { Classification } from '../../../../shared/tcs/schemas.js';
import { CLS_ID, candidate, resolvedClassification } from '../../../helpers/tcs-fixtures.js';

const NOW = new Date('2026-11-27T12:00:00.000Z');

const PENDING_SIM = {
  status: 'pending_choice',
  code: null,
  options: [
    { code: '0901210010', description: 'Em grão' },
    { code: '0901210020', description: 'Moído' },
  ],
  verified_at: null,
};

/** A verdict whose chosen candidate has `confidence`, and a SIM opening waiting for a choice when asked. */
const verdict = (confidence: number, simPending = false): Classification =>
  Classification.parse(
    resolvedClassification({
      candidates: [
        candidate({ confidence, ...(simPending ? { sim: PENDING_SIM } : {}) }),
        candidate({
          rank: 2,
          ncm: '09012200',
          description: 'Descafeinado',
          confidence: 20,
          rationale: 'Menos provável.',
        }),
      ],
      chosen_sim_code: simPending ? null : '0901210010',
    }),
  );

const ROW: CheckedRow = {
  batch_id: 'nightly-1',
  row: 4,
  product_key: 'sku:CAF-4',
  fingerprint: 'fp-4',
  product: {
    row: 4,
    description: 'Café torrado em grãos, embalagem de 1 kg',
    operation: 'import',
    country: 'CO',
    sheet: null,
    external_reference: null,
    sku: 'CAF-4',
    current_ncm: null,
    flags: [],
  },
};

describe('checkReasonsOfClassification', () => {
  it('names low confidence only under the threshold, not at it', () => {
    expect(checkReasonsOfClassification(verdict(79), 80)).toEqual(['low_confidence']);
    expect(checkReasonsOfClassification(verdict(80), 80)).toEqual([]);
    expect(checkReasonsOfClassification(verdict(99), 100)).toEqual(['low_confidence']);
  });

  it('names a SIM opening waiting for a choice, with or without low confidence', () => {
    expect(checkReasonsOfClassification(verdict(95, true), 80)).toEqual(['sim_pending_choice']);
    expect(checkReasonsOfClassification(verdict(50, true), 80)).toEqual([
      'low_confidence',
      'sim_pending_choice',
    ]);
  });

  it('does not name a SIM opening once the verdict chose one', () => {
    const chosen = Classification.parse({ ...verdict(95, true), chosen_sim_code: '0901210020' });
    expect(checkReasonsOfClassification(chosen, 80)).toEqual([]);
  });

  it('checks nothing without a threshold', () => {
    expect(checkReasonsOfClassification(verdict(10, true), undefined)).toEqual([]);
  });
});

describe('checkReasonsOfResult', () => {
  const result = (confidence: number, simPending = false) =>
    resolvedResult(verdict(confidence, simPending), { currentNcm: null, verdictPdf: 'pdfs/00004-CAF-4.pdf' });

  it('reads the confidence column and the SIM openings of the verdict notes', () => {
    expect(checkReasonsOfResult(result(70), 80)).toEqual(['low_confidence']);
    expect(checkReasonsOfResult(result(90, true), 80)).toEqual(['sim_pending_choice']);
    expect(checkReasonsOfResult(result(90), 80)).toEqual([]);
    expect(simOptionsOfResult(result(90, true))).toEqual(['0901210010', '0901210020']);
  });

  it('never asks again about a verdict a person approved, nor without a threshold', () => {
    expect(checkReasonsOfResult({ ...result(40, true), check: 'approved' }, 80)).toEqual([]);
    expect(checkReasonsOfResult(result(40, true), undefined)).toEqual([]);
  });

  it('asks about a verdict an earlier batch marked and nobody decided', () => {
    expect(checkReasonsOfResult({ ...result(40), check: 'to_check' }, 80)).toEqual(['low_confidence']);
  });

  it('names no low confidence for a result without a confidence', () => {
    const { confidence: _none, ...withoutConfidence } = result(40);
    expect(checkReasonsOfResult(withoutConfidence, 80)).toEqual([]);
  });
});

describe('withCheckMark', () => {
  const base = resolvedResult(verdict(40), { currentNcm: null, verdictPdf: null });

  it('marks a waiting verdict, keeps an approved one, and drops an earlier batch’s mark', () => {
    expect(withCheckMark(base, ['low_confidence']).check).toBe('to_check');
    expect(withCheckMark({ ...base, check: 'approved' }, ['low_confidence']).check).toBe('approved');
    expect(withCheckMark({ ...base, check: 'to_check' }, [])).not.toHaveProperty('check');
  });
});

describe('rationaleLead', () => {
  it('keeps a short rationale whole, its lines joined', () => {
    expect(rationaleLead('Primeira linha.\n\n  Segunda linha.  ')).toBe('Primeira linha. Segunda linha.');
  });

  it('cuts after the last sentence that ends within the limit', () => {
    const sentence = 'Esta frase tem exatamente algumas palavras para encher o texto. ';
    const text = sentence.repeat(20);
    const lead = rationaleLead(text);
    expect(lead.length).toBeLessThanOrEqual(RATIONALE_MAX_CHARS);
    expect(lead.endsWith('texto.')).toBe(true);
    expect(text.startsWith(lead)).toBe(true);
    expect(lead.length).toBeGreaterThan(RATIONALE_MAX_CHARS - sentence.length);
  });

  it('cuts a first sentence longer than the limit at a word, with an ellipsis', () => {
    const lead = rationaleLead('palavra '.repeat(100));
    expect(lead.length).toBeLessThanOrEqual(RATIONALE_MAX_CHARS);
    expect(lead).toMatch(/palavra…$/);
  });
});

describe('checkItemOfClassification', () => {
  it('gives the candidates best first with the chosen one marked, and the SIM openings to choose from', () => {
    // Act
    const item = checkItemOfClassification(verdict(60, true), ROW, 'pdfs/00004-CAF-4.pdf', {
      reasons: ['low_confidence', 'sim_pending_choice'],
      checkBelow: 80,
      followers: 2,
      now: NOW,
    });

    // Assess
    expect(CheckItem.parse(item)).toEqual(item);
    expect(item).toEqual({
      batch_id: 'nightly-1',
      row: 4,
      classification_id: CLS_ID,
      product_key: 'sku:CAF-4',
      fingerprint: 'fp-4',
      sku: 'CAF-4',
      description: 'Café torrado em grãos, embalagem de 1 kg',
      title: 'Café torrado em grãos',
      operation: 'import',
      country: 'CO',
      reasons: ['low_confidence', 'sim_pending_choice'],
      check_below: 80,
      ncm: '09012100',
      confidence: 60,
      candidates: [
        {
          rank: 1,
          ncm: '09012100',
          description: 'Não descafeinado',
          confidence: 60,
          rationale: 'Café torrado, não descafeinado: posição 09.01, subposição 0901.21.',
          chosen: true,
        },
        {
          rank: 2,
          ncm: '09012200',
          description: 'Descafeinado',
          confidence: 20,
          rationale: 'Menos provável.',
          chosen: false,
        },
      ],
      sim_options: [
        { code: '0901210010', description: 'Em grão' },
        { code: '0901210020', description: 'Moído' },
      ],
      verdict_pdf: 'pdfs/00004-CAF-4.pdf',
      followers: 2,
      state: 'to_check',
      created_at: NOW.toISOString(),
    });
  });

  it('offers no SIM openings when none waits for a choice', () => {
    const item = checkItemOfClassification(verdict(60), ROW, null, {
      reasons: ['low_confidence'],
      checkBelow: 80,
      followers: 0,
      now: NOW,
    });
    expect(item.sim_options).toEqual([]);
    expect(item.verdict_pdf).toBeNull();
  });
});

describe('checkItemOfResult', () => {
  it('reads the alternatives column as candidates', () => {
    expect(alternativesOfResult('8482.10.90 (35%); 8482.80.00 (12%)')).toEqual([
      { ncm: '84821090', confidence: 35 },
      { ncm: '84828000', confidence: 12 },
    ]);
    expect(alternativesOfResult('')).toEqual([]);
    expect(alternativesOfResult('garbage; 8482.80.00')).toEqual([{ ncm: '84828000', confidence: null }]);
  });

  it('makes the candidates from the columns, described by the table, without rationale', () => {
    // Prepare: a reused verdict, its PDF still under the batch that made it
    const result = {
      ...resolvedResult(verdict(55, true), { currentNcm: null, verdictPdf: null }),
      status: 'reused' as const,
      verdict_pdf: 'outbox/nightly-0/pdfs/00009-CAF-4.pdf',
    };
    const table: Record<string, string> = { '09012200': 'Café — Descafeinado' };

    // Act
    const item = checkItemOfResult(result, ROW, (ncm) => table[ncm] ?? '', {
      reasons: checkReasonsOfResult(result, 80),
      checkBelow: 80,
      followers: 0,
      now: NOW,
    });

    // Assess
    expect(CheckItem.parse(item)).toEqual(item);
    expect(item).toMatchObject({
      classification_id: CLS_ID,
      reasons: ['low_confidence', 'sim_pending_choice'],
      ncm: '09012100',
      confidence: 55,
      candidates: [
        {
          rank: 1,
          ncm: '09012100',
          description: 'Não descafeinado',
          confidence: 55,
          rationale: '',
          chosen: true,
        },
        {
          rank: 2,
          ncm: '09012200',
          description: 'Café — Descafeinado',
          confidence: 20,
          rationale: '',
          chosen: false,
        },
      ],
      sim_options: [
        { code: '0901210010', description: '' },
        { code: '0901210020', description: '' },
      ],
      verdict_pdf: reusedPdfRelative('outbox/nightly-0/pdfs/00009-CAF-4.pdf'),
      state: 'to_check',
    });
    expect(item.verdict_pdf).toBe('pdfs/nightly-0/00009-CAF-4.pdf');
  });
});
