/**
 * Sending a batch: POST /uploads for the forms, then every sheet (four at a time), then the
 * catalogue, strictly after every sheet arrived: its arrival starts the batch.
 */
import type { FileToSend, UploadForm, UploadPlan } from '../../../shared/console/web-contract.js';
import { type Api, sendForm } from '../client.js';
import { pathOf } from '../files.js';
import { optionsOf, type UploadOptions } from './upload-options.js';

export {
  budgetProblem,
  checkBelowProblem,
  countryProblem,
  DEFAULT_OPTIONS,
  type OptionsFile,
  optionsFromFile,
  type UploadOptions,
} from './upload-options.js';

export type FileState = 'waiting' | 'sending' | 'done' | 'failed';

export const toSend = (file: File, name = pathOf(file)): FileToSend => ({
  name,
  size: file.size,
  type: file.type,
});

/**
 * A sheet to send and the name it goes under: its path, or the path the catalogue names when it
 * was found there by its file name (files.ts, `matchSheets`).
 */
export type SheetToSend = { name: string; file: File };

/** Runs `work` over `items`, `limit` at a time; the first failure stops new starts and is thrown. */
const pool = async <T>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<void>,
): Promise<void> => {
  let next = 0;
  let failure: unknown = null;
  const lane = async (): Promise<void> => {
    while (failure === null && next < items.length) {
      const item = items[next++] as T;
      try {
        await work(item);
      } catch (error) {
        failure ??= error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  if (failure !== null) throw failure;
};

const fileFor = (form: UploadForm, files: readonly SheetToSend[]): SheetToSend | undefined =>
  files.find((file) => file.name === form.file_name) ??
  files.find((file) => form.key.endsWith(`/${file.name}`));

export class MissingFileError extends Error {
  constructor(readonly fileName: string) {
    super(`no file chosen for the form of ${fileName}`);
  }
}

/** Sends every form of `plan`, reporting each file's state by the name it is sent under. */
export const sendPlan = async (
  plan: UploadPlan,
  catalogue: File,
  sheets: readonly SheetToSend[],
  onState: (name: string, state: FileState, error?: unknown) => void,
): Promise<void> => {
  const catalogueSend = { name: pathOf(catalogue), file: catalogue };
  const catalogueForm =
    plan.forms.find((form) => fileFor(form, [catalogueSend]) !== undefined) ??
    plan.forms[plan.forms.length - 1];
  const sheetForms = plan.forms.filter((form) => form !== catalogueForm);
  const send = async (form: UploadForm, candidates: readonly SheetToSend[]): Promise<void> => {
    const found = fileFor(form, candidates);
    if (!found) throw new MissingFileError(form.file_name);
    onState(found.name, 'sending');
    try {
      await sendForm(form, found.file);
      onState(found.name, 'done');
    } catch (error) {
      onState(found.name, 'failed', error);
      throw error;
    }
  };
  await pool(sheetForms, 4, (form) => send(form, sheets));
  if (catalogueForm) await send(catalogueForm, [catalogueSend]);
};

export const requestPlan = (
  api: Api,
  batchName: string,
  catalogue: File,
  sheets: readonly SheetToSend[],
  options: UploadOptions,
): Promise<UploadPlan> =>
  api.uploads({
    batch_name: batchName.trim() || undefined,
    catalogue: toSend(catalogue),
    sheets: sheets.map((sheet) => toSend(sheet.file, sheet.name)),
    options: optionsOf(options),
  });
