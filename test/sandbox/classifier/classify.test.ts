import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../local/sandbox/classifier/catalogue.js';
import type { Verdict } from '../../../local/sandbox/classifier/contract.js';
import { sandboxClassifier } from '../../../local/sandbox/classifier/index.js';
import { described, expectPending, expectResolved, expectValidVerdict, input, NOW } from './helpers.js';

const { classify } = sandboxClassifier;

/** The sample tables of the user documentation, so the documentation cannot drift. */
const docTable = (heading: string): string[][] => {
  const markdown = readFileSync(
    new URL('../../../local/sandbox/classifier/TRIGGERS.md', import.meta.url),
    'utf8',
  );
  const section = markdown.split(`## ${heading}`)[1]!.split('\n## ')[0]!;
  return section
    .split('\n')
    .filter((line) => line.startsWith('| ') && !line.startsWith('| Description') && !line.startsWith('|---'))
    .map((line) =>
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    );
};
const RESOLVING = docTable('Descriptions that resolve');
const VAGUE = docTable('Descriptions that ask questions').map(([description]) => description!);

describe('classify: clear descriptions', () => {
  it('documents at least 30 resolving and 5 vague samples', () => {
    expect(RESOLVING.length).toBeGreaterThanOrEqual(30);
    expect(VAGUE.length).toBeGreaterThanOrEqual(5);
  });

  it.each(RESOLVING)('resolves "%s" to %s', (description, ncm) => {
    for (const seed of ['a', 'b']) {
      const verdict = classify(described(description, { seed }));
      expectResolved(verdict);
      expect(verdict.chosen_ncm).toBe(ncm);
    }
  });

  it.each([
    ['café torrado em grãos', 'café tostado en grano', 'roasted coffee beans', '09012100'],
    ['rolamento de esferas 6204', 'rodamiento de bolas 6204', 'ball bearing 6204', '84821010'],
    ['camiseta de algodão', 'remera de algodón', 'cotton t-shirt', '61091000'],
    ['pneu para caminhão', 'neumático para camión', 'truck tyre', '40112090'],
    ['escova de dentes', 'cepillo de dientes', 'toothbrush', '96032100'],
  ])('resolves "%s", "%s" and "%s" to the same NCM', (portuguese, spanish, english, ncm) => {
    for (const description of [portuguese, spanish, english]) {
      const verdict = classify(described(description));
      expectResolved(verdict);
      expect(verdict.chosen_ncm, description).toBe(ncm);
    }
  });

  it('ranks up to 3 candidates with decreasing confidence and official data', () => {
    const verdict = classify(described('Café arábica em grãos, sacas de 60 kg'));
    expectResolved(verdict);
    expect(verdict.candidates.map((candidate) => candidate.ncm)).toEqual(['09011110', '09012100']);
    const [first] = verdict.candidates;
    expect(first!.description).toBe('Café não torrado, não descafeinado, em grão');
    expect(first!.hierarchy.section).toEqual({ code: 'II', description: 'Produtos do reino vegetal' });
    expect(first!.rationale).toContain('Café verde em grão');
    expect(first!.rationale).toContain('Regras Gerais de Interpretação aplicadas: 1, 6');
    expect(first!.applied_rules).toEqual(['1', '6']);
  });

  it('reads a negated exclusion as no exclusion ("não descafeinado")', () => {
    const verdict = classify(described('Café torrado e moído, não descafeinado'));
    expectResolved(verdict);
    expect(verdict.chosen_ncm).toBe('09012100');
    const decaf = classify(described('Café torrado descafeinado em grãos'));
    expect(decaf.status === 'resolved' && decaf.chosen_ncm === '09012100').toBe(false);
  });

  it('returns the tariffs of the chosen NCM for the operation and country', () => {
    const fromBrazil = classify(described('Rolamento de esferas 6204', { country: 'BR' }));
    expectResolved(fromBrazil);
    expect(fromBrazil.tariffs).toMatchObject({
      found: true,
      duty_kind: 'intrazone',
      import_duty_applicable: 0,
    });
    const fromChina = classify(described('Rolamento de esferas 6204', { country: 'CN' }));
    expectResolved(fromChina);
    expect(fromChina.tariffs).toMatchObject({
      found: true,
      duty_kind: 'extrazone',
      queried_at: NOW.toISOString(),
    });
    const exported = classify(described('Soja em grão a granel', { operation: 'export' }));
    expectResolved(exported);
    expect(exported.tariffs).toMatchObject({ found: true, operation: 'export', export_duty: 26 });
  });

  it('reaches every natural SIM status of a candidate from the catalogue', () => {
    const statuses = new Set(
      CATALOGUE.map((entry) => {
        const verdict = classify(described(entry.productName));
        expectResolved(verdict);
        return verdict.candidates[0]!.sim.status;
      }),
    );
    expect([...statuses].sort()).toEqual(['auto_selected', 'none', 'pending_choice', 'verifying']);
  });
});

