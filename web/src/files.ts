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

const CATALOGUE_EXTENSIONS = [UPLOAD_TYPES.csv.extension, UPLOAD_TYPES.xlsx.extension];
const SHEET_EXTENSIONS = [UPLOAD_TYPES.pdf.extension];
const MAX_NAME = 255;
export const MAX_BATCH_NAME = 100;

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

/** A catalogue: `.csv` or `.xlsx` (the extension decides; browsers declare CSV types loosely). */
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
