/**
 * A mapped row → a `ProductRow` the pipeline can send, or a rejection with a stable
 * reason code. Pure: no I/O, the accepted countries come from the caller.
 *
 * Primary course: tidy each cell (NFC, whitespace), fall back to the batch defaults for
 * empty operation/country cells, check every limit of `POST /classifications`, and collect
 * every issue of the row (not just the first) so one round of fixes is enough.
 */
import { posix } from 'node:path';
import { characterCount, LIMITS, NCM_PATTERN, type Operation } from '../tcs/schemas.js';
import { flawIssue } from './cell-limits.js';
import { resolveCountryCode } from './countries.js';
import { collapseWhitespace, matchingKey } from './matching-key.js';
import type {
  BatchDefaults,
  ColumnMapping,
  MappedRow,
  PipelineColumn,
  ProductRow,
  RowFlag,
  RowIssue,
  RowOutcome,
} from './schemas.js';
import { capitalised } from './sentence-parts.js';

/**
 * Only spellings that cannot mean anything else. `I`/`E` are accepted because in an
 * operation column they can only be the initials.
 */
const OPERATION_BY_KEY: ReadonlyMap<string, Operation> = new Map(
  (
    [
      [
        'import',
        ['import', 'importação', 'importacao', 'importación', 'importacion', 'importar', 'imp', 'i'],
      ],
      [
        'export',
        ['export', 'exportação', 'exportacao', 'exportación', 'exportacion', 'exportar', 'exp', 'e'],
      ],
    ] as const
  ).flatMap(([operation, spellings]) =>
    spellings.map((spelling) => [matchingKey(spelling), operation] as const),
  ),
);

export const parseOperation = (value: string): Operation | null =>
  OPERATION_BY_KEY.get(matchingKey(value)) ?? null;

/** The most of a cell a detail quotes: a sentence names a value, it does not copy a long one. */
const QUOTED_CHARACTERS = 80;
const shown = (value: string): string =>
  value.length > QUOTED_CHARACTERS
    ? `${value.slice(0, QUOTED_CHARACTERS).replace(/[\uD800-\uDBFF]$/, '')}…`
    : value;

/** The code ERPs write in the NCM field of an item they have no NCM for (use and consumption, "other"). */
const NO_NCM_DECLARED = '00000000';

/**
 * Gives the declared NCM without dots, spaces or dashes, with flags for a lost leading zero or a
 * value that is no NCM. Never padded: a lost zero is only flagged. Empty or `00000000` (how ERPs
 * fill the field when the item has no NCM) is no NCM declared: null.
 */
export const parseCurrentNcm = (value: string): { current_ncm: string | null; flags: RowFlag[] } => {
  const written = collapseWhitespace(value);
  if (written === '') return { current_ncm: null, flags: [] };
  const digits = written.replace(/[.\s-]/g, '');
  if (digits === NO_NCM_DECLARED) return { current_ncm: null, flags: [] };
  if (NCM_PATTERN.test(digits)) return { current_ncm: digits, flags: [] };
  // Excel drops the leading zero of chapters 01–09: `02071400` becomes `2071400`.
  if (/^[0-9]{7}$/.test(digits)) return { current_ncm: digits, flags: ['leading_zero_probably_lost'] };
  // Kept as written to be shown, but no longer than a sentence quotes: it is no NCM anyway.
  return { current_ncm: shown(written), flags: ['current_ncm_invalid'] };
};

/**
 * The longest SKU a row may have: the product cache is keyed by it (`sku:<sku>`, and
 * `pending#sku:<sku>`), and DynamoDB refuses a key over 2,048 bytes; 500 characters stay under
 * it in any script (at most 4 bytes each).
 */
const MAX_SKU_CHARACTERS = 500;

/**
 * The longest sheet path, in UTF-8 bytes: S3 refuses a key over 1,024 bytes, and the path is
 * looked for under the batch's folder (`inbox/<name>/`).
 */
const MAX_SHEET_PATH_BYTES = 768;

/** What is wrong with a sheet's path (its message's `why`, shared/wording/rejections.ts). */
export type SheetPathFault = 'absolute' | 'outside' | 'not_pdf' | 'too_long';

/**
 * A technical sheet's path relative to the batch folder, as POSIX: `Fichas\café.pdf` →
 * `Fichas/café.pdf`, `./a/../b.pdf` → `b.pdf`. Returns the reason when it is not one.
 */