describe('classify: determinism', () => {
  it('gives deep-equal verdicts for the same input', () => {
    for (const description of ['Rolamento de esferas 6204', 'Peças diversas', 'Vinho tinto Malbec']) {
      expect(classify(described(description))).toEqual(classify(described(description)));
    }
  });

  it('ignores case and accents of the input when seeding', () => {
    expect(classify(described('CAFÉ TORRADO EM GRÃOS'))).toEqual(
      classify(described('cafe torrado em graos')),
    );
  });

  it('varies with the seed', () => {
    const outputs = ['s1', 's2', 's3', 's4', 's5', 's6'].map((seed) =>
      JSON.stringify(classify(described('Rolamento de esferas', { seed }))),
    );
    expect(new Set(outputs).size).toBeGreaterThan(1);
  });

  it('reads no clock: verified_at and queried_at are the given now', () => {
    const later = new Date('2027-01-02T03:04:05.000Z');
    const verdict = classify(described('Café torrado em grãos', { now: later }));
    expectResolved(verdict);
    expect(verdict.candidates[0]!.sim.verified_at).toBe(later.toISOString());
    expect(verdict.tariffs.queried_at).toBe(later.toISOString());
  });
});

describe('classify: vague descriptions and answers', () => {
  it.each(VAGUE)('asks 1 to 5 questions for "%s"', (description) => {
    for (const seed of ['a', 'b', 'c']) {
      const verdict = classify(described(description, { seed }));
      expectPending(verdict);
      expect(verdict.questions[0]!.id).toBe('q1');
      expect(verdict.questions[0]!.options.length).toBeGreaterThanOrEqual(4);
    }
  });

  it('offers parts as answers when the text speaks of parts', () => {
    const verdict = classify(described('Peças diversas'));
    expectPending(verdict);
    expect(verdict.questions[0]!.options).toContain('Rolamento de esferas');
  });

  it('sometimes adds a provisional proposal to the questions', () => {
    const verdicts = ['a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'].map((seed) =>
      classify(described('Kit de ferramentas', { seed })),
    );
    for (const verdict of verdicts) expectPending(verdict);
    const provisional = verdicts.filter(
      (verdict) => verdict.status === 'pending_data' && verdict.provisional.length > 0,
    );
    expect(provisional.length).toBeGreaterThan(0);
    expect(provisional.length).toBeLessThan(verdicts.length);
  });

  it.each(VAGUE)('resolves "%s" to the entry of each offered option', (description) => {
    const verdict = classify(described(description));
    expectPending(verdict);
    const [productQuestion] = verdict.questions;
    for (const option of productQuestion!.options) {
      const answered = classify(
        described(description, {
          answers: [
            { question_id: productQuestion!.id, question_text: productQuestion!.text, answer: option },
          ],
        }),
      );
      expectResolved(answered);
      expect(answered.title).toBe(option);
      expect(answered.candidates[0]!.rationale).toContain('respostas');
    }
  });

  it('answers with every offered question still resolve', () => {
    const verdict = classify(described('Peças diversas [sandbox:ask=5]'));
    expectPending(verdict);
    const answers = verdict.questions.map((question) => ({
      question_id: question.id,
      question_text: question.text,
      answer: question.options[0] ?? 'Uso industrial',
    }));
    const answered = classify(described('Peças diversas [sandbox:ask=5]', { answers }));
    expectResolved(answered);
    expect(answered.title).toBe(verdict.questions[0]!.options[0]);
  });

  it('never returns pending_data once answers are given', () => {
    const answers = [{ question_id: 'q1', question_text: 'Qual é o produto?', answer: 'não sei dizer' }];
    for (const description of [...VAGUE, 'Rolamento [sandbox:ask]', 'Peças [sandbox:ask-provisional]']) {
      for (const seed of ['a', 'b', 'c']) {
        const verdict = classify(described(description, { answers, seed }));
        expectValidVerdict(verdict);
        expect(verdict.status, description).toBe('resolved');
      }
    }
  });

  it('answers that name nothing known give a low-confidence guess', () => {
    const answers = [{ question_id: 'q1', question_text: 'Qual é o produto?', answer: 'xyzzy' }];
    const verdict = classify(described('Produto importado da China', { answers }));
    expectResolved(verdict);
    expect(verdict.candidates).toHaveLength(1);
    expect(verdict.candidates[0]!.confidence_band).toBe('low');
    expect(verdict.candidates[0]!.missing_data[0]).toBe('Descrição detalhada do produto');
  });

  it.each(CATALOGUE.map((entry) => [entry.productName, entry.ncm]))(
    'resolves a vague row answered "%s" to %s, whatever the description excluded',
    (productName, ncm) => {
      const answers = [
        { question_id: 'q1', question_text: 'Qual é exatamente o produto?', answer: productName },
      ];
      const verdict = classify(described('Peças de motor', { answers }));
      expectResolved(verdict);
      expect(verdict.chosen_ncm).toBe(ncm);
    },
  );

  it('lets a free-text answer name the product', () => {
    const answers = [
      { question_id: 'q1', question_text: 'Qual é o produto?', answer: 'são rolamentos de esferas' },
    ];
    const verdict = classify(described('Peças diversas', { answers }));
    expectResolved(verdict);
    expect(verdict.chosen_ncm).toBe('84821010');
  });
});

