/**
 * The console's browser app, the parts that need no browser: the three languages say the same
 * things, numbers and dates read right in each, config.json, the hash routes, the file
 * checks made before an upload, the row ranges the inbox looks at again, and the batch.json the
 * upload form writes.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CONSOLE_ERROR_CODES, CONSOLE_LIMITS } from '../../../shared/console/api.js';
import { BatchOptions } from '../../../shared/pipeline/core/batch-options-schema.js';
import { ConsoleConfig } from '../../../web/src/config.js';
import {
  checkBatchName,
  checkCatalogue,
  checkSheet,
  checkSheets,
  defaultBatchName,
  pathOf,
} from '../../../web/src/files.js';
import {
  formatBytes,
  formatDateTime,
  formatDuration,
  formatMoney,
  formatNcm,
  formatNumber,
  formatOr,
  formatPercent,
  formatShortDateTime,
  formatSim,
} from '../../../web/src/format.js';
import { LANGUAGES, pickLanguage } from '../../../web/src/lang.js';
import { en } from '../../../web/src/locales/en.js';
import { es } from '../../../web/src/locales/es.js';
import { pt } from '../../../web/src/locales/pt.js';
import {
  checkBelowProblem,
  DEFAULT_OPTIONS,
  optionsFromFile,
  optionsOf,
} from '../../../web/src/pages/upload-options.js';
import { hrefOf, parseHash, type Route } from '../../../web/src/router.js';
import { rowRanges } from '../../../web/src/row-ranges.js';

/** Every leaf of a messages object, as `a.b.c` → its text. */
const leaves = (value: unknown, prefix = ''): Map<string, unknown> => {
  const out = new Map<string, unknown>();
  if (value !== null && typeof value === 'object') {
    for (const [key, child] of Object.entries(value)) {
      for (const [path, leaf] of leaves(child, prefix ? `${prefix}.${key}` : key)) out.set(path, leaf);
    }
  } else {
    out.set(prefix, value);
  }
  return out;
};

// Intl separates some parts with no-break spaces (U+00A0, U+202F); compare with plain ones.
const plain = (text: string): string => text.replace(/[\u00a0\u202f]/g, ' ');

describe('the three languages', () => {
  const all = { pt, es, en };

  it('have exactly the same keys', () => {
    const keys = [...leaves(en).keys()].sort();
    for (const messages of Object.values(all)) expect([...leaves(messages).keys()].sort()).toEqual(keys);
  });

  it('have no empty or non-text messages', () => {
    for (const [language, messages] of Object.entries(all)) {
      for (const [key, text] of leaves(messages)) {
        expect(typeof text, `${language} ${key}`).toBe('string');
        expect((text as string).trim(), `${language} ${key}`).not.toBe('');
      }
    }
  });

  it('use the same {{placeholders}} in each message', () => {
    const placeholders = (text: unknown) =>
      [...String(text).matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]).sort();
    const english = leaves(en);
    for (const messages of [pt, es]) {
      for (const [key, text] of leaves(messages))
        expect(placeholders(text), key).toEqual(placeholders(english.get(key)));
    }
  });

  it('word every refusal code of the API, and every row status and batch stage', () => {
    for (const messages of Object.values(all)) {
      for (const code of CONSOLE_ERROR_CODES) expect(messages.errors[code]).toBeTruthy();
    }
    expect(Object.keys(en.status).sort()).toEqual(
      [
        'resolved',
        'pending_data',
        'failed',
        'abandoned',
        'rejected',
        'reused',
        'not_submitted',
        'error',
        'queued',
        'submitting',
        'in_progress',
        'following',
      ].sort(),
    );
    expect(Object.keys(en.stage).sort()).toEqual(
      [
        'preparing',
        'dispatching',
        'waiting_on_service',
        'finalizing',
        'completed',
        'failed',
        'planned',
      ].sort(),
    );
  });

  it('are not English in Portuguese and Spanish', () => {
    expect(pt.nav.batches).toBe('Lotes');
    expect(es.nav.questions).toBe('Preguntas');
    expect(pt.status.resolved).not.toBe(en.status.resolved);
  });

  it('start from the browser’s languages, a stored choice first', () => {
    expect(pickLanguage(['pt-BR', 'en'])).toBe('pt');
    expect(pickLanguage(['es-419'])).toBe('es');
    expect(pickLanguage(['ES-ar', 'pt'])).toBe('es');
    expect(pickLanguage(['fr-FR', 'de'])).toBe('en');
    expect(pickLanguage(['fr-FR', 'es-MX'])).toBe('es');
    expect(pickLanguage([])).toBe('en');
    expect(pickLanguage(['pt-BR'], 'es')).toBe('es');
    expect(pickLanguage(['pt-BR'], 'xx')).toBe('pt');
    expect(LANGUAGES).toEqual(['pt', 'es', 'en']);
  });
});

