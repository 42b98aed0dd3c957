/**
 * What `npm run classify` says of a finished batch: the saving named by where it came from, and
 * the warnings in the batch's language as summary.json words them.
 */
import { describe, expect, it } from 'vitest';
import {
  checkLine,
  ncmTableLine,
  savingLine,
  sentencesOf,
  stoppingProblemOf,
} from '../../../local/cli/summary-lines.js';
import { message, shownMessages } from '../../../shared/wording/index.js';

describe("classify's summary line", () => {
  it('says a saving from earlier batches came from reusing their verdicts', () => {
    const summary = { saved_usd: 12, duplicates: { rows: 0, saved_usd: 0 } };
    expect(`Billed $0.00, ${savingLine(summary)}.`).toBe(
      'Billed $0.00, saved $12.00 by reusing earlier verdicts.',
    );
  });

  it('says a saving from identical rows of the same file came from classifying them once', () => {
    const summary = { saved_usd: 150_698, duplicates: { rows: 75_349, saved_usd: 150_698 } };
    expect(savingLine(summary)).toBe('saved $150,698.00 by classifying identical rows once');
    expect(savingLine(summary)).not.toContain('earlier verdicts');
  });

  it('names both shares when both apply, and nothing when nothing was saved', () => {
    expect(savingLine({ saved_usd: 10, duplicates: { rows: 2, saved_usd: 4 } })).toBe(
      'saved $10.00: $6.00 by reusing earlier verdicts and $4.00 by classifying identical rows once',
    );
    expect(savingLine({ saved_usd: 0, duplicates: { rows: 0, saved_usd: 0 } })).toBe('saved $0.00');
  });
});

describe("classify's warnings", () => {
  it("prints each warning's sentence in the batch's language, and a summary's older sentences as written", () => {
    const lost = message('leading_zero_lost', {
      header: 'NCM',
      letter: 'F',
      count: 1,
      first_row: 1,
      example: '9012100',
    });
    const warnings = [...shownMessages([lost], 'pt'), 'Column "Planos" is not read'];
    expect(sentencesOf(warnings)).toEqual([
      expect.stringMatching(
        /^A linha 1 declara uma NCM de 7 dígitos \(9012100\) na coluna "NCM" \(coluna F\)/,
      ),
      'Column "Planos" is not read',
    ]);
    expect(sentencesOf(undefined)).toEqual([]);
  });
});

describe('why classify says a batch could not run', () => {
  it("names the problem that stopped it, in the batch's language, not the file's other problems", () => {
    const problems = shownMessages(
      [
        message('csv_malformed_quotes', { file: 'produtos.csv', line: 4 }),
        message('options_not_json', {
          key: 'inbox/lote/batch.json',
          reason: 'the file is empty',
          empty: true,
        }),
      ],
      'es',
    );
    expect(stoppingProblemOf(problems)).toBe(
      'inbox/lote/batch.json no es un JSON válido (el archivo está vacío); escribe un objeto como {"country": "BR"}.',
    );
    expect(stoppingProblemOf(problems.slice(0, 1))).toBeUndefined();
  });
});

describe('what classify says of the NCM table in force', () => {
  const table = { as_of: '2026-07-05', act: 'Resolução Gecex nº 812/2025', source: 'carried' };

  it('names the table and counts the rows whose declared NCM or verdict is not in force', () => {
    expect(ncmTableLine({ ncm_table: table, declared_ncm_not_in_force: 2, ncm_not_in_force: 1 })).toBe(
      'NCM table in force (2026-07-05, Resolução Gecex nº 812/2025): declared NCM not in force on 2 rows, ' +
        "verdict's NCM not in force on 1 row (results: current_ncm_in_force, ncm_in_force; results.xlsx: the NCM divergences sheet).",
    );
  });

  it('says nothing when every code is in force, or of a summary written before the table was checked', () => {
    expect(ncmTableLine({ ncm_table: table, declared_ncm_not_in_force: 0, ncm_not_in_force: 0 })).toBeNull();
    expect(ncmTableLine({ current_ncm_mismatches: 3 })).toBeNull();
  });
});

describe("classify's check line", () => {
  it('says how many verdicts wait for a check and where to decide them, with those approved', () => {
    // Act
    const line = checkLine({ checks: { to_check: 3, approved: 1 } }, 'out/noite');

    // Assess
    expect(line).toBe(
      "3 verdicts wait for a person's check (confidence under check_below, or a SIM opening to choose): " +
        'decide them in the "To check" sheet of review.xlsx or in to-check.csv, in out/noite/, and send the file ' +
        'back with npm run answer; 1 verdict already approved by a person.',
    );
  });

  it('says when every verdict was approved, and nothing when the batch checked none', () => {
    expect(checkLine({ checks: { to_check: 0, approved: 2 } }, 'out/noite')).toBe(
      'No verdict waits for a check; 2 verdicts already approved by a person.',
    );
    expect(checkLine({ checks: { to_check: 0, approved: 0 } }, 'out/noite')).toBeNull();
    expect(checkLine({}, 'out/noite')).toBeNull();
  });
});
