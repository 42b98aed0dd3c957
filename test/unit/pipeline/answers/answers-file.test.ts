/**
 * The answers round's first piece: a review.csv written by the batch (the real buildReviewCsv),
 * filled in by the test, saved again the way users' spreadsheet programs save it, then read and
 * planned row by row.
 */
import Papa from 'papaparse';
import { describe, expect, it, vi } from 'vitest';
import { encodeWindows1252 } from '../../../../sample-data/make-variants.js';
import {
  AnswersFile,
  AnswersFileError,
  readAnswersFile,
} from '../../../../shared/pipeline/answers/answers-file.js';
import {
  type AnswersOutcome,
  AnswersPlan,
  buildAnswersReportCsv,
  classificationsToLookUp,
  planAnswers,
} from '../../../../shared/pipeline/answers/plan-answers.js';
import { BatchOptions } from '../../../../shared/pipeline/core/batch-options-schema.js';
import { deriveAnswersKey } from '../../../../shared/pipeline/core/keys.js';
import type { ReviewItem } from '../../../../shared/pipeline/core/records.js';
import { buildReviewCsv } from '../../../../shared/pipeline/outbox/results-files.js';
import { reviewWorkbook } from '../../../../shared/pipeline/outbox/review-workbook.js';
import { SpreadsheetError } from '../../../../shared/spreadsheet/errors.js';
import { neutraliseFormula } from '../../../../shared/spreadsheet/write-csv.js';
import { thrown, xlsx, xlsxSheets } from '../../spreadsheet/fixtures.js';

const NOW = new Date('2026-11-21T12:00:00.000Z');
const streamBytes = async (stream: NodeJS.ReadableStream): Promise<Uint8Array> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return new Uint8Array(Buffer.concat(chunks));
};

// ---------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------

const AT = '2026-11-21T12:00:00.000Z';
const ABANDONS_AT = '2026-12-21T12:00:00.000Z';

const ID = {
  coffee: 'cls_7KQ2M9XW4RTB',
  bearing: 'cls_8MN3P4QR5ST6',
  valve: 'cls_9VW2XY3ZA4BC',
  glove: 'cls_2DE3FG4HJ5KM',
  hose: 'cls_3NP4QR5ST6VW',
} as const;

const QUESTIONS = {
  product: {
    id: 'q1',
    text: 'Qual é exatamente o produto? Escolha a opção mais próxima ou descreva-o com suas palavras.',
    options: ['Café torrado em grãos', 'Café solúvel'],
  },
  use: { id: 'q2', text: 'Qual é a função ou o uso principal do produto?', options: [] },
  material: {
    id: 'q4',
    text: 'De que material o produto é feito predominantemente?',
    options: ['Metal', 'Plástico', 'Borracha'],
  },
} as const;

const item = (
  overrides: Partial<ReviewItem> & Pick<ReviewItem, 'classification_id' | 'row'>,
): ReviewItem => ({
  batch_id: 'lote-abc123',
  sku: `SKU-${overrides.row}`,
  external_reference: `lote-abc123:${overrides.row}`,
  description: 'Produto de teste com descrição',
  questions: [
    { ...QUESTIONS.product, options: [...QUESTIONS.product.options] },
    { ...QUESTIONS.use, options: [] },
  ],
  provisional_ncm: '09012100',
  provisional_confidence: 42,
  abandons_at: ABANDONS_AT,
  state: 'pending',
  created_at: AT,
  ...overrides,
});

/** Five pending rows: two with two questions, one with three, one whose description is a formula. */
const ITEMS: readonly ReviewItem[] = [
  item({ classification_id: ID.coffee, row: 2, description: 'Café torrado; embalagem "premium" 1 kg' }),
  item({
    classification_id: ID.bearing,
    row: 5,
    sku: '=HYPERLINK("http://evil")',
    questions: [
      { ...QUESTIONS.product, options: [] },
      { ...QUESTIONS.use, options: [] },
      { ...QUESTIONS.material, options: [...QUESTIONS.material.options] },
    ],
  }),
  item({ classification_id: ID.valve, row: 7, provisional_ncm: null, provisional_confidence: null }),
  item({ classification_id: ID.glove, row: 9 }),
];

