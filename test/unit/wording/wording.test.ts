import { describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../../shared/spreadsheet/header-language.js';
import { REJECTION_REASONS, SPREADSHEET_ERROR_CODES } from '../../../shared/spreadsheet/schemas.js';
import { message, PHRASE_TABLES, PHRASES, wordMessage } from '../../../shared/wording/index.js';
import { Message, ShownMessage, StoredMessage } from '../../../shared/wording/message.js';
import { FILE_REFUSAL_PHRASES } from '../../../shared/wording/problems.js';

/** Parameters every entry's wording can take: each field any entry reads, filled. */
const SAMPLE_PARAMS = {
  // The notices'.
  link: 's3://bucket/outbox/lote-1/',
  rows_total: 120,
  resolved: 100,
  pending: 12,
  without: 8,
  billed: '200.00',
  days_left: 9,
  until: '2026-12-21',
  header: 'Descrição',
  operation: 'import',
  country: 'CN',
  own_operation: 'export',
  own_country: 'BR',
  looked_up: true,
  sheet_header: 'Ficha',
  letter: 'C',
  sheet_letter: 'D',
  value: 'xyz',
  length: 5001,
  limit: 5000,
  code: 'ZZ',
  default: 'ZZ',
  why: 'outside',
  folder: 'inbox/lote/',
  size_bytes: 12 * 1024 * 1024,
  limit_bytes: 10 * 1024 * 1024,
  examples: ['a.pdf', 'b.pdf'],
  count: 3,
  first_row: 2,
  example: '9012100',
  rows: [2, 5, 9],
  total: 3,
  names: ['a.pdf', 'b.pdf'],
  more_names: false,
  alone_rows: [5],
  alone_total: 1,
  file: 'produtos.csv',
  line: 4,
  row: 3,
  cells: 5,
  columns: ['A', 'B'],
  extra: ['x'],
  first: 'Plan1',
  others: ['Plan2'],
  more: 10,
  key: 'inbox/lote/produtos.csv',
  reason: 'too_many_rows',
  text: 'some English sentence',
  items: 14,
  codes: ['1513.21.10', '8517.12.31'],
  more_codes: 0,
  as_of: '2026-07-05',
  act: 'Resolução Gecex nº 812/2025',
  registers: ['C100', 'C170'],
  counts: [5000, 12000],
  invoices: 2,
  skipped: ['01-cancelamento.xml'],
  invoice: '35261012345678000195550010000015201100001520',
  part: '01.xml',
  name: 'A DESIGNAR',
  max_usd: 10,
  covered: 8,
  field: 'TIPO_ITEM',
  over: 2,
  error: 'States.Timeout',
  title: 'Forbidden',
  detail: 'the key was revoked',
  resumed: 1,
  of: 4,
  questions: 2,
  provisional: '0901.21.00 (60%)',
  fields: ['max_usd'],
  accepted: ['country', 'operation'],
  reused_usd: 12,
  identical_usd: 4,
  round_code: 'rows_unfinished',
  round_file: 'respostas.csv',
  code_point: 27,
  offset: 120,
  bytes: '0xE7',
  read_as: 'windows-1252',
  header_row: false,
  headers: ['Descrição', ''],
  letters: ['B', 'K'],
  more_columns: 0,
  sim_options: ['0901.21.00', '0901.22.00'],
  tariffs_reason: 'ncm_not_in_tec',
  no_text_layer: true,
  leader: 3,
  leader_status: 'resolved',
  date: '2026-11-20',
  batch: 'lote-abc',
  classification_id: 'cls_7KQ2M9XW4RTB',
  price: '2.00',
  ncm: '8471.30.12',
  sim: '8471.30.12.00',
  by: 'ana.revisora',
  given: 'cls_8MN3P4QR5ST6',
  expected: 'cls_7KQ2M9XW4RTB',
  table: '2026-07-05',
  options: ['8471.30.12.00', '8471.30.12.01'],
  first_line: 2,
  followers: 2,
  decided: 2,
  missing: ['decision_ncm'],
  at: '2026-11-27T10:00:00.000Z',
  to_check: 3,
  approved: 1,
  check_below: 80,
  reused: 2,
  // The answers report's.
  resent: 2,
  ids: ['q1', 'q2'],
  sheet: 'nova.pdf',
  abandons_at: '2026-12-21T12:00:00.000Z',
  id: 'cls_7KQ2M9XW4RTB',
  when: '2026-11-27T10:00:00.000Z',
  status: 'resolved',
  days: 30,
  deadline: '2026-12-21T12:00:00.000Z',
  now: 'cls_8MN3P4QR5ST6',
  other_round: true,
  changed: ['operation export', 'sheet nova.pdf'],
  cell_kinds: ['empty_id', 'not_asked', 'twice'],
  cell_ns: [1, 2, 3],
  cell_ids: ['', 'q9', 'q1'],
  cell_seconds: [0, 0, 4],
  known: ['q1', 'q2'],
  long_ids: ['q2'],
  long_lengths: [600],
  max: 500,
};

describe('the wording table', () => {
  const tables = Object.entries(PHRASE_TABLES);

  it('names each code in one area only', () => {
    const codes = tables.flatMap(([, table]) => Object.keys(table));
    expect(codes.length).toBeGreaterThan(20);
    expect(new Set(codes).size).toBe(codes.length);
  });

  it('words every rejection reason and every refusal of a file', () => {
    expect(Object.keys(PHRASE_TABLES.rejections).sort()).toEqual([...REJECTION_REASONS].sort());
    expect(Object.keys(FILE_REFUSAL_PHRASES).sort()).toEqual([...SPREADSHEET_ERROR_CODES].sort());
  });

  it.each(tables.filter(([area]) => area !== 'text'))(
    'words every %s code in pt, es and en, each its own',
    (_, table) => {
      for (const [code, phrase] of Object.entries(table)) {
        const worded = LANGUAGES.map((language) =>
          (phrase as Record<string, (p: unknown) => string>)[language]!(SAMPLE_PARAMS),
        );
        for (const sentence of worded) {
          expect(sentence, code).toMatch(/\p{L}{3}/u);
          expect(sentence, code).not.toMatch(/undefined|NaN|\[object/);
        }
        const [pt, es, en] = worded;
        // Portuguese and Spanish are their own sentences, not the English left in place.
        expect(pt, code).not.toBe(en);
        expect(es, code).not.toBe(en);
        expect(pt, code).not.toBe(es);
      }
    },
  );

  it('words a refusal of the file in each language, and in English as the reader wrote it', () => {
    for (const reason of SPREADSHEET_ERROR_CODES) {
      const refused = message('file_refused', {
        reason,
        file: 'produtos.csv',
        line: 4,
        text: 'produtos.csv: as read',
      });
      expect(wordMessage(refused, 'en')).toBe('produtos.csv: as read');
      expect(wordMessage(refused, 'pt')).toMatch(/^produtos\.csv, linha 4: /);
      expect(wordMessage(refused, 'es')).toMatch(/^produtos\.csv, línea 4: /);
    }
  });

  it('keeps no English word in a sample of Portuguese and Spanish sentences', () => {
    const english = /\b(the|and|column|rows?|not|is|has|with|file)\b/i;
    const samples = [
      message('description_too_short', { header: 'Descrição', length: 4, limit: 10 }),
      message('operation_missing', { header: 'operation', absent: true }),
      message('country_unknown', { header: 'País', default: 'ZZ', absent: false }),
      message('vague_descriptions', {
        header: 'Descrição',
        rows: [3, 7],
        total: 12,
        example: 'Peças diversas',
      }),
      message('leading_zero_lost', {
        header: 'NCM',
        letter: 'F',
        count: 1,
        first_row: 1,
        example: '9012100',
      }),
      message('rows_unfinished', { count: 2 }),
    ];
    for (const sample of samples) {
      expect(wordMessage(sample, 'pt'), sample.code).not.toMatch(english);
      expect(wordMessage(sample, 'es'), sample.code).not.toMatch(english);
    }
  });

  it('names rows in each language', () => {
    const vague = message('vague_descriptions', { header: 'D', rows: [1, 2, 3], total: 15, example: 'x' });
    expect(wordMessage(vague, 'pt')).toContain('linhas 1, 2, 3 e mais 12');
    expect(wordMessage(vague, 'es')).toContain('filas 1, 2, 3 y 12 más');
    expect(wordMessage(vague, 'en')).toContain('rows 1, 2, 3 and 12 more');
  });
});

describe('what a batch saved', () => {
  const saving = (reused_usd: number, identical_usd: number, language: 'pt' | 'es' | 'en') =>
    wordMessage(message('saving', { reused_usd, identical_usd }), language);

  it('names the saving by where it came from: earlier verdicts, identical rows of the file, or both', () => {
    expect(saving(150_698, 0, 'en')).toBe('saved $150,698.00 by reusing earlier verdicts');
    expect(saving(0, 150_698, 'en')).toBe('saved $150,698.00 by classifying identical rows once');
    expect(saving(6, 4, 'en')).toBe(
      'saved $10.00: $6.00 by reusing earlier verdicts and $4.00 by classifying identical rows once',
    );
    expect(saving(0, 0, 'en')).toBe('saved $0.00');
  });

  it('says it in Portuguese and Spanish with their money', () => {
    expect(saving(0, 150_698, 'pt')).toMatch(
      /^economizou US\$\s150\.698,00 classificando uma só vez as linhas idênticas$/,
    );
    expect(saving(2, 0, 'es')).toMatch(/^ahorró US\$\s2,00 reutilizando dictámenes anteriores$/);
  });
});

describe('messages as records keep them', () => {
  it('reads a sentence written before messages had codes as a text message, worded as written', () => {
    const legacy = StoredMessage.parse('Row 1 declares a 7-digit NCM');
    expect(legacy).toEqual({ code: 'text', params: { text: 'Row 1 declares a 7-digit NCM' } });
    expect(wordMessage(legacy, 'pt')).toBe('Row 1 declares a 7-digit NCM');
    expect(ShownMessage.parse('old')).toEqual({ code: 'text', params: { text: 'old' }, text: 'old' });
  });

  it('leaves out parameters that are undefined, so a record parses back', () => {
    const said = message('sheet_like_column', {
      header: 'Arquivo',
      letter: 'E',
      examples: ['a.pdf'],
      sheet_header: undefined,
    });
    expect(said.params).not.toHaveProperty('sheet_header');
    expect(Message.parse(JSON.parse(JSON.stringify(said)))).toEqual(said);
  });

  it('words a code it does not know by its text, else its code', () => {
    expect(wordMessage({ code: 'from_a_newer_version', params: { text: 'as sent' } }, 'es')).toBe('as sent');
    expect(wordMessage({ code: 'from_a_newer_version', params: {} }, 'es')).toBe('from_a_newer_version');
    expect(Object.keys(PHRASES)).toContain('text');
  });
});