describe('formatting in each language', () => {
  it('numbers', () => {
    expect(formatNumber('pt', 1234567)).toBe('1.234.567');
    expect(formatNumber('es', 1234567)).toBe('1.234.567');
    expect(formatNumber('en', 1234567)).toBe('1,234,567');
  });

  it('money in US dollars: cents, or four decimals below a dollar', () => {
    expect(plain(formatMoney('pt', 1234.5))).toBe('US$ 1.234,50');
    expect(plain(formatMoney('es', 1234.5))).toBe('US$ 1.234,50');
    expect(formatMoney('en', 1234.5)).toBe('$1,234.50');
    expect(formatMoney('en', 0.0125)).toBe('$0.0125');
    expect(formatMoney('en', 0.5)).toBe('$0.50');
    expect(formatMoney('en', 0)).toBe('$0.00');
    expect(plain(formatMoney('pt', 0.02))).toBe('US$ 0,02');
  });

  it('confidence (0 to 100) as a percentage', () => {
    expect(formatPercent('en', 87)).toBe('87%');
    expect(plain(formatPercent('pt', 87))).toBe('87%');
    expect(plain(formatPercent('es', 100))).toBe('100%');
    expect(formatPercent('en', 0)).toBe('0%');
  });

  it('dates and times', () => {
    const iso = '2026-03-05T14:07:00Z';
    expect(plain(formatDateTime('en', iso, 'UTC'))).toBe('Mar 5, 2026, 2:07 PM');
    expect(plain(formatDateTime('pt', iso, 'UTC'))).toBe('5 de mar. de 2026, 14:07');
    expect(plain(formatDateTime('es', iso, 'UTC'))).toMatch(/^5 mar 2026, (14:07|2:07 p\. ?m\.)$/);
    expect(formatDateTime('en', 'not a date')).toBe('not a date');
    const now = new Date('2026-11-25T12:00:00Z');
    expect(plain(formatShortDateTime('en', iso, now, 'UTC'))).toBe('Mar 5, 2:07 PM');
    expect(plain(formatShortDateTime('pt', iso, now, 'UTC'))).toBe('5 de mar., 14:07');
    expect(plain(formatShortDateTime('en', '2025-12-31T23:00:00Z', now, 'UTC'))).toBe(
      'Dec 31, 2025, 11:00 PM',
    );
  });

  it('time left, humanised', () => {
    expect(plain(formatDuration('en', 42))).toBe('42 sec');
    expect(plain(formatDuration('en', 12 * 60))).toBe('12 min');
    expect(plain(formatDuration('en', 3 * 3600 + 20 * 60))).toBe('3 hr 20 min');
    expect(plain(formatDuration('en', 2 * 3600))).toBe('2 hr');
    expect(plain(formatDuration('en', 2 * 86400 + 4 * 3600))).toMatch(/^2 days? 4 hr$/);
    expect(plain(formatDuration('pt', 3 * 3600 + 20 * 60))).toBe('3 h 20 min');
    expect(plain(formatDuration('es', 12 * 60))).toBe('12 min');
  });

  it('file sizes', () => {
    expect(plain(formatBytes('en', 10 * 1024 * 1024))).toBe('10 MB');
    expect(plain(formatBytes('pt', 1.5 * 1024 * 1024))).toBe('1,5 MB');
    expect(plain(formatBytes('en', 820 * 1024))).toBe('820 kB');
    expect(formatBytes('en', 1)).toBe('1 byte');
    expect(formatBytes('es', 10)).toBe('10 bytes');
    expect(formatBytes('pt', 0)).toBe('0 bytes');
    expect(formatBytes('pt', 1)).toBe('1 byte');
  });

  it('alternatives joined with the language’s "or"', () => {
    expect(formatOr('en', ['.csv', '.xlsx'])).toBe('.csv or .xlsx');
    expect(formatOr('pt', ['.csv', '.xlsx'])).toBe('.csv ou .xlsx');
    expect(formatOr('es', ['.csv', '.xlsx'])).toBe('.csv o .xlsx');
  });

  it('NCM codes dotted, whatever the language', () => {
    expect(formatNcm('84713012')).toBe('8471.30.12');
    expect(formatNcm('8471.30.12')).toBe('8471.30.12');
    // A SIM opening the same way everywhere, whichever way it came.
    expect(formatSim('7318150010')).toBe('7318.15.00.10');
    expect(formatSim('7318.15.00.10')).toBe('7318.15.00.10');
    expect(formatSim('ABC')).toBe('ABC');
    expect(formatNcm(null)).toBe('');
    expect(formatNcm('1234')).toBe('1234');
  });
});

