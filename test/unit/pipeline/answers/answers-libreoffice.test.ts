/**
 * The answers file survives a real spreadsheet program: review.csv as the batch
 * writes it, answers typed in, then opened and saved again by LibreOffice headless as a
 * Brazilian Excel would save it (`;` separators, Windows-1252), and read back by the code
 * that reads users' files. LibreOffice comes from Debian's packages (`.ci/run` installs it).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Papa from 'papaparse';
import { afterAll, describe, expect, it } from 'vitest';
import { readAnswersFile } from '../../../../shared/pipeline/answers/answers-file.js';
import { planAnswers } from '../../../../shared/pipeline/answers/plan-answers.js';
import type { ReviewItem } from '../../../../shared/pipeline/core/records.js';
import { buildReviewCsv } from '../../../../shared/pipeline/outbox/results-files.js';
import { writeCsv } from '../../../../shared/spreadsheet/write-csv.js';

const work = mkdtempSync(join(tmpdir(), 'answers-libreoffice-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

const item = (classificationId: string, row: number, questions: ReviewItem['questions']): ReviewItem => ({
  classification_id: classificationId,
  batch_id: 'lote-abc123',
  row,
  sku: `SKU-${row}`,
  external_reference: null,
  description: 'Peças diversas para manutenção; caixa "sortida"',
  questions,
  provisional_ncm: '84821010',
  provisional_confidence: 41,
  abandons_at: '2026-12-21T12:00:00.000Z',
  state: 'pending',
  created_at: '2026-11-21T12:00:00.000Z',
});

const ITEMS = [
  item('cls_7KQ2M9XW4RTB', 3, [
    { id: 'q1', text: 'Qual é exatamente o produto?', options: ['Rolamento', 'Junta'] },
    { id: 'q2', text: 'De que material é feito?', options: [] },
  ]),
  item('cls_8MN3P4QR5ST6', 8, [{ id: 'q1', text: 'Qual é a função principal?', options: [] }]),
];

const ANSWERS: Record<string, string[]> = {
  cls_7KQ2M9XW4RTB: ['Rolamento de esferas; blindado, "2RS"', '=aço cromo (não inox)'],
  cls_8MN3P4QR5ST6: ['Vedação de bombas — junta de borracha nitrílica, 3,5 mm, € 12'],
};

/** Opens `input` in LibreOffice (as UTF-8, `,`) and saves it as `;`-separated Windows-1252 CSV. */
const saveAsExcelPtBr = (input: string): Buffer => {
  const profile = join(work, 'profile');
  execFileSync(
    'soffice',
    [
      `-env:UserInstallation=file://${profile}`,
      '--headless',
      // Import: separator 44 (,), text delimiter 34 ("), charset 76 (UTF-8), from line 1; every
      // column as text (format 2) so ids and numbers are not reinterpreted on the way in.
      '--infilter=CSV:44,34,76,1,1/2/2/2/3/2/4/2/5/2/6/2/7/2/8/2/9/2/10/2/11/2/12/2/13/2/14/2/15/2/16/2',
      // Export: separator 59 (;), text delimiter 34 ("), charset 1: LibreOffice's number for
      // Windows-1252 (RTL_TEXTENCODING_MS_1252); "1252" would pick a Latin-1 that loses — and €.
      '--convert-to',
      'csv:Text - txt - csv (StarCalc):59,34,1,1',
      '--outdir',
      join(work, 'saved'),
      input,
    ],
    { stdio: 'pipe', timeout: 120_000 },
  );
  return readFileSync(join(work, 'saved', 'review.csv'));
};

describe('review.csv through LibreOffice', () => {
  it('keeps every answer, accents, separators, quotes and a leading = included', async () => {
    const text = buildReviewCsv(ITEMS, ',')
      .toString('utf8')
      .replace(/^\uFEFF/, '');
    const [header, ...rows] = Papa.parse<string[]>(text, { delimiter: ',', skipEmptyLines: true }).data;
    if (!header) throw new Error('review.csv has no header');
    const idColumn = header.indexOf('classification_id');
    const filled = rows.map((row) => {
      const copy = [...row];
      (ANSWERS[copy[idColumn] as string] ?? []).forEach((answer, index) => {
        copy[header.indexOf(`answer_${index + 1}`)] = answer;
      });
      return copy;
    });
    const input = join(work, 'review.csv');
    writeFileSync(input, writeCsv(header, filled, { delimiter: ',', bom: true }));

    const saved = saveAsExcelPtBr(input);

    // What LibreOffice wrote is what a pt-BR Excel writes: `;`, no UTF-8 anywhere.
    expect(saved.subarray(0, 3).equals(Buffer.from([0xef, 0xbb, 0xbf]))).toBe(false);
    expect(saved.includes(Buffer.from('ção', 'utf8'))).toBe(false);
    expect(saved.includes(Buffer.from([0xe7, 0xe3, 0x6f]))).toBe(true); // "ção" in Windows-1252
    const file = await readAnswersFile(new Uint8Array(saved), 'review.csv');
    expect(file).toMatchObject({ encoding: 'windows-1252', delimiter: ';' });

    const plan = planAnswers({
      file,
      items: new Map(ITEMS.map((entry) => [entry.classification_id, entry])),
      statusOf: () => 'pending_data',
    });
    expect(plan.report.map((entry) => entry.outcome)).toEqual(['resumed', 'resumed']);
    expect(
      Object.fromEntries(plan.resume.map((row) => [row.classification_id, row.answers.map((a) => a.answer)])),
    ).toEqual(ANSWERS);
  });
});