const itemsById = (items: readonly ReviewItem[]): ReadonlyMap<string, ReviewItem> =>
  new Map(items.map((entry) => [entry.classification_id, entry]));

/** The batch's review.csv as records, the way a spreadsheet program holds it after opening. */
const reviewRecords = (items: readonly ReviewItem[] = ITEMS): string[][] => {
  const text = buildReviewCsv(items, ',').toString('utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  return Papa.parse<string[]>(text.slice(1), { delimiter: ',', newline: '\r\n', skipEmptyLines: true }).data;
};

/** Types answers into the answer_N cells of the rows of the given classifications. */
const fill = (
  records: readonly string[][],
  answers: Readonly<Record<string, Readonly<Record<number, string>>>>,
  cells: Readonly<Record<string, Readonly<Record<string, string>>>> = {},
): string[][] => {
  const [header, ...rows] = records;
  const column = (name: string): number => {
    const index = header!.indexOf(name);
    expect(index, `review.csv has a "${name}" column`).toBeGreaterThanOrEqual(0);
    return index;
  };
  const idColumn = column('classification_id');
  return [
    [...header!],
    ...rows.map((row) => {
      const copy = [...row];
      const id = copy[idColumn]!;
      for (const [n, answer] of Object.entries(answers[id] ?? {})) copy[column(`answer_${n}`)] = answer;
      for (const [name, value] of Object.entries(cells[id] ?? {})) copy[column(name)] = value;
      return copy;
    }),
  ];
};

/** Excel pt-BR's "CSV (separado por vírgulas)": `;`, Windows-1252, CRLF, no BOM, quotes only where needed. */
const excelPtBr = (records: readonly string[][]): Buffer => {
  const field = (value: string): string =>
    /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
  return encodeWindows1252(records.map((cells) => `${cells.map(field).join(';')}\r\n`).join(''));
};

/** LibreOffice with "quote all text cells" and a tab separator: UTF-8 without a BOM, LF. */
const libreOfficeTabs = (records: readonly string[][]): Buffer =>
  Buffer.from(
    records.map((cells) => `${cells.map((cell) => `"${cell.replace(/"/g, '""')}"`).join('\t')}\n`).join(''),
    'utf8',
  );

/** Moves columns around and renames headers the way a user tidying the sheet might. */
const rearrange = (records: readonly string[][], order: readonly string[]): string[][] => {
  const header = records[0]!;
  const indexes = order.map((name) => header.indexOf(name));
  return records.map((row, r) =>
    indexes.map((index, i) => (index === -1 ? (r === 0 ? order[i]! : '') : row[index]!)),
  );
};

const COFFEE_ANSWERS = {
  1: 'Café torrado em grãos; embalagem "premium" com válvula, produção de exportação',
  2: '  Bebida: preparo por infusão  ',
};
const FORMULA_ANSWER = '=5 kg por caixa';

const statusesOf =
  (statuses: Readonly<Record<string, string | null>>, fallback: string | null = 'pending_data') =>
  (classificationId: string): string | null =>
    classificationId in statuses ? statuses[classificationId]! : fallback;

const outcomes = (plan: AnswersPlan): Record<string, AnswersOutcome> =>
  Object.fromEntries(plan.report.map((entry) => [`${entry.row}:${entry.classification_id}`, entry.outcome]));

const entryFor = (plan: AnswersPlan, classificationId: string) => {
  const entries = plan.report.filter((entry) => entry.classification_id === classificationId);
  expect(entries).toHaveLength(1);
  return entries[0]!;
};

const fileOf = async (records: readonly string[][], name = 'review.csv'): Promise<AnswersFile> =>
  readAnswersFile(excelPtBr(records), name);

// ---------------------------------------------------------------------------
// readAnswersFile
// ---------------------------------------------------------------------------