export const normaliseSheetPath = (
  value: string,
): { path: string } | { invalid: string; why: SheetPathFault } => {
  const slashed = value.trim().replace(/\\/g, '/');
  if (
    slashed.startsWith('/') ||
    /^[A-Za-z]:/.test(slashed) ||
    /^[A-Za-z][A-Za-z0-9+.-]*:\/\//.test(slashed)
  ) {
    return {
      invalid: 'must be a path inside the batch folder, not an absolute path, drive or URL',
      why: 'absolute',
    };
  }
  const path = posix.normalize(slashed);
  if (path === '..' || path.startsWith('../')) {
    return { invalid: 'must stay inside the batch folder (".." leads out of it)', why: 'outside' };
  }
  if (!/\.pdf$/i.test(path) || posix.basename(path).length <= '.pdf'.length) {
    return { invalid: 'must name a PDF file ending in ".pdf"', why: 'not_pdf' };
  }
  if (new TextEncoder().encode(path).length > MAX_SHEET_PATH_BYTES) {
    return {
      invalid: `is longer than a file's path in the batch folder may be (${MAX_SHEET_PATH_BYTES} bytes)`,
      why: 'too_long',
    };
  }
  return { path };
};

export const normaliseRow = (
  mapped: Pick<MappedRow, 'row' | 'fields' | 'flaws'>,
  defaults: BatchDefaults,
  acceptedCountries: ReadonlySet<string>,
  /** When given, details name the columns as the file wrote them (`"País"` rather than `country`). */
  columns?: ColumnMapping,
): RowOutcome => {
  const name = (column: PipelineColumn): string => `column "${columns?.fields[column]?.header ?? column}"`;
  const label: Labeller = Object.assign(name, {
    emptyOrAbsent: (column: PipelineColumn): string =>
      columns && !columns.fields[column] ? `the file has no ${column} column` : `${name(column)} is empty`,
    at: (column: PipelineColumn) => ({
      header: columns?.fields[column]?.header ?? column,
      ...(columns && !columns.fields[column] ? { absent: true as const } : {}),
    }),
  });
  // NFC first: Mac exports write `ç` as two code points, which the spec would count twice.
  const raw = (column: PipelineColumn): string => (mapped.fields[column] ?? '').normalize('NFC');
  const cell = (column: PipelineColumn): string => collapseWhitespace(raw(column));
  // Flaws of the cells first (cell-limits.ts). A row cut to fit has only those: its cut cells'
  // own checks would measure the cut, not the cell.
  const flaws = (mapped.flaws ?? []).map((flaw) => flawIssue(flaw, columns));
  if (flaws.some((issue) => issue.reason !== 'control_character')) {
    const { reason, column, detail } = flaws[0]!;
    return { status: 'rejected', rejection: { row: mapped.row, reason, column, detail, issues: flaws } };
  }
  const issues: RowIssue[] = [...flaws];
  const reject = (issue: RowIssue): null => {
    issues.push(issue);
    return null;
  };

  // Paths are only trimmed: collapsing spaces would name another file.
  const sheetCell = raw('sheet').trim();
  const sheetPath = sheetCell === '' ? null : normaliseSheetPath(sheetCell);

  const description = checkDescription(cell('description'), sheetCell !== '', label, reject);
  const operation = checkOperation(cell('operation'), defaults, label, reject);
  const country = checkCountry(cell('country'), defaults, acceptedCountries, label, reject);
  let sheet: string | null = null;
  if (sheetPath && 'invalid' in sheetPath) {
    reject({
      reason: 'sheet_path_invalid',
      column: 'sheet',
      detail: `${capitalised(label('sheet'))}: "${shown(sheetCell)}" ${sheetPath.invalid}.`,
      params: {
        ...label.at('sheet'),
        value: shown(sheetCell),
        why: sheetPath.why,
        ...(sheetPath.why === 'too_long' ? { limit: MAX_SHEET_PATH_BYTES } : {}),
      },
    });
  } else if (sheetPath) {
    sheet = sheetPath.path;
  }
  const externalReference = cell('external_reference');
  const externalReferenceLength = characterCount(externalReference);
  if (externalReferenceLength > LIMITS.externalReferenceMax) {
    reject({
      reason: 'external_reference_too_long',
      column: 'external_reference',
      detail:
        `${capitalised(label('external_reference'))} has ${externalReferenceLength} characters; ` +
        `at most ${LIMITS.externalReferenceMax} are accepted.`,
      params: {
        ...label.at('external_reference'),
        length: externalReferenceLength,
        limit: LIMITS.externalReferenceMax,
      },
    });
  }
  const sku = cell('sku');
  const skuLength = characterCount(sku);
  if (skuLength > MAX_SKU_CHARACTERS) {
    reject({
      reason: 'sku_too_long',
      column: 'sku',
      detail: `${capitalised(label('sku'))} has ${skuLength} characters; a SKU may hold at most ${MAX_SKU_CHARACTERS}.`,
      params: { ...label.at('sku'), length: skuLength, limit: MAX_SKU_CHARACTERS },
    });
  }
  const { current_ncm, flags } = parseCurrentNcm(raw('current_ncm'));

  const [first] = issues;
  if (first) return { status: 'rejected', rejection: { row: mapped.row, ...first, issues } };
  const product: ProductRow = {
    row: mapped.row,
    description,
    // Each check returns null only after recording an issue, so without issues both are set.
    operation: operation!,
    country: country!,
    sheet,
    external_reference: externalReference === '' ? null : externalReference,
    sku: sku === '' ? null : sku,
    current_ncm,
    flags,
  };
  return { status: 'valid', product };
};