describe('config.json', () => {
  it('takes a local config without sign-in, and an AWS one with Cognito', () => {
    expect(ConsoleConfig.parse({ apiUrl: 'http://127.0.0.1:8787/api/', auth: null })).toEqual({
      apiUrl: 'http://127.0.0.1:8787/api',
      auth: null,
    });
    const aws = ConsoleConfig.parse({
      apiUrl: 'https://abc.execute-api.sa-east-1.amazonaws.com',
      auth: {
        authority: 'https://cognito-idp.sa-east-1.amazonaws.com/sa-east-1_AbC/',
        clientId: 'client',
        domain: 'https://ncm.auth.sa-east-1.amazoncognito.com/',
        redirectUri: 'https://console.example.com/',
      },
    });
    expect(aws.auth).toEqual({
      authority: 'https://cognito-idp.sa-east-1.amazonaws.com/sa-east-1_AbC',
      clientId: 'client',
      domain: 'https://ncm.auth.sa-east-1.amazoncognito.com',
      redirectUri: 'https://console.example.com/',
    });
    expect(() => ConsoleConfig.parse({ apiUrl: 'x' })).toThrow();
    // Without the issuer the page could not find the hosted UI's endpoints.
    expect(() => ConsoleConfig.parse({ apiUrl: 'x', auth: { ...aws.auth, authority: undefined } })).toThrow();
  });
});