describe('readAnswersFile', () => {
  it('reads the filled review.csv back from the bytes buildReviewCsv wrote (UTF-8 with BOM, ",")', async () => {
    const records = fill(reviewRecords(), {
      [ID.coffee]: COFFEE_ANSWERS,
      [ID.bearing]: { 1: 'Rolamento de esferas', 2: 'Eixo de motor', 3: neutraliseFormula(FORMULA_ANSWER) },
    });
    const bytes = Buffer.from(`\uFEFF${Papa.unparse(records, { newline: '\r\n' })}\r\n`, 'utf8');

    const file = await readAnswersFile(bytes, 'review.csv');

    expect(AnswersFile.parse(file)).toEqual(file);
    expect(file).toMatchObject({ file_name: 'review.csv', format: 'csv', encoding: 'utf-8', delimiter: ',' });
    expect(file.rows.map((row) => [row.row, row.classification_id])).toEqual([
      [2, ID.coffee],
      [5, ID.bearing],
      [7, ID.valve],
      [9, ID.glove],
    ]);
    expect(file.rows[0]!.answers).toEqual([
      { n: 1, question_id: 'q1', answer: COFFEE_ANSWERS[1] },
      { n: 2, question_id: 'q2', answer: 'Bebida: preparo por infusão' },
    ]);
    // The writer neutralised the `=`; the reader takes the apostrophe off again.
    expect(file.rows[1]!.answers.map((cell) => cell.answer)).toEqual([
      'Rolamento de esferas',
      'Eixo de motor',
      FORMULA_ANSWER,
    ]);
    expect(file.rows[1]!.answers[2]!.question_id).toBe('q4');
    // A two-question row in a three-group file: the empty third group is not an answer.
    expect(file.rows[2]!.answers).toEqual([
      { n: 1, question_id: 'q1', answer: '' },
      { n: 2, question_id: 'q2', answer: '' },
    ]);
    expect(file.rows.every((row) => row.sheet === null)).toBe(true);
  });

  it('reads it back after Excel pt-BR saved it: ";", Windows-1252, CRLF, no BOM, quotes only where needed', async () => {
    const records = fill(
      reviewRecords(),
      {
        [ID.coffee]: COFFEE_ANSWERS,
        [ID.bearing]: { 1: 'Rolamento', 2: 'Motor elétrico', 3: neutraliseFormula(FORMULA_ANSWER) },
      },
      { [ID.coffee]: { sheet: 'Fichas\\café-premium.pdf' } },
    );
    const bytes = excelPtBr(records);
    // The premise of the test: a Windows-1252 file, `ç` as the single byte 0xE7, no BOM.
    expect(bytes.includes(Buffer.from('ção', 'utf8'))).toBe(false);
    expect(bytes.includes(Buffer.from([0xe7, 0xe3, 0x6f]))).toBe(true);
    expect(bytes.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);

    const file = await readAnswersFile(bytes, 'review (1).csv');

    expect(file).toMatchObject({ encoding: 'windows-1252', delimiter: ';', problems: [] });
    const coffee = file.rows.find((row) => row.classification_id === ID.coffee)!;
    expect(coffee.answers.map((cell) => cell.answer)).toEqual([
      COFFEE_ANSWERS[1],
      'Bebida: preparo por infusão',
    ]);
    expect(coffee.sheet).toBe('Fichas\\café-premium.pdf');
    const bearing = file.rows.find((row) => row.classification_id === ID.bearing)!;
    expect(bearing.answers.map((cell) => [cell.question_id, cell.answer])).toEqual([
      ['q1', 'Rolamento'],
      ['q2', 'Motor elétrico'],
      ['q4', FORMULA_ANSWER],
    ]);
  });

  it('reads a tab-separated, fully quoted UTF-8 file with LF, renamed headers and decomposed accents', async () => {
    const records = fill(reviewRecords(), {
      [ID.coffee]: { 1: 'Grão torrado'.normalize('NFD'), 2: 'Infusão' },
    });
    records[0] = records[0]!.map((name) =>
      name === 'classification_id'
        ? 'Classification ID'
        : name === 'answer_1'
          ? 'ANSWER 1 (resposta)'
          : name === 'question_1_id'
            ? 'Question-1-Id'
            : name === 'row'
              ? 'Row'
              : name,
    );

    const file = await readAnswersFile(libreOfficeTabs(records), 'review.csv');

    expect(file.delimiter).toBe('\t');
    const coffee = file.rows.find((row) => row.classification_id === ID.coffee)!;
    expect(coffee.row).toBe(2);
    // NFC: the same answer typed on a Mac and on Windows is one answer, with one answers key.
    expect(coffee.answers[0]).toEqual({ n: 1, question_id: 'q1', answer: 'Grão torrado'.normalize('NFC') });
    expect(coffee.answers[0]!.answer).not.toBe('Grão torrado'.normalize('NFD'));
  });

  it('finds its columns after the user reordered them, added their own and left empty rows at the end', async () => {
    const filled = fill(reviewRecords(), { [ID.valve]: { 1: 'Válvula de esfera', 2: 'Controle de fluxo' } });
    const records = rearrange(filled, [
      'answer_2',
      'Observação do comprador',
      'classification_id',
      'answer_1',
      'Código',
      'question_2_id',
      'description',
      'question_1_id',
      'row',
    ]);
    records[3]![1] = 'conferir com engenharia; urgente';
    records[3]![4] = 'VAL-77';
    // Spreadsheet programs number rows as they like: `7` can come back as `7,0`.
    records[3]![8] = '7,0';
    records.push(['', '', '', '', '', '', '', '', ''], ['', '', '', '', '', '', '', '', '']);

    const file = await fileOf(records);

    expect(file.rows).toHaveLength(4);
    const valve = file.rows.find((row) => row.classification_id === ID.valve)!;
    expect(valve).toMatchObject({ row: 7, sheet: null });
    expect(valve.answers).toEqual([
      { n: 1, question_id: 'q1', answer: 'Válvula de esfera' },
      { n: 2, question_id: 'q2', answer: 'Controle de fluxo' },
    ]);
    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });
    expect(plan.resume.map((row) => row.classification_id)).toEqual([ID.valve]);
  });

  it('reads the same review saved as an XLSX workbook, where the row number is a number cell', async () => {
    const [header, ...rows] = fill(reviewRecords(), { [ID.glove]: { 1: 'Luva de borracha', 2: 'Proteção' } });
    const rowColumn = header!.indexOf('row');
    const bytes = await xlsx([
      header!,
      ...rows.map((row) => row.map((cell, index) => (index === rowColumn ? Number(cell) : cell || null))),
    ]);

    const file = await readAnswersFile(bytes, 'review.xlsx');

    expect(file.format).toBe('xlsx');
    expect(file.delimiter).toBeUndefined();
    const glove = file.rows.find((row) => row.classification_id === ID.glove)!;
    expect(glove.row).toBe(9);
    expect(glove.answers.map((cell) => cell.answer)).toEqual(['Luva de borracha', 'Proteção']);
  });

  it('reads a review.csv with nothing pending (a header only) as no rows', async () => {
    const file = await readAnswersFile(buildReviewCsv([], ';'), 'review.csv');
    expect(file.rows).toEqual([]);
  });

  it('refuses a file that is not a review.csv, naming the file and what is missing', async () => {
    const products = excelPtBr([
      ['Código', 'Descrição', 'Operação', 'País'],
      ['CAF-1', 'Café torrado em grãos', 'importação', 'BR'],
    ]);

    const error = await thrown(() => readAnswersFile(products, 'produtos.csv'));

    expect(error).toBeInstanceOf(AnswersFileError);
    expect(error).toMatchObject({ code: 'not_a_review_file', fileName: 'produtos.csv' });
    const message = (error as Error).message;
    expect(message.startsWith('produtos.csv: is not a review.csv')).toBe(true);
    expect(message).toContain('it has no "classification_id" column and no "answer_N" columns');
    expect(message).toContain('"Descrição"');
  });

  it('names only what is missing when the file has classification ids but no answer columns', async () => {
    const records = reviewRecords().map((row) =>
      row.filter((_, index) => !/^answer_/.test(reviewRecords()[0]![index]!)),
    );

    const error = await thrown(() => fileOf(records, 'sem-respostas.csv'));

    expect(error).toMatchObject({ code: 'not_a_review_file' });
    expect((error as Error).message).toContain('it has no "answer_N" columns (answer_1, answer_2, …).');
    expect((error as Error).message).not.toContain('no "classification_id"');
  });

  it('refuses answer columns it cannot match to questions, and two columns meaning the same answer', async () => {
    const withoutIds = rearrange(reviewRecords(), [
      'row',
      'classification_id',
      'answer_1',
      'answer_2',
      'question_2_id',
    ]);
    const missing = await thrown(() => fileOf(withoutIds));
    expect(missing).toMatchObject({ code: 'question_id_column_missing', column: 'answer_1' });
    expect((missing as Error).message).toContain('"question_1_id"');

    const twice = rearrange(reviewRecords(), ['classification_id', 'question_1_id', 'answer_1', 'Answer 1']);
    const duplicate = await thrown(() => fileOf(twice));
    expect(duplicate).toMatchObject({ code: 'duplicate_column', column: 'Answer 1' });
  });

  it('lets the reader refuse what is no CSV at all', async () => {
    const error = await thrown(() => readAnswersFile(new Uint8Array(), 'review.csv'));
    expect(error).toBeInstanceOf(SpreadsheetError);
    expect(error).toMatchObject({ code: 'file_empty' });
  });

  it('reads review.xlsx by its headers in any language, saying nothing of its own options sheet', async () => {
    for (const language of ['pt', 'es', 'en'] as const) {
      const bytes = await streamBytes(
        reviewWorkbook({
          batch: { header: [], options: BatchOptions.parse({ language }) },
          items: ITEMS,
          at: NOW,
        }),
      );
      const file = await readAnswersFile(bytes, 'review.xlsx');
      expect(file.problems, language).toEqual([]);
      expect(
        file.rows.map((row) => [row.row, row.classification_id]),
        language,
      ).toEqual(ITEMS.map((entry) => [entry.row, entry.classification_id]));
    }
  });

  it('still reports a sheet the user added to review.xlsx as not read', async () => {
    const bytes = await xlsxSheets([
      {
        sheet: 'Perguntas',
        data: [
          [
            { value: 'Linha' },
            { value: 'ID da classificação' },
            { value: 'Resposta 1' },
            { value: 'ID da pergunta 1' },
          ],
        ],
      },
      { sheet: 'Opções', data: [[{ value: 'Rolamento' }]] },
      { sheet: 'Minhas notas', data: [[{ value: 'ligar para o fornecedor' }]] },
    ]);
    const file = await readAnswersFile(new Uint8Array(bytes), 'review.xlsx');
    expect(file.problems.map((problem) => problem.code)).toEqual(['other_sheets_ignored']);
    expect(file.problems[0]?.message).toContain('"Minhas notas"');
  });
});

