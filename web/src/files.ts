/**
 * The checks the server makes on files to send, made first in the page so a person sees each
 * problem next to its file before anything is sent. No DOM here: a file is its name, size and
 * declared type (what POST /uploads takes).
 */

import { type FileToSend, isBatchFolderName, UPLOAD_TYPES } from '../../shared/console/web-contract.js';

/** What the page checks against: GET /session's `limits`. */
export type FileLimits = { sheet_bytes: number; catalogue_bytes: number; sheets_per_batch: number };

export type FileProblem =
  | { code: 'wrong_file_type'; params: { name: string; expected: readonly string[] } }
  | { code: 'file_too_large'; params: { name: string; max_bytes: number } }
  | { code: 'file_empty'; params: { name: string } }
  | { code: 'invalid_file_name'; params: { name: string } }
  | { code: 'duplicate_file'; params: { name: string } }
  | { code: 'too_many_files'; params: { count: number; max: number } };

export type BatchNameProblem = { code: 'invalid_batch_name'; params: { max: number } };

const CATALOGUE_EXTENSIONS = [
  UPLOAD_TYPES.csv.extension,
  UPLOAD_TYPES.txt.extension,
  UPLOAD_TYPES.tsv.extension,
  UPLOAD_TYPES.xlsx.extension,
  UPLOAD_TYPES.xml.extension,
  UPLOAD_TYPES.zip.extension,
];
const SHEET_EXTENSIONS = [UPLOAD_TYPES.pdf.extension];
const MAX_NAME = 255;
const MAX_BATCH_NAME = 100;

const hasExtension = (name: string, extensions: readonly string[]): boolean =>
  extensions.some((extension) => name.toLowerCase().endsWith(extension));

/** A usable name, or (where `paths`) a relative path of usable names, as the API checks it. */
const badName = (name: string, paths: boolean): boolean => {
  const segments = paths ? name.split('/') : [name];
  return (
    name.length > MAX_NAME ||
    /[\\\p{Cc}]/u.test(name) ||
    segments.some(
      (segment) => segment.trim() === '' || segment === '.' || segment === '..' || segment.includes('/'),
    )
  );
};

const checkOne = (
  file: FileToSend,
  extensions: readonly string[],
  maxBytes: number,
  paths = false,
): FileProblem[] => {
  const { name } = file;
  const problems: FileProblem[] = [];
  if (badName(name, paths)) {
    problems.push({ code: 'invalid_file_name', params: { name } });
  }
  const stem = extensions.find((extension) => name.toLowerCase().endsWith(extension));
  if (!hasExtension(name, extensions) || (stem !== undefined && name.length <= stem.length)) {
    problems.push({ code: 'wrong_file_type', params: { name, expected: extensions } });
  }
  if (file.size === 0) problems.push({ code: 'file_empty', params: { name } });
  if (file.size > maxBytes) problems.push({ code: 'file_too_large', params: { name, max_bytes: maxBytes } });
  return problems;
};

/**
 * A catalogue: `.csv`, `.txt`, `.tsv` or `.xlsx`, or NF-e invoices as `.xml` or a `.zip` of them (the
 * extension decides; browsers declare CSV types loosely).
 */
export const checkCatalogue = (file: FileToSend, limits: FileLimits): FileProblem[] =>
  checkOne(file, CATALOGUE_EXTENSIONS, limits.catalogue_bytes);

/** A technical sheet: a `.pdf` of at most the service's size. */
export const checkSheet = (file: FileToSend, limits: FileLimits): FileProblem[] =>
  checkOne(file, SHEET_EXTENSIONS, limits.sheet_bytes, true);

/** Every sheet's own problems (by index), and the list's: too many, the same name twice. */
export const checkSheets = (
  files: readonly FileToSend[],
  limits: FileLimits,
): { each: FileProblem[][]; list: FileProblem[] } => {
  const seen = new Set<string>();
  const each = files.map((file) => {
    const problems = checkSheet(file, limits);
    const key = file.name.toLowerCase();
    if (seen.has(key)) problems.push({ code: 'duplicate_file', params: { name: file.name } });
    seen.add(key);
    return problems;
  });
  const list: FileProblem[] =
    files.length > limits.sheets_per_batch
      ? [{ code: 'too_many_files', params: { count: files.length, max: limits.sheets_per_batch } }]
      : [];
  return { each, list };
};