describe('the hash router', () => {
  it('reads every page', () => {
    expect(parseHash('')).toEqual({ page: 'batches', waiting: null });
    expect(parseHash('#/')).toEqual({ page: 'batches', waiting: null });
    expect(parseHash('#/batches')).toEqual({ page: 'batches', waiting: null });
    expect(parseHash('#/batches/')).toEqual({ page: 'batches', waiting: null });
    expect(parseHash('#/batches/b-123')).toEqual({ page: 'batch', batchId: 'b-123' });
    expect(parseHash('#/batches/a%2Fb')).toEqual({ page: 'batch', batchId: 'a/b' });
    expect(parseHash('#/batches/b-1/rows/7/verdict')).toEqual({ page: 'verdict', batchId: 'b-1', row: 7 });
    expect(parseHash('#/batches/b-1/rows/0/verdict')).toEqual({
      page: 'not_found',
      path: '/batches/b-1/rows/0/verdict',
    });
    expect(parseHash('#/questions')).toEqual({ page: 'questions' });
    expect(parseHash('#/checks')).toEqual({ page: 'checks', batchId: null, row: null });
    expect(parseHash('#/upload')).toEqual({ page: 'upload' });
    expect(parseHash('/upload')).toEqual({ page: 'upload' });
  });

  it('carries a just-uploaded batch name', () => {
    expect(parseHash('#/batches?waiting=Cat%C3%A1logo%20mar%C3%A7o')).toEqual({
      page: 'batches',
      waiting: 'Catálogo março',
    });
    expect(parseHash('#/batches?waiting=')).toEqual({ page: 'batches', waiting: null });
  });

  it('opens the "To check" list on a batch, and on the entry holding one of its rows', () => {
    expect(parseHash('#/checks?batch=nightly%201&row=7')).toEqual({
      page: 'checks',
      batchId: 'nightly 1',
      row: 7,
    });
    expect(parseHash('#/checks?batch=n1')).toEqual({ page: 'checks', batchId: 'n1', row: null });
    // A row means nothing without its batch, and only a row number is one.
    expect(parseHash('#/checks?row=7')).toEqual({ page: 'checks', batchId: null, row: null });
    expect(parseHash('#/checks?batch=n1&row=x')).toEqual({ page: 'checks', batchId: 'n1', row: null });
  });

  it('finds no page for anything else', () => {
    expect(parseHash('#/nope')).toEqual({ page: 'not_found', path: '/nope' });
    expect(parseHash('#/batches/a/b')).toEqual({ page: 'not_found', path: '/batches/a/b' });
    expect(parseHash('#/batches/%E0%A4%A')).toEqual({ page: 'not_found', path: '/batches/%E0%A4%A' });
  });

  it('writes what it reads', () => {
    const routes: Route[] = [
      { page: 'batches', waiting: null },
      { page: 'batches', waiting: 'Catálogo 2026/03 & co' },
      { page: 'checks', batchId: null, row: null },
      { page: 'checks', batchId: 'lote/1 & 2', row: 12 },
      { page: 'checks', batchId: 'lote-1', row: null },
      { page: 'batch', batchId: 'b 1/2' },
      { page: 'verdict', batchId: 'b 1/2', row: 12 },
      { page: 'questions' },
      { page: 'upload' },
    ];
    for (const route of routes) expect(parseHash(hrefOf(route))).toEqual(route);
    expect(hrefOf({ page: 'batch', batchId: 'b-1' })).toBe('#/batches/b-1');
  });
});