// ---------------------------------------------------------------------------
// planAnswers
// ---------------------------------------------------------------------------

describe('planAnswers', () => {
  it('resumes a fully answered row with the service question ids, in order, and a deterministic key', async () => {
    const records = fill(
      reviewRecords(),
      {
        [ID.coffee]: COFFEE_ANSWERS,
        [ID.bearing]: { 3: 'Metal', 1: 'Rolamento', 2: neutraliseFormula(FORMULA_ANSWER) },
      },
      { [ID.coffee]: { sheet: 'fichas/cafe.pdf' } },
    );
    const file = await fileOf(records);

    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });

    expect(AnswersPlan.parse(plan)).toEqual(plan);
    const coffeeAnswers = [
      { question_id: 'q1', answer: COFFEE_ANSWERS[1] },
      { question_id: 'q2', answer: 'Bebida: preparo por infusão' },
    ];
    expect(plan.resume).toEqual([
      {
        classification_id: ID.coffee,
        row: 2,
        batch_id: 'lote-abc123',
        answers: coffeeAnswers,
        sheet: 'fichas/cafe.pdf',
        answers_key: deriveAnswersKey(ID.coffee, coffeeAnswers, null),
      },
      expect.objectContaining({
        classification_id: ID.bearing,
        row: 5,
        answers: [
          { question_id: 'q1', answer: 'Rolamento' },
          { question_id: 'q2', answer: FORMULA_ANSWER },
          { question_id: 'q4', answer: 'Metal' },
        ],
      }),
    ]);
    expect(outcomes(plan)).toEqual({
      [`2:${ID.coffee}`]: 'resumed',
      [`5:${ID.bearing}`]: 'resumed',
      [`7:${ID.valve}`]: 'skipped_unanswered',
      [`9:${ID.glove}`]: 'skipped_unanswered',
    });
    expect(entryFor(plan, ID.coffee).detail).toMatch(/^Row 2: .*"q1" and "q2".*cafe\.pdf/);
    expect(entryFor(plan, ID.valve).detail).toBe(
      `Row 7: no answers; the row stays pending and can be answered later before ${ABANDONS_AT}, when the service abandons it.`,
    );
  });

  it('derives the same answers key from the same answers however the file was saved', async () => {
    const records = fill(reviewRecords(), { [ID.coffee]: COFFEE_ANSWERS });
    const decomposed = fill(reviewRecords(), {
      [ID.coffee]: { 1: ` ${COFFEE_ANSWERS[1].normalize('NFD')}`, 2: COFFEE_ANSWERS[2] },
    });
    const plans = await Promise.all(
      [
        readAnswersFile(excelPtBr(records), 'review.csv'),
        readAnswersFile(libreOfficeTabs(decomposed), 'review.csv'),
        readAnswersFile(
          Buffer.from(`\uFEFF${Papa.unparse(records, { newline: '\r\n' })}`, 'utf8'),
          'utf8.csv',
        ),
      ].map(async (file) =>
        planAnswers({ file: await file, items: itemsById(ITEMS), statusOf: statusesOf({}) }),
      ),
    );

    const keys = plans.map((plan) => plan.resume.map((row) => row.answers_key));
    expect(keys[0]).toHaveLength(1);
    expect(keys[1]).toEqual(keys[0]);
    expect(keys[2]).toEqual(keys[0]);
  });

  it('reports a half-answered row as incomplete, naming the row and the missing question ids', async () => {
    const file = await fileOf(fill(reviewRecords(), { [ID.bearing]: { 2: 'Eixo de motor' } }));

    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });

    expect(plan.resume).toEqual([]);
    const entry = entryFor(plan, ID.bearing);
    expect(entry).toMatchObject({ row: 5, outcome: 'incomplete' });
    expect(entry.detail).toContain('Row 5: questions "q1" and "q4" have no answer');
    expect(entry.detail).not.toContain('"q2"');
  });

  it('counts answer length in characters as the spec does: 500 emoji pass, 501 letters do not', async () => {
    const emoji = '🙂'.repeat(500);
    expect(emoji.length).toBe(1000);
    const records = fill(reviewRecords(), {
      [ID.coffee]: { 1: emoji, 2: 'ok' },
      [ID.valve]: { 1: 'ok', 2: `${'ç'.repeat(500)}a` },
    });
    const file = await readAnswersFile(libreOfficeTabs(records), 'review.csv');

    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });

    expect(plan.resume.map((row) => row.classification_id)).toEqual([ID.coffee]);
    const entry = entryFor(plan, ID.valve);
    expect(entry.outcome).toBe('answer_too_long');
    expect(entry.detail).toContain('Row 7: the answer to "q2" has 501 characters');
    expect(entry.detail).toContain('at most 500');
  });

  it('reports a question id the classification does not have, even with every question answered', async () => {
    const records = fill(
      reviewRecords(),
      { [ID.glove]: { 1: 'Luva', 2: 'Proteção' }, [ID.valve]: { 1: 'Válvula', 3: 'Aço' } },
      { [ID.glove]: { question_2_id: 'q9' } },
    );
    const file = await fileOf(records);

    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });

    expect(plan.resume).toEqual([]);
    const glove = entryFor(plan, ID.glove);
    expect(glove.outcome).toBe('unknown_question');
    expect(glove.detail).toContain('Row 9: question "q9" (question_2_id) is not one of its questions');
    expect(glove.detail).toContain('"q1" and "q2"');
    // An answer typed into a group this classification has no question for.
    const valve = entryFor(plan, ID.valve);
    expect(valve.outcome).toBe('unknown_question');
    expect(valve.detail).toContain('answer_3 is filled but question_3_id is empty');
    expect(valve.detail).toContain('"q2" has no answer');
  });

  it('reports a classification no longer pending_data with its status, and abandonment in a sentence', async () => {
    const records = fill(reviewRecords(), {
      [ID.coffee]: COFFEE_ANSWERS,
      [ID.valve]: { 1: 'Válvula', 2: 'Fluxo' },
      [ID.glove]: { 1: 'Luva', 2: 'Proteção' },
    });
    const file = await fileOf(records);

    const plan = planAnswers({
      file,
      items: itemsById(ITEMS),
      statusOf: statusesOf({ [ID.coffee]: 'resolved', [ID.valve]: 'abandoned', [ID.glove]: 'in_progress' }),
    });

    expect(plan.resume).toEqual([]);
    expect(entryFor(plan, ID.coffee)).toMatchObject({ outcome: 'not_pending', row: 2 });
    expect(entryFor(plan, ID.coffee).detail).toContain(
      'Row 2: the classification is "resolved" at the service',
    );
    const abandoned = entryFor(plan, ID.valve);
    expect(abandoned.outcome).toBe('not_pending');
    expect(abandoned.detail).toBe(
      'Row 7: the service abandoned this classification because its questions went unanswered for 30 days ' +
        `(deadline ${ABANDONS_AT}); it can no longer be answered and was not billed. ` +
        'Submit the product again in a new batch to classify it.',
    );
    expect(entryFor(plan, ID.glove).detail).toContain('"in_progress"');
  });

  it('reports classifications that are not review items, unknown to the service, or missing from the row', async () => {
    const records = fill(reviewRecords(), {
      [ID.coffee]: COFFEE_ANSWERS,
      [ID.glove]: { 1: 'Luva', 2: 'Proteção' },
    });
    const [header, ...rows] = records;
    const idColumn = header!.indexOf('classification_id');
    const foreign = [...rows[0]!];
    foreign[idColumn] = ID.hose;
    const blank = [...rows[0]!];
    blank[idColumn] = '';
    blank[header!.indexOf('row')] = '';
    const file = await fileOf([header!, ...rows, foreign, blank]);

    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({ [ID.glove]: null }) });

    expect(plan.resume.map((row) => row.classification_id)).toEqual([ID.coffee]);
    expect(entryFor(plan, ID.glove)).toMatchObject({ outcome: 'unknown_classification', row: 9 });
    expect(entryFor(plan, ID.glove).detail).toContain('the service does not know classification');
    expect(entryFor(plan, ID.hose)).toMatchObject({ outcome: 'unknown_classification', row: 2 });
    expect(entryFor(plan, ID.hose).detail).toContain(
      'is not a classification waiting for review in this batch',
    );
    // No row number and no id: the user finds the record by its line in the file.
    expect(entryFor(plan, '')).toMatchObject({ outcome: 'unknown_classification', row: null });
    expect(entryFor(plan, '').detail).toMatch(/^Line 7: the classification_id cell is empty/);
  });

  it('uses the first row of a classification that appears twice and reports the later one as a duplicate', async () => {
    const records = fill(reviewRecords(), { [ID.coffee]: COFFEE_ANSWERS });
    const file = await fileOf([...records, records[1]!]);

    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });

    expect(plan.resume).toHaveLength(1);
    const coffee = plan.report.filter((entry) => entry.classification_id === ID.coffee);
    expect(coffee.map((entry) => entry.outcome)).toEqual(['resumed', 'duplicate']);
    expect(coffee[1]!.detail).toBe(
      `Row 2: ${ID.coffee} appears again in this file (first on line 2); only that first row is used.`,
    );
  });

  it('answers once when the same file is dropped twice, and never starts a second round with other answers', async () => {
    const records = fill(reviewRecords(), {
      [ID.coffee]: COFFEE_ANSWERS,
      [ID.valve]: { 1: 'Válvula de esfera', 2: 'Outra resposta' },
      [ID.glove]: { 1: 'Luva', 2: 'Proteção' },
    });
    const file = await fileOf(records);
    const first = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });
    expect(first.resume.map((row) => row.classification_id)).toEqual([ID.coffee, ID.valve, ID.glove]);

    // What the caller records when it sends the first round.
    const answered = ITEMS.map((entry): ReviewItem => {
      const sent = first.resume.find((row) => row.classification_id === entry.classification_id);
      if (!sent) return entry;
      const answers =
        entry.classification_id === ID.valve
          ? [
              { question_id: 'q1', answer: 'Válvula de esfera' },
              { question_id: 'q2', answer: 'Controle de fluxo' },
            ]
          : sent.answers;
      return { ...entry, state: 'answered', answered_at: '2026-11-22T09:00:00.000Z', answers };
    });
    const second = planAnswers({
      file,
      items: itemsById(answered),
      // Between the first POST and its run the service may still say pending_data.
      statusOf: statusesOf({
        [ID.coffee]: 'pending_data',
        [ID.valve]: 'in_progress',
        [ID.glove]: 'resolved',
      }),
    });

    expect(second.resume).toEqual([]);
    expect(entryFor(second, ID.coffee)).toMatchObject({ outcome: 'already_answered' });
    expect(entryFor(second, ID.coffee).detail).toBe(
      'Row 2: these answers were already sent on 2026-11-22T09:00:00.000Z; they are not sent twice.',
    );
    expect(entryFor(second, ID.valve)).toMatchObject({ outcome: 'already_answered' });
    expect(entryFor(second, ID.valve).detail).toContain('different answers were already sent');
    expect(entryFor(second, ID.valve).detail).toContain('still running');
    // Same answers, round finished: still the same file dropped twice, not an error.
    expect(entryFor(second, ID.glove)).toMatchObject({ outcome: 'already_answered' });
  });

  it('asks the service status only for answered rows of review items', async () => {
    const records = fill(reviewRecords(), { [ID.coffee]: COFFEE_ANSWERS });
    const file = await fileOf(records);
    const statusOf = vi.fn(statusesOf({}));

    planAnswers({ file, items: itemsById(ITEMS), statusOf });

    expect(statusOf.mock.calls).toEqual([[ID.coffee]]);
    expect(classificationsToLookUp(file, itemsById(ITEMS))).toEqual([ID.coffee]);
  });
});