describe('classify: sheets', () => {
  const sheet = 'FICHA TÉCNICA\nProduto: rolamento rígido de esferas 6204-2RS\nDiâmetro interno: 20 mm';

  it('classifies a sheet without description from its text', () => {
    const verdict = classify(input({ description: null, sheetText: sheet }));
    expectResolved(verdict);
    expect(verdict.chosen_ncm).toBe('84821010');
  });

  it('fails unreadable_pdf for a sheet without text layer and no description', () => {
    expect(classify(input({ description: null, sheetText: '' }))).toEqual({
      status: 'failed',
      failure_reason: 'unreadable_pdf',
    });
  });

  it('uses the description when the sheet has no text layer', () => {
    const verdict = classify(input({ description: 'Óculos de sol polarizados', sheetText: '' }));
    expectResolved(verdict);
    expect(verdict.chosen_ncm).toBe('90041000');
  });

  it('combines description and sheet', () => {
    const verdict = classify(input({ description: 'Peças diversas, ver ficha', sheetText: sheet }));
    expectResolved(verdict);
    expect(verdict.chosen_ncm).toBe('84821010');
  });
});

describe('classify: every output satisfies the schemas', () => {
  it('holds for a broad corpus of inputs', () => {
    const descriptions = [
      ...CATALOGUE.map((entry) => entry.productName),
      ...RESOLVING.map(([description]) => description!),
      ...VAGUE,
    ];
    const verdicts: Verdict[] = [];
    for (const description of descriptions) {
      for (const operation of ['import', 'export'] as const) {
        for (const country of ['AR', 'US']) {
          verdicts.push(
            classify(described(description, { operation, country, seed: `${operation}-${country}` })),
          );
        }
      }
    }
    for (const verdict of verdicts) expectValidVerdict(verdict);
    expect(new Set(verdicts.map((verdict) => verdict.status))).toEqual(new Set(['resolved', 'pending_data']));
  });
});