describe('file checks before an upload', () => {
  it('keeps a sheet chosen with its folder at its path from that folder, and puts one chosen alone beside the catalogue', () => {
    expect(pathOf({ name: 'bomba.pdf', webkitRelativePath: 'sheets/bomba.pdf' })).toBe('sheets/bomba.pdf');
    expect(pathOf({ name: 'bomba.pdf', webkitRelativePath: '' })).toBe('bomba.pdf');
    expect(pathOf({ name: 'bomba.pdf' })).toBe('bomba.pdf');
  });

  const limits = { sheet_bytes: 10 * 1024 * 1024, catalogue_bytes: 200 * 1024 * 1024, sheets_per_batch: 3 };
  const codes = (problems: { code: string }[]) => problems.map((problem) => problem.code);

  it('takes a CSV, text (.txt, .tsv) or XLSX catalogue, by its extension, whatever type the browser declares', () => {
    expect(checkCatalogue({ name: 'Catálogo.csv', size: 10, type: 'text/csv' }, limits)).toEqual([]);
    // Excel's "Unicode Text" and "Text (tab delimited)" saves, read by their content.
    expect(checkCatalogue({ name: 'Texto Unicode.txt', size: 10, type: 'text/plain' }, limits)).toEqual([]);
    expect(checkCatalogue({ name: 'a.TSV', size: 10, type: '' }, limits)).toEqual([]);
    expect(checkCatalogue({ name: 'a.XLSX', size: 10, type: '' }, limits)).toEqual([]);
    // NF-e invoices: one XML, or a ZIP of them.
    expect(checkCatalogue({ name: 'nota.xml', size: 10, type: 'text/xml' }, limits)).toEqual([]);
    expect(checkCatalogue({ name: 'notas.zip', size: 10, type: 'application/zip' }, limits)).toEqual([]);
    expect(checkCatalogue({ name: 'a.csv', size: 10, type: 'application/vnd.ms-excel' }, limits)).toEqual([]);
    expect(codes(checkCatalogue({ name: 'a.xls', size: 10, type: '' }, limits))).toEqual(['wrong_file_type']);
    expect(codes(checkCatalogue({ name: 'a.pdf', size: 10, type: 'application/pdf' }, limits))).toEqual([
      'wrong_file_type',
    ]);
    expect(codes(checkCatalogue({ name: '.csv', size: 10, type: '' }, limits))).toEqual(['wrong_file_type']);
  });

  it('refuses empty and too large files, and names that cannot be keys', () => {
    expect(codes(checkCatalogue({ name: 'a.csv', size: 0, type: '' }, limits))).toEqual(['file_empty']);
    expect(
      codes(checkCatalogue({ name: 'a.csv', size: limits.catalogue_bytes + 1, type: '' }, limits)),
    ).toEqual(['file_too_large']);
    expect(checkCatalogue({ name: 'a.csv', size: limits.catalogue_bytes, type: '' }, limits)).toEqual([]);
    expect(codes(checkCatalogue({ name: `${'a'.repeat(252)}.csv`, size: 1, type: '' }, limits))).toEqual([
      'invalid_file_name',
    ]);
    expect(codes(checkCatalogue({ name: 'x/y.csv', size: 1, type: '' }, limits))).toEqual([
      'invalid_file_name',
    ]);
    // A sheet may keep its path inside the batch folder, never climb out of it.
    expect(checkSheet({ name: 'sheets/y.pdf', size: 1, type: '' }, limits)).toEqual([]);
    for (const name of ['../y.pdf', 'sheets//y.pdf', '/y.pdf', 'a\\y.pdf'])
      expect(codes(checkSheet({ name, size: 1, type: '' }, limits))).toEqual(['invalid_file_name']);
  });

  it('takes PDF sheets up to the service’s size', () => {
    expect(checkSheet({ name: 'ficha.PDF', size: 5, type: 'application/pdf' }, limits)).toEqual([]);
    expect(checkSheet({ name: 'ficha.pdf', size: 11 * 1024 * 1024, type: '' }, limits)).toEqual([
      { code: 'file_too_large', params: { name: 'ficha.pdf', max_bytes: limits.sheet_bytes } },
    ]);
    expect(codes(checkSheet({ name: 'ficha.docx', size: 5, type: '' }, limits))).toEqual(['wrong_file_type']);
  });

  it('counts the sheets and finds a name twice', () => {
    const sheet = (name: string) => ({ name, size: 1, type: 'application/pdf' });
    const fine = checkSheets([sheet('a.pdf'), sheet('b.pdf')], limits);
    expect(fine).toEqual({ each: [[], []], list: [] });
    const twice = checkSheets([sheet('a.pdf'), sheet('A.pdf')], limits);
    expect(codes(twice.each[1] ?? [])).toEqual(['duplicate_file']);
    const many = checkSheets(
      ['a', 'b', 'c', 'd'].map((name) => sheet(`${name}.pdf`)),
      limits,
    );
    expect(many.list).toEqual([{ code: 'too_many_files', params: { count: 4, max: 3 } }]);
  });

  it('names the batch after the catalogue, and checks a name given', () => {
    expect(defaultBatchName('Catálogo março.xlsx')).toBe('Catálogo março');
    expect(defaultBatchName('a.b.csv')).toBe('a.b');
    expect(defaultBatchName('noext')).toBe('noext');
    expect(checkBatchName('Catálogo março')).toEqual([]);
    expect(checkBatchName('a'.repeat(100))).toEqual([]);
    expect(checkBatchName(' spaces around ')).toEqual([]);
    for (const bad of ['', '  ', 'a/b', 'a\\b', 'tab\there', 'a'.repeat(101), '..', ' . ']) {
      expect(codes(checkBatchName(bad)), bad).toEqual(['invalid_batch_name']);
    }
  });
});

