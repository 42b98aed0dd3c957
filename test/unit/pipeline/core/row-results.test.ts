import { describe, expect, it } from 'vitest';
import { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import {
  abandonedResult,
  currentNcmMatches,
  decimalText,
  errorResult,
  failedResult,
  notSubmittedResult,
  pendingResult,
  questionsText,
  resolvedResult,
} from '../../../../shared/pipeline/core/row-results.js';
import { Classification } from '../../../../shared/tcs/schemas.js';
import { message, wordDetail } from '../../../../shared/wording/index.js';
import {
  CLS_ID,
  candidate,
  exportTariff,
  failedClassification,
  importTariff,
  pendingClassification,
  resolvedClassification,
  tariffNotFound,
} from '../../../helpers/tcs-fixtures.js';

const parse = (value: unknown): Classification => Classification.parse(value);
const noCtx = { currentNcm: null, verdictPdf: null };

describe('resolvedResult', () => {
  it('writes the verdict, its chosen candidate, import tariffs and the price', () => {
    const c = parse(
      resolvedClassification({
        candidates: [
          candidate(),
          candidate({ rank: 2, ncm: '09012200', confidence: 31, confidence_band: 'low' }),
          candidate({ rank: 3, ncm: '21011100', confidence: 8, confidence_band: 'low' }),
        ],
        tariffs: { ...importTariff(), import_duty_applicable: 0.1 + 0.2, statistical_rate: 1e-7, aec: 14 },
      }),
    );

    const result = resolvedResult(c, { currentNcm: '0901.21.00', verdictPdf: 'pdfs/00001-CAF-1.pdf' });

    expect(RowResult.parse(result)).toEqual(result);
    expect(result).toEqual({
      status: 'resolved',
      classification_id: CLS_ID,
      title: 'Café torrado em grãos',
      ncm: '0901.21.00',
      ncm_description: 'Não descafeinado',
      sim_code: '0901.21.00.10',
      confidence: '92',
      confidence_band: 'high',
      alternatives: '0901.22.00 (31%); 2101.11.00 (8%)',
      import_duty_applicable: '0.3',
      duty_kind: 'extrazone',
      statistical_rate: '0.0000001',
      aec: '14',
      tariff_source: 'TEC',
      verdict_pdf: 'pdfs/00001-CAF-1.pdf',
      current_ncm_matches: 'yes',
      cost_usd: '2.00',
    });
  });

  it('takes the candidate named by chosen_ncm, not merely the first one', () => {
    const c = parse(
      resolvedClassification({
        candidates: [candidate(), candidate({ rank: 2, ncm: '09012200', description: 'Descafeinado' })],
        chosen_ncm: '09012200',
      }),
    );
    const result = resolvedResult(c, noCtx);
    expect(result.ncm).toBe('0901.22.00');
    expect(result.ncm_description).toBe('Descafeinado');
    expect(result.alternatives).toBe('0901.21.00 (92%)');
  });

  it('writes export tariffs, and leaves a null aec empty', () => {
    const exported = resolvedResult(parse(resolvedClassification({ tariffs: exportTariff() })), noCtx);
    expect(exported).toMatchObject({ export_duty: '0', export_refund: '0', tariff_source: 'TEC' });
    expect(exported.import_duty_applicable).toBeUndefined();

    const imported = resolvedResult(parse(resolvedClassification()), noCtx);
    expect(imported.aec).toBeUndefined();
    expect(imported.import_duty_applicable).toBe('10');
  });

  it('says when tariffs were not found or the SIM opening is still to be chosen', () => {
    const c = parse(
      resolvedClassification({
        tariffs: tariffNotFound(),
        chosen_sim_code: null,
        candidates: [
          candidate({
            sim: {
              status: 'pending_choice',
              code: null,
              options: [
                { code: '0901210010', description: 'Em grão' },
                { code: '0901210020', description: 'Moído' },
              ],
              verified_at: '2026-11-21T12:00:00Z',
            },
          }),
        ],
      }),
    );
    const result = resolvedResult(c, noCtx);
    expect(result.sim_code).toBeUndefined();
    expect(result.tariff_source).toBe('TEC');
    expect(result.detail).toContain('0901.21.00.10, 0901.21.00.20');
    expect(result.detail).toContain('tariffs not found (no_data)');
  });

  it('compares the ERP’s NCM by its digits, restoring a lost leading zero', () => {
    expect(currentNcmMatches('0901.21.00', '09012100')).toBe('yes');
    expect(currentNcmMatches('9012100', '09012100')).toBe('yes');
    expect(currentNcmMatches('0901.22.00', '09012100')).toBe('no');
    expect(currentNcmMatches('café', '09012100')).toBe('');
    expect(currentNcmMatches(null, '09012100')).toBe('');
    const c = parse(resolvedClassification());
    expect(resolvedResult(c, { currentNcm: '8471.30.12', verdictPdf: null }).current_ncm_matches).toBe('no');
  });

  it('puts the web app link in when the caller has it', () => {
    const url = `https://app.example.test/classifications/${CLS_ID}`;
    expect(resolvedResult(parse(resolvedClassification()), { ...noCtx, appUrl: url }).app_url).toBe(url);
  });
});

describe('decimalText', () => {
  it.each([
    [14, '14'],
    [0, '0'],
    [-0, '0'],
    [2.5, '2.5'],
    [1234567.125, '1234567.125'],
    [1e-7, '0.0000001'],
    [1e21, '1000000000000000000000'],
    [null, ''],
    [Number.NaN, ''],
  ])('%s → %s', (value, text) => {
    expect(decimalText(value)).toBe(text);
  });
});

describe('pendingResult', () => {
  it('lists the questions readably and names a provisional proposal only in detail', () => {
    const c = parse(pendingClassification());
    const result = pendingResult(c);
    expect(RowResult.parse(result)).toEqual(result);
    expect(result.status).toBe('pending_data');
    expect(result.questions).toBe('O café é descafeinado? (Sim / Não) | Qual a embalagem?');
    expect(result.detail).toContain('2 questions');
    expect(result.detail).toContain('provisional proposal 0901.21.00 (55%)');
    expect(result.ncm).toBeUndefined();
    expect(result.cost_usd).toBe('0.00');
    expect(result.classification_id).toBe(CLS_ID);
  });

  it('says nothing of a proposal when there is none', () => {
    const c = parse(pendingClassification({ candidates: [], candidates_are_provisional: false }));
    expect(pendingResult(c).detail).not.toContain('provisional');
    expect(questionsText([{ id: 'q', text: 'Qual o material?', options: [] }])).toBe('Qual o material?');
  });
});

describe('results without a verdict', () => {
  it('failed carries the failure_reason and costs nothing', () => {
    const result = failedResult(parse(failedClassification({ failure_reason: 'no_valid_candidates' })));
    expect(result).toMatchObject({
      status: 'failed',
      reason: 'no_valid_candidates',
      detail: 'the service could not classify the product: no candidate NCM fitted; not billed',
      detail_messages: [{ code: 'failed', params: { reason: 'no_valid_candidates' } }],
      classification_id: CLS_ID,
      cost_usd: '0.00',
    });
    // The workbooks and the page word it in their reader's language; results.csv keeps the English.
    expect(wordDetail(result, 'pt')).toBe(
      'o serviço não conseguiu classificar o produto: nenhuma NCM candidata serviu; sem cobrança',
    );
    expect(wordDetail(result, 'es')).toBe(
      'el servicio no pudo clasificar el producto: ninguna NCM candidata sirvió; sin cargo',
    );
  });

  it('abandoned, error and not_submitted', () => {
    const abandoned = abandonedResult(parse(pendingClassification({ status: 'abandoned', questions: [] })));
    expect(abandoned).toMatchObject({ status: 'abandoned', classification_id: CLS_ID, cost_usd: '0.00' });

    const error = errorResult('it broke', { classification_id: CLS_ID, status: 'resolved', detail: 'no' });
    expect(error).toEqual({
      status: 'error',
      detail: 'it broke',
      detail_messages: [{ code: 'row_error', params: { text: 'it broke' } }],
      classification_id: CLS_ID,
      cost_usd: '0.00',
    });

    const stopped = message('not_submitted', {
      reason: 'plan-without-api',
      text: 'El plan no incluye la API',
    });
    expect(notSubmittedResult('plan-without-api', stopped)).toEqual({
      status: 'not_submitted',
      reason: 'plan-without-api',
      detail: 'El plan no incluye la API',
      detail_messages: [stopped],
      cost_usd: '0.00',
    });
    for (const result of [abandoned, error]) expect(RowResult.parse(result)).toEqual(result);
  });
});