/**
 * Where a file goes inside the batch folder: a sheet chosen with its folder keeps its path from
 * that folder (`sheets/pump.pdf`), as the catalogue's sheet column names it beside the catalogue;
 * a file chosen alone goes beside the catalogue.
 */
export const pathOf = (file: { name: string; webkitRelativePath?: string }): string =>
  file.webkitRelativePath || file.name;

/** A batch's default name: the catalogue's name without its extension. */
export const defaultBatchName = (fileName: string): string => {
  const dot = fileName.lastIndexOf('.');
  return dot > 0 ? fileName.slice(0, dot) : fileName;
};

/**
 * A batch name names one folder (`inbox/<name>/`), as the server checks it: trimmed, not empty,
 * not `.` or `..`, no slash, backslash or control character, at most 100 characters.
 */
export const checkBatchName = (name: string): BatchNameProblem[] => {
  return name.length > MAX_BATCH_NAME || !isBatchFolderName(name)
    ? [{ code: 'invalid_batch_name', params: { max: MAX_BATCH_NAME } }]
    : [];
};

/** Windows and macOS file systems ignore case and Unicode form, as the pipeline's sheet check does. */
const looseKey = (path: string): string => path.normalize('NFC').toLowerCase();
const baseName = (path: string): string => path.slice(path.lastIndexOf('/') + 1);

/** A sheet the catalogue names that no chosen file is sure to be. */
type SheetAmbiguity =
  /** Several chosen files have its name, none at its path. */
  | { kind: 'files'; path: string; candidates: string[] }
  /** One chosen file has the name of several sheets the catalogue names elsewhere. */
  | { kind: 'paths'; file: string; paths: string[] };

/** How the chosen sheets meet the sheets the catalogue names. */
export type SheetMatch = {
  /** The name each chosen file is sent under, by its index: its path, or the path the catalogue names. */
  names: string[];
  /** Files sent under the path the catalogue names, found by their name alone. */
  renamed: { from: string; to: string }[];
  /** Sheets the catalogue names that are not among the chosen files. */
  missing: string[];
  ambiguous: SheetAmbiguity[];
};

/**
 * Matches the chosen sheets (their paths: `sheets/pump.pdf` when chosen with their folder, `pump.pdf`
 * alone) to the paths the catalogue names. A file at a named path is that sheet (case and Unicode
 * form aside). A sheet named where no file is is found by its file name among the files that are
 * at no named path, when exactly one has it and it has the name of no other such sheet: that file
 * is sent under the named path, so Prepare finds it where the catalogue says. Otherwise it is
 * missing, or ambiguous when several files or several paths could be meant.
 */
export const matchSheets = (named: readonly string[], chosen: readonly string[]): SheetMatch => {
  const namedKeys = new Set(named.map(looseKey));
  const chosenKeys = new Set(chosen.map(looseKey));
  const unplaced = named.filter((path) => !chosenKeys.has(looseKey(path)));
  // Files at no named path may be a sheet chosen without its folder.
  const loose = chosen.flatMap((path, index) => (namedKeys.has(looseKey(path)) ? [] : [{ path, index }]));
  const filesNamed = (name: string) => loose.filter((file) => looseKey(baseName(file.path)) === name);
  const pathsNamed = (name: string) => unplaced.filter((path) => looseKey(baseName(path)) === name);

  const names = [...chosen];
  const renamed: SheetMatch['renamed'] = [];
  const missing: string[] = [];
  const ambiguous: SheetAmbiguity[] = [];
  const reported = new Set<string>();
  for (const path of unplaced) {
    const name = looseKey(baseName(path));
    const files = filesNamed(name);
    const paths = pathsNamed(name);
    const [file] = files;
    if (!file) missing.push(path);
    else if (files.length > 1) ambiguous.push({ kind: 'files', path, candidates: files.map((f) => f.path) });
    else if (paths.length > 1) {
      if (!reported.has(file.path)) ambiguous.push({ kind: 'paths', file: file.path, paths });
      reported.add(file.path);
    } else {
      names[file.index] = path;
      renamed.push({ from: file.path, to: path });
    }
  }
  return { names, renamed, missing, ambiguous };
};