describe('rows looked at again', () => {
  it('come in the fewest ranges of at most a page', () => {
    expect(rowRanges([], 200)).toEqual([]);
    expect(rowRanges([7], 200)).toEqual([{ after: 6, limit: 1 }]);
    expect(rowRanges([12, 3, 3, 150], 200)).toEqual([{ after: 2, limit: 148 }]);
    expect(rowRanges([1, 200, 201, 900], 200)).toEqual([
      { after: 0, limit: 200 },
      { after: 200, limit: 1 },
      { after: 899, limit: 1 },
    ]);
    expect(CONSOLE_LIMITS.rowsPageMax).toBe(200);
  });
});

describe('batch.json from the upload form', () => {
  it('names the workbook language only when one is chosen, and BatchOptions accepts what it writes', () => {
    expect(optionsOf(DEFAULT_OPTIONS)).not.toHaveProperty('language');
    const chosen = optionsOf({ ...DEFAULT_OPTIONS, language: 'es', country: 'ar', budget: '12.5' });
    expect(chosen).toMatchObject({ language: 'es', country: 'AR', max_usd: 12.5 });
    expect(BatchOptions.parse(chosen).language).toBe('es');
  });

  it('offers re-classifying only the products whose NCM is no longer in force, which BatchOptions accepts', () => {
    const chosen = optionsOf({ ...DEFAULT_OPTIONS, reclassify: 'ended_codes' });
    expect(BatchOptions.parse(chosen).reclassify).toBe('ended_codes');
  });

  it('passes check_below as a whole percentage when given, and leaves it out (off) when empty', () => {
    expect(optionsOf(DEFAULT_OPTIONS)).not.toHaveProperty('check_below');
    const chosen = optionsOf({ ...DEFAULT_OPTIONS, checkBelow: '80' });
    expect(BatchOptions.parse(chosen).check_below).toBe(80);
    expect(['0', '101', '72.5', 'x'].map(checkBelowProblem)).toEqual([true, true, true, true]);
    expect(['', '1', '100'].map(checkBelowProblem)).toEqual([false, false, false]);
  });

  it("fills the form from a chosen batch.json (the sample's), sends what it has no field for as said, and not what no batch takes", () => {
    const read = optionsFromFile(readFileSync(join(process.cwd(), 'sample-data', 'batch.json'), 'utf8'));
    expect(read).toMatchObject({
      ok: true,
      options: { operation: 'import', country: 'BR', budget: '54', reclassify: 'changed' },
      filled: ['operation', 'country', 'reclassify', 'max_usd'],
      kept: ['reuse_max_age_days'],
      unknown: [],
    });
    if (!read.ok) return;
    const sent = optionsOf(read.options);
    expect(BatchOptions.parse(sent)).toMatchObject({
      operation: 'import',
      country: 'BR',
      max_usd: 54,
      reuse_max_age_days: 30,
    });

    const odd = optionsFromFile('{"country":"AR","colour":"red"}');
    expect(odd).toMatchObject({ ok: true, unknown: ['colour'] });
    if (odd.ok) expect(optionsOf(odd.options)).not.toHaveProperty('colour');
    expect(optionsFromFile('{"check_below": 300}')).toEqual({
      ok: false,
      problem: 'invalid',
      fields: ['check_below'],
    });
    expect(optionsFromFile('[1]')).toMatchObject({ ok: false, problem: 'not_object' });
    expect(optionsFromFile('{')).toMatchObject({ ok: false, problem: 'not_json' });
  });
});
