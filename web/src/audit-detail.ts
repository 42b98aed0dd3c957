/**
 * An audit event's detail in the page's language. audit.csv keeps each detail in steady English
 * for machines (`NCM 0901.21.00, 62 %`, `confidence 62 %, SIM opening to choose`, `1 question`,
 * `2 answers, round …`, `row 3`, `SIM to choose: …`, `no SIM opening`, `sheet x.pdf, operation export`:
 * shared/pipeline/core/
 * audit-events.ts and the SIM sweep); the page words each known part and keeps codes as they are.
 */
import type { TFunction } from 'i18next';
import { reasonName } from '../../shared/console/web-contract.js';
import { formatPercent } from './format.js';
import type { Language } from './lang.js';

const PARTS: readonly [RegExp, (t: TFunction, match: RegExpMatchArray, language: Language) => string][] = [
  [
    /^confidence (\d+) %$/,
    (t, m, language) => t('audit.detail.confidence', { n: formatPercent(language, Number(m[1])) }),
  ],
  // A percentage written as the page writes every other (62%, 62 %): one format in each language.
  [/^(\d+) %$/, (_t, m, language) => formatPercent(language, Number(m[1]))],
  [/^SIM opening to choose$/, (t) => t('audit.detail.simToChoose')],
  [/^SIM to choose: (.+)$/, (t, m) => t('audit.detail.simOptions', { codes: m[1] })],
  [/^no SIM opening$/, (t) => t('audit.detail.noSim')],
  [/^(\d+) questions?$/, (t, m) => t('audit.detail.questions', { count: Number(m[1]), n: m[1] })],
  [/^(\d+) answers?$/, (t, m) => t('audit.detail.answers', { count: Number(m[1]), n: m[1] })],
  [/^round (.+)$/, (t, m) => t('audit.detail.round', { id: m[1] })],
  [/^answers posted$/, (t) => t('audit.detail.answersPosted')],
  [/^row (\d+)$/, (t, m) => t('audit.detail.row', { row: m[1] })],
  // What a person changed when sending a row again (audit.csv's `resent`).
  [/^sheet (.+\.pdf)$/i, (t, m) => t('audit.detail.newSheet', { name: m[1] })],
  [
    /^operation (import|export)$/,
    (t, m) => t('audit.detail.operation', { operation: t(`resend.operations.${m[1]}`) }),
  ],
  [/^country (.+)$/, (t, m) => t('audit.detail.country', { country: m[1] })],
  [/^description changed$/, (t) => t('audit.detail.descriptionChanged')],
  [/^as it was$/, (t) => t('audit.detail.asItWas')],
];

/** A row's reason code (`operation_missing`, `unreadable_pdf`): a not_sent or failed event's detail. */
const REASON_CODE = /^[a-z]+(?:_[a-z0-9]+)+$/;

/** The detail's parts (`, ` between them, as the log writes them), each worded when it is known; a reason code named in words. */
export const auditDetailWords = (t: TFunction, language: Language, detail: string): string =>
  detail
    .split(', ')
    .map((part) => {
      for (const [pattern, word] of PARTS) {
        const match = part.match(pattern);
        if (match) return word(t, match, language);
      }
      return REASON_CODE.test(part) ? reasonName(part, language) : part;
    })
    .join(', ');
