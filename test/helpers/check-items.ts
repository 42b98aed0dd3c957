/** Check items (core/check-records.ts) as Store or Prepare writes them: a verdict under 90 % by default. */
import { CheckItem } from '../../shared/pipeline/core/check-records.js';
import { BATCH, classificationId } from './records.js';

export const checkItem = (row: number, overrides: Partial<CheckItem> = {}): CheckItem =>
  CheckItem.parse({
    batch_id: BATCH,
    row,
    classification_id: classificationId(row),
    product_key: `sku:SKU-${row}`,
    fingerprint: `fp-${row}`,
    sku: `SKU-${row}`,
    description: 'Notebook 14", 16 GB; uso profissional',
    title: 'Computador portátil',
    operation: 'import',
    country: 'BR',
    reasons: ['low_confidence'],
    check_below: 90,
    ncm: '84713012',
    confidence: 72,
    candidates: [
      {
        rank: 1,
        ncm: '84713012',
        description: 'Portáteis com peso inferior a 3,5 kg',
        confidence: 72,
        rationale: 'Tela de 14 polegadas; bateria própria.',
        chosen: true,
      },
      {
        rank: 2,
        ncm: '84713019',
        description: 'Outros portáteis',
        confidence: 21,
        rationale: '',
        chosen: false,
      },
    ],
    sim_options: [],
    verdict_pdf: `pdfs/${row}-verdict.pdf`,
    followers: 0,
    state: 'to_check',
    created_at: '2026-11-21T12:00:00.000Z',
    ...overrides,
  });