// ---------------------------------------------------------------------------
// answers-report.csv
// ---------------------------------------------------------------------------

describe('buildAnswersReportCsv', () => {
  it('writes one Excel-safe record per row in the delimiter asked for, details neutralised', async () => {
    const records = fill(
      reviewRecords(),
      { [ID.glove]: { 1: 'Luva', 2: 'Proteção' } },
      { [ID.glove]: { question_2_id: '=q2' } },
    );
    const file = await fileOf(records);
    const plan = planAnswers({ file, items: itemsById(ITEMS), statusOf: statusesOf({}) });

    const bytes = buildAnswersReportCsv(plan.report, ';');

    const text = bytes.toString('utf8');
    expect(text.startsWith('\uFEFFrow;classification_id;outcome;detail\r\n')).toBe(true);
    const rows = Papa.parse<string[]>(text.slice(1), {
      delimiter: ';',
      newline: '\r\n',
      skipEmptyLines: true,
    }).data;
    expect(rows.slice(1).map((row) => [row[0], row[1], row[2]])).toEqual([
      ['2', ID.coffee, 'skipped_unanswered'],
      ['5', ID.bearing, 'skipped_unanswered'],
      ['7', ID.valve, 'skipped_unanswered'],
      ['9', ID.glove, 'unknown_question'],
    ]);
    expect(rows[4]![3]).toContain('question "=q2" (question_2_id)');
    // A detail that starts like a formula is written with the apostrophe, as every output is.
    const reread = Papa.parse<string[]>(
      buildAnswersReportCsv(
        [{ row: null, classification_id: '', outcome: 'incomplete', detail: '=1+1' }],
        ',',
      )
        .toString('utf8')
        .slice(1),
      { newline: '\r\n', skipEmptyLines: true },
    ).data;
    expect(reread[1]).toEqual(['', '', 'incomplete', "'=1+1"]);
  });
});