interface Labeller {
  /** `column "País"`: the column as the file wrote it, or the pipeline name. */
  (column: PipelineColumn): string;
  /** Why a cell has no value: the cell is empty, or the file has no such column. */
  emptyOrAbsent: (column: PipelineColumn) => string;
  /** The column in a message's parameters: its header, and whether the file lacks it. */
  at: (column: PipelineColumn) => { header: string; absent?: true };
}
type Rejecter = (issue: RowIssue) => null;

const checkDescription = (
  description: string,
  hasSheet: boolean,
  label: Labeller,
  reject: Rejecter,
): string | null => {
  if (description === '') {
    if (hasSheet) return null;
    return reject({
      reason: 'description_missing',
      column: 'description',
      detail: `No description and no technical sheet: fill ${label('description')} or ${label('sheet')}.`,
      params: {
        ...label.at('description'),
        sheet_header: label.at('sheet').header,
        ...(label.at('sheet').absent ? { sheet_absent: true } : {}),
      },
    });
  }
  const length = characterCount(description);
  if (length < LIMITS.descriptionMin) {
    return reject({
      reason: 'description_too_short',
      column: 'description',
      detail:
        `${capitalised(label('description'))} has ${length} characters; ` +
        `a description needs at least ${LIMITS.descriptionMin}.`,
      params: { ...label.at('description'), length, limit: LIMITS.descriptionMin },
    });
  }
  if (length > LIMITS.descriptionMax) {
    return reject({
      reason: 'description_too_long',
      column: 'description',
      detail:
        `${capitalised(label('description'))} has ${length} characters; ` +
        `at most ${LIMITS.descriptionMax} are accepted.`,
      params: { ...label.at('description'), length, limit: LIMITS.descriptionMax },
    });
  }
  return description;
};

const checkOperation = (
  value: string,
  defaults: BatchDefaults,
  label: Labeller,
  reject: Rejecter,
): Operation | null => {
  if (value === '') {
    return (
      defaults.operation ??
      reject({
        reason: 'operation_missing',
        column: 'operation',
        detail: `No operation: ${label.emptyOrAbsent('operation')} and the batch has no default operation.`,
        params: label.at('operation'),
      })
    );
  }
  // A value that is present but unclear is refused, never replaced by the default.
  return (
    parseOperation(value) ??
    reject({
      reason: 'operation_invalid',
      column: 'operation',
      detail:
        `${capitalised(label('operation'))}: "${shown(value)}" is not an operation; ` +
        'write import (importação, importación) or export (exportação, exportación).',
      params: { ...label.at('operation'), value: shown(value) },
    })
  );
};

const checkCountry = (
  value: string,
  defaults: BatchDefaults,
  acceptedCountries: ReadonlySet<string>,
  label: Labeller,
  reject: Rejecter,
): string | null => {
  if (value === '') {
    if (defaults.country === undefined) {
      return reject({
        reason: 'country_missing',
        column: 'country',
        detail: `No country: ${label.emptyOrAbsent('country')} and the batch has no default country.`,
        params: label.at('country'),
      });
    }
    if (!acceptedCountries.has(defaults.country)) {
      return reject({
        reason: 'country_unknown',
        column: 'country',
        detail:
          `${capitalised(label.emptyOrAbsent('country'))} and the batch default country ` +
          `"${defaults.country}" is not one the service accepts.`,
        params: { ...label.at('country'), default: defaults.country },
      });
    }
    return defaults.country;
  }
  const code = resolveCountryCode(value);
  if (code === null) {
    return reject({
      reason: 'country_invalid',
      column: 'country',
      detail:
        `${capitalised(label('country'))}: "${shown(value)}" is not a country code or a known country name; ` +
        'write the two-letter ISO code (BR, AR, CN…).',
      params: { ...label.at('country'), value: shown(value) },
    });
  }
  if (!acceptedCountries.has(code)) {
    return reject({
      reason: 'country_unknown',
      column: 'country',
      detail: `${capitalised(label('country'))}: "${shown(value)}" (${code}) is not one of the countries the service accepts.`,
      params: { ...label.at('country'), value: shown(value), code },
    });
  }
  return code;
};
