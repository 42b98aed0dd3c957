/**
 * An audit event's detail on the page: audit.csv keeps it in steady English for machines, the page
 * words each known part in the reader's language, names a row's reason in words, and keeps the codes
 * (NCM, SIM, percentages).
 */
import { createInstance } from 'i18next';
import { describe, expect, it } from 'vitest';
import { auditDetailWords } from '../../../web/src/audit-detail.js';
import { formatPercent } from '../../../web/src/format.js';
import { en } from '../../../web/src/locales/en.js';
import { es } from '../../../web/src/locales/es.js';
import { pt } from '../../../web/src/locales/pt.js';

const translator = async (lng: 'pt' | 'es' | 'en') => {
  const i18n = createInstance();
  await i18n.init({
    lng,
    resources: { pt: { translation: pt }, es: { translation: es }, en: { translation: en } },
    interpolation: { escapeValue: false },
  });
  return i18n.t;
};

describe('an audit detail on the page', () => {
  it('words every known part in Portuguese, Spanish and English, and keeps the codes', async () => {
    const [tPt, tEs, tEn] = await Promise.all([translator('pt'), translator('es'), translator('en')]);

    expect(auditDetailWords(tPt, 'pt', 'confidence 62 %, SIM opening to choose')).toBe(
      'confiança de 62%, destaque SIM a escolher',
    );
    expect(auditDetailWords(tEs, 'es', '1 question')).toBe('1 pregunta');
    expect(auditDetailWords(tPt, 'pt', '2 answers, round b-1~abc')).toBe('2 respostas, rodada b-1~abc');
    expect(auditDetailWords(tEs, 'es', 'SIM to choose: 3304.99.10.01, 3304.99.10.02')).toBe(
      'aperturas SIM a elegir: 3304.99.10.01, 3304.99.10.02',
    );
    expect(auditDetailWords(tPt, 'pt', 'row 3')).toBe('linha 3');
    expect(auditDetailWords(tEn, 'en', 'no SIM opening')).toBe('no SIM opening');
    // An NCM stays as the log has it; a percentage is written as the page writes every other.
    expect(auditDetailWords(tPt, 'pt', 'NCM 0901.21.00, 62 %')).toBe('NCM 0901.21.00, 62%');
    expect(auditDetailWords(tEs, 'es', 'NCM 0901.21.00, 62 %')).toBe(
      `NCM 0901.21.00, ${formatPercent('es', 62)}`,
    );
    // A row's reason is named in words, a reason the service adds later kept as it names it.
    expect(auditDetailWords(tEs, 'es', 'no_valid_candidates')).toBe('ninguna NCM candidata sirvió');
    expect(auditDetailWords(tPt, 'pt', 'operation_missing')).toBe('sem operação');
    expect(auditDetailWords(tEn, 'en', 'budget_exceeded')).toBe('past the budget');
    expect(auditDetailWords(tPt, 'pt', 'brand_new_reason')).toBe('brand_new_reason');
  });
});
