/**
 * Upload: a catalogue, its PDF sheets (chosen or dropped), the batch's name and options. Each
 * file's problems show next to it before anything is sent, and what the catalogue's sheet column
 * names (NamedSheets.tsx): a sheet chosen without its folder goes under the path the catalogue
 * names, a named sheet not chosen is listed with its rows. Then the files go as upload-flow.ts
 * says, each with its state, and the page moves to the batch the catalogue started
 * (started-batch.ts), or to the batch list, which waits for it, when it has not shown in a minute.
 */
import { type DragEvent, type ReactNode, useEffect, useId, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { UPLOAD_TYPES } from '../../../shared/console/web-contract.js';
import { type CatalogueSheets, readCatalogueSheets } from '../catalogue-sheets.js';
import { ApiError } from '../client.js';
import { FilePicker, useFileProblemText } from '../components/files.js';
import { ErrorNotice, Notice } from '../components/ui.js';
import { useConsole } from '../context.js';
import {
  checkBatchName,
  checkCatalogue,
  checkSheets,
  defaultBatchName,
  type FileProblem,
  matchSheets,
  pathOf,
} from '../files.js';
import { formatBytes, formatNumber } from '../format.js';
import { navigate, useLanguage } from '../hooks.js';
import { errorMessage, plural } from '../i18n.js';
import { waitForStartedBatch } from '../started-batch.js';
import { CountryField, OperationField } from './default-fields.js';
import { NamedSheets } from './NamedSheets.js';
import { RejectionsCheck } from './RejectionsCheck.js';
import {
  budgetProblem,
  checkBelowProblem,
  countryProblem,
  DEFAULT_OPTIONS,
  type FileState,
  MissingFileError,
  type OptionsFile,
  optionsFromFile,
  requestPlan,
  sendPlan,
  toSend,
  type UploadOptions,
} from './upload-flow.js';

const CATALOGUE_ACCEPT = [
  UPLOAD_TYPES.csv.extension,
  UPLOAD_TYPES.txt.extension,
  UPLOAD_TYPES.tsv.extension,
  UPLOAD_TYPES.xlsx.extension,
  UPLOAD_TYPES.xml.extension,
  UPLOAD_TYPES.zip.extension,
  UPLOAD_TYPES.csv.contentType,
  UPLOAD_TYPES.tsv.contentType,
  UPLOAD_TYPES.xlsx.contentType,
  UPLOAD_TYPES.xml.contentType,
  UPLOAD_TYPES.zip.contentType,
].join(',');
const SHEET_ACCEPT = [UPLOAD_TYPES.pdf.extension, UPLOAD_TYPES.pdf.contentType].join(',');

const isSheet = (file: File): boolean => file.name.toLowerCase().endsWith(UPLOAD_TYPES.pdf.extension);
const isOptionsFile = (file: File): boolean => file.name.toLowerCase() === 'batch.json';

/** What a chosen batch.json gave the form, what it sends as it is, and what it cannot take. */
const OptionsFileNotice = ({ name, read }: { name: string; read: OptionsFile }) => {
  const { t } = useTranslation();
  if (!read.ok)
    return (
      <Notice kind="error" testId="options-file">
        {t(`upload.optionsFile.${read.problem}`, { file: name, fields: read.fields.join(', ') })}
      </Notice>
    );
  return (
    <Notice kind={read.unknown.length > 0 ? 'warn' : 'info'} testId="options-file">
      <p>{t('upload.optionsFile.filled', { file: name, keys: read.filled.join(', ') || '—' })}</p>
      {read.kept.length > 0 && <p>{t('upload.optionsFile.kept', { keys: read.kept.join(', ') })}</p>}
      {read.unknown.length > 0 && (
        <p data-testid="options-file-unknown">
          {t('upload.optionsFile.unknown', { keys: read.unknown.join(', ') })}
        </p>
      )}
    </Notice>
  );
};

type Sending = { states: Record<string, FileState>; errors: Record<string, unknown> };

const FileLine = ({
  file,
  problems,
  state,
  error,
  serverProblem,
  onRemove,
  testId,
  sentAs,
}: {
  file: File;
  /** The path the catalogue names, when the file goes under it rather than its own. */
  sentAs?: string;
  problems: FileProblem[];
  state?: FileState;
  error?: unknown;
  serverProblem?: string;
  onRemove?: () => void;
  testId: string;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const text = useFileProblemText();
  const bad = problems.length > 0 || serverProblem !== undefined || state === 'failed';
  return (
    <li
      className={bad ? 'file-line bad' : 'file-line'}
      data-testid={testId}
      data-name={pathOf(file)}
      data-state={state}
    >
      <div className="file-main">
        <span className="file-name" title={pathOf(file)}>
          {pathOf(file)}
        </span>
        <span className="muted nowrap">{formatBytes(language, file.size)}</span>
        {state && (
          <span className={`file-state file-state-${state}`} data-testid="file-state" data-state={state}>
            {t(`upload.fileState.${state}`)}
          </span>
        )}
        {onRemove && (
          <button
            type="button"
            className="button button-small button-quiet"
            onClick={onRemove}
            aria-label={t('upload.removeFile', { name: pathOf(file) })}
          >
            {t('upload.remove')}
          </button>
        )}
      </div>
      {sentAs !== undefined && (
        <div className="file-sent-as" data-testid="sent-as" title={t('upload.sentAsHint')}>
          → {t('upload.sentAs', { path: sentAs })}
        </div>
      )}
      {(problems.length > 0 || serverProblem) && (
        <ul className="file-problems" data-testid="file-problems">
          {problems.map((problem) => (
            <li key={problem.code} data-code={problem.code}>
              {text(problem)}
            </li>
          ))}
          {serverProblem && <li>{serverProblem}</li>}
        </ul>
      )}
      {error !== undefined && <ErrorNotice error={error} testId="file-error" />}
    </li>
  );
};

const Field = ({
  label,
  hint,
  error,
  children,
  htmlFor,
  wide = false,
}: {
  label: string;
  hint?: string;
  error?: string | null;
  children: ReactNode;
  htmlFor: string;
  /** Takes the whole row of the options grid: its choices are long sentences. */
  wide?: boolean;
}) => (
  <div className={['field', error ? 'field-bad' : '', wide ? 'field-wide' : ''].filter(Boolean).join(' ')}>
    <label htmlFor={htmlFor}>{label}</label>
    {children}
    {hint && !error && <p className="hint">{hint}</p>}
    {error && (
      <p className="field-error" role="alert">
        {error}
      </p>
    )}
  </div>
);

const OptionsForm = ({
  options,
  setOptions,
  disabled,
}: {
  options: UploadOptions;
  setOptions: (options: UploadOptions) => void;
  disabled: boolean;
}) => {
  const { t } = useTranslation();
  const id = useId();
  const set = <K extends keyof UploadOptions>(key: K, value: UploadOptions[K]) =>
    setOptions({ ...options, [key]: value });
  const radios = <K extends 'reclassify' | 'duplicates'>(
    key: K,
    legend: string,
    choices: readonly [UploadOptions[K], string][],
  ) => (
    <fieldset className="radio-group" data-testid={`option-${key}`}>
      <legend>{legend}</legend>
      {choices.map(([value, label]) => (
        <label key={value} className="choice">
          <input
            type="radio"
            name={`${id}-${key}`}
            value={value}
            checked={options[key] === value}
            onChange={() => set(key, value)}
          />
          {label}
        </label>
      ))}
    </fieldset>
  );
  return (
    <fieldset className="options" disabled={disabled}>
      <legend>{t('upload.options')}</legend>
      <div className="options-grid">
        <Field label={t('upload.operation')} htmlFor={`${id}-operation`}>
          <OperationField
            id={`${id}-operation`}
            options={options}
            setOptions={setOptions}
            testId="option-operation"
          />
        </Field>
        <Field
          label={t('upload.country')}
          hint={t('upload.countryHint')}
          error={countryProblem(options.country) ? t('upload.countryInvalid') : null}
          htmlFor={`${id}-country`}
        >
          <CountryField
            id={`${id}-country`}
            options={options}
            setOptions={setOptions}
            testId="option-country"
          />
        </Field>
        <Field
          label={t('upload.budget')}
          hint={t('upload.budgetHint')}
          error={budgetProblem(options.budget) ? t('upload.budgetInvalid') : null}
          htmlFor={`${id}-budget`}
        >
          <input
            id={`${id}-budget`}
            type="number"
            min={0}
            step="0.01"
            inputMode="decimal"
            className="input-medium"
            value={options.budget}
            onChange={(event) => set('budget', event.target.value)}
            data-testid="option-budget"
          />
        </Field>
        <Field
          label={t('upload.checkBelow')}
          hint={t('upload.checkBelowHint')}
          error={checkBelowProblem(options.checkBelow) ? t('upload.checkBelowInvalid') : null}
          htmlFor={`${id}-check-below`}
        >
          <input
            id={`${id}-check-below`}
            type="number"
            min={1}
            max={100}
            step="1"
            inputMode="numeric"
            className="input-short"
            value={options.checkBelow}
            onChange={(event) => set('checkBelow', event.target.value)}
            data-testid="option-check-below"
          />
        </Field>
        <Field label={t('upload.language')} hint={t('upload.languageHint')} htmlFor={`${id}-language`} wide>
          <select
            id={`${id}-language`}
            value={options.language}
            onChange={(event) => set('language', event.target.value as UploadOptions['language'])}
            data-testid="option-language"
          >
            <option value="">{t('upload.languageFromFile')}</option>
            <option value="pt" lang="pt">
              Português
            </option>
            <option value="es" lang="es">
              Español
            </option>
            <option value="en" lang="en">
              English
            </option>
          </select>
        </Field>
        {radios('reclassify', t('upload.reclassify'), [
          ['changed', t('upload.reclassifyChanged')],
          ['all', t('upload.reclassifyAll')],
          ['ended_codes', t('upload.reclassifyEndedCodes')],
        ])}
        {radios('duplicates', t('upload.duplicates'), [
          ['classify_once', t('upload.classifyOnce')],
          ['classify_each', t('upload.classifyEach')],
        ])}
        <div className="field field-check">
          <input
            id={`${id}-plan`}
            type="checkbox"
            checked={options.planOnly}
            onChange={(event) => set('planOnly', event.target.checked)}
            data-testid="option-plan-only"
          />
          <label htmlFor={`${id}-plan`}>
            {t('upload.planOnly')}
            <span className="hint">{t('upload.planOnlyHint')}</span>
          </label>
        </div>
      </div>
    </fieldset>
  );
};

/** The server's refusal, when it names one of our files (in any param), shown next to that file. */
const serverProblemFor = (error: unknown, name: string, text: string): string | undefined =>
  error instanceof ApiError &&
  error.problem &&
  Object.values(error.problem.params).some((value) => value === name)
    ? text
    : undefined;

export const UploadPage = () => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api, session } = useConsole();
  const limits = session.limits;
  const text = useFileProblemText();
  const id = useId();
  const [catalogue, setCatalogue] = useState<File | null>(null);
  const [sheets, setSheets] = useState<File[]>([]);
  const [batchName, setBatchName] = useState('');
  const [nameTouched, setNameTouched] = useState(false);
  const [options, setOptions] = useState(DEFAULT_OPTIONS);
  const [optionsFile, setOptionsFile] = useState<{ name: string; read: OptionsFile } | null>(null);
  const [phase, setPhase] = useState<'edit' | 'sending' | 'starting' | 'failed'>('edit');
  const [named, setNamed] = useState<CatalogueSheets | null>(null);
  const [reading, setReading] = useState(false);
  const readingOf = useRef<File | null>(null);
  // The catalogue's sheet column, read once per catalogue chosen; a later choice wins.
  useEffect(() => {
    readingOf.current = catalogue;
    setNamed(null);
    setReading(catalogue !== null);
    if (!catalogue) return;
    const unreadable: CatalogueSheets = { read: false, why: 'unreadable' };
    void readCatalogueSheets(catalogue)
      .catch(() => unreadable)
      .then((read) => {
        if (readingOf.current !== catalogue) return;
        setNamed(read);
        setReading(false);
      });
  }, [catalogue]);
  const [sending, setSending] = useState<Sending>({ states: {}, errors: {} });
  const [error, setError] = useState<unknown>(null);
  const [dragging, setDragging] = useState(false);

  const chooseCatalogue = (file: File) => {
    setCatalogue(file);
    if (!nameTouched) setBatchName(defaultBatchName(file.name));
    setError(null);
  };
  const addSheets = (files: readonly File[]) => {
    setSheets((before) => [
      ...before.filter((old) => !files.some((file) => pathOf(file) === pathOf(old))),
      ...files,
    ]);
    setError(null);
  };
  /** A batch.json chosen with the files: its options fill the form, and the page says what it took. */
  const readOptionsFile = (file: File) =>
    void file
      .text()
      .then((text) => {
        const read = optionsFromFile(text);
        setOptionsFile({ name: pathOf(file), read });
        if (read.ok) setOptions(read.options);
      })
      .catch(() =>
        setOptionsFile({ name: pathOf(file), read: { ok: false, problem: 'not_json', fields: [] } }),
      );
  /** Dropped or picked together: PDFs are sheets, a batch.json the options, anything else the catalogue (checked as one). */
  const chooseAny = (files: readonly File[]) => {
    const optionsFound = files.find(isOptionsFile);
    if (optionsFound) readOptionsFile(optionsFound);
    const pdfs = files.filter(isSheet);
    const others = files.filter((file) => !isSheet(file) && !isOptionsFile(file));
    if (others[0]) chooseCatalogue(others[0]);
    if (pdfs.length > 0) addSheets(pdfs);
  };
  const onDrop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    if (phase !== 'sending') chooseAny([...event.dataTransfer.files]);
  };

  const catalogueProblems = catalogue ? checkCatalogue(toSend(catalogue), limits) : [];
  const match = useMemo(
    () =>
      matchSheets(
        named?.read ? named.sheets.map((sheet) => sheet.path) : [],
        sheets.map((file) => pathOf(file)),
      ),
    [named, sheets],
  );
  const sheetSends = sheets.map((file, index) => ({ name: match.names[index] ?? pathOf(file), file }));
  const sheetChecks = checkSheets(
    sheetSends.map((sheet) => toSend(sheet.file, sheet.name)),
    limits,
  );
  const nameProblems = checkBatchName(batchName || (catalogue ? defaultBatchName(catalogue.name) : 'x'));
  const blocked =
    !catalogue ||
    reading ||
    catalogueProblems.length > 0 ||
    sheetChecks.each.some((problems) => problems.length > 0) ||
    sheetChecks.list.length > 0 ||
    nameProblems.length > 0 ||
    countryProblem(options.country) ||
    budgetProblem(options.budget) ||
    checkBelowProblem(options.checkBelow);
  const total = (catalogue ? 1 : 0) + sheets.length;
  const done = Object.values(sending.states).filter((state) => state === 'done').length;
  const sheetBytes = sheets.reduce((sum, file) => sum + file.size, 0);

  const submit = async () => {
    if (!catalogue || blocked) return;
    setError(null);
    setPhase('sending');
    const initial = Object.fromEntries(
      [...sheetSends.map((sheet) => sheet.name), pathOf(catalogue)].map((name) => [
        name,
        'waiting' as FileState,
      ]),
    );
    setSending({ states: initial, errors: {} });
    const onState = (name: string, state: FileState, failure?: unknown) =>
      setSending((before) => ({
        states: { ...before.states, [name]: state },
        errors: failure === undefined ? before.errors : { ...before.errors, [name]: failure },
      }));
    try {
      const plan = await requestPlan(api, batchName, catalogue, sheetSends, options);
      await sendPlan(plan, catalogue, sheetSends, onState);
      setPhase('starting');
      const started = await waitForStartedBatch(api, {
        batch_name: plan.batch_name,
        file_name: pathOf(catalogue),
        since: plan.planned_at,
      });
      navigate(
        started === null
          ? { page: 'batches', waiting: plan.batch_name }
          : { page: 'batch', batchId: started },
      );
    } catch (failure) {
      setError(failure);
      setPhase('failed');
    }
  };

  const busy = phase === 'sending' || phase === 'starting';
  const problemNextTo = (name: string) => serverProblemFor(error, name, errorMessage(t, error));

  return (
    <div className="page upload-page">
      <div className="page-head">
        <h1>{t('upload.title')}</h1>
      </div>
      <p className="lead">{t('upload.intro')}</p>
      <form
        className="upload-grid"
        onSubmit={(event) => {
          event.preventDefault();
          void submit();
        }}
        noValidate
      >
        <section className="panel" aria-labelledby={`${id}-files`}>
          <h2 id={`${id}-files`}>{t('upload.files')}</h2>
          <label
            className={dragging ? 'dropzone dragging' : 'dropzone'}
            data-testid="upload-dropzone"
            onDragOver={(event) => {
              event.preventDefault();
              if (!busy) setDragging(true);
            }}
            onDragLeave={() => setDragging(false)}
            onDrop={onDrop}
          >
            <input
              type="file"
              multiple
              className="visually-hidden"
              accept={`${CATALOGUE_ACCEPT},${SHEET_ACCEPT}`}
              disabled={busy}
              onChange={(event) => {
                chooseAny([...(event.target.files ?? [])]);
                event.target.value = '';
              }}
              data-testid="upload-any"
            />
            <span className="dropzone-icon" aria-hidden="true">
              ⇪
            </span>
            <span>{t('upload.drop')}</span>
            <span className="muted">{t('upload.dropOr')}</span>
          </label>

          <div className="field">
            <label htmlFor={`${id}-catalogue`}>{t('upload.catalogue')}</label>
            <FilePicker
              id={`${id}-catalogue`}
              accept={CATALOGUE_ACCEPT}
              disabled={busy}
              onFiles={(files) => files[0] && chooseCatalogue(files[0])}
              testId="upload-catalogue"
            />
            <p className="hint">
              {t('upload.catalogueHint', { max: formatBytes(language, limits.catalogue_bytes) })}
            </p>
            {catalogue && (
              <ul className="file-list">
                <FileLine
                  file={catalogue}
                  problems={catalogueProblems}
                  state={sending.states[catalogue.name]}
                  error={sending.errors[catalogue.name]}
                  serverProblem={problemNextTo(catalogue.name)}
                  onRemove={busy ? undefined : () => setCatalogue(null)}
                  testId="catalogue-file"
                />
              </ul>
            )}
          </div>

          <div className="field">
            <label htmlFor={`${id}-sheets`}>{t('upload.sheets')}</label>
            <FilePicker
              id={`${id}-sheets`}
              accept={SHEET_ACCEPT}
              multiple
              disabled={busy}
              onFiles={addSheets}
              testId="upload-sheets"
            />
            <FilePicker
              id={`${id}-sheets-folder`}
              accept={SHEET_ACCEPT}
              directory
              disabled={busy}
              onFiles={(files) => {
                addSheets(files.filter(isSheet));
                // The batch folder's own batch.json, when the folder chosen holds one at its top.
                const optionsFound = files.find(
                  (file) => isOptionsFile(file) && pathOf(file).split('/').length <= 2,
                );
                if (optionsFound) readOptionsFile(optionsFound);
              }}
              testId="upload-sheets-folder"
            />
            <p className="hint">
              {t('upload.sheetsHint', {
                max: formatBytes(language, limits.sheet_bytes),
                count: formatNumber(language, limits.sheets_per_batch),
              })}
            </p>
            {sheetChecks.list.map((problem) => (
              <p key={problem.code} className="field-error" role="alert" data-testid="sheets-problem">
                {text(problem)}
              </p>
            ))}
            {sheets.length > 0 && (
              <>
                <p className="muted small" data-testid="sheet-count">
                  {plural(t, 'upload.sheetCount', sheets.length, formatNumber(language, sheets.length), {
                    size: formatBytes(language, sheetBytes),
                  })}
                </p>
                <ul className="file-list file-list-scroll">
                  {sheetSends.map(({ file, name }, index) => (
                    <FileLine
                      key={pathOf(file)}
                      file={file}
                      sentAs={name === pathOf(file) ? undefined : name}
                      problems={sheetChecks.each[index] ?? []}
                      state={sending.states[name]}
                      error={sending.errors[name]}
                      serverProblem={problemNextTo(name)}
                      onRemove={
                        busy ? undefined : () => setSheets((before) => before.filter((f) => f !== file))
                      }
                      testId="sheet-file"
                    />
                  ))}
                </ul>
              </>
            )}
            <NamedSheets sheets={named} match={match} reading={reading} />
            {named?.read && named.rejections && (
              <RejectionsCheck
                preview={named.rejections}
                options={options}
                setOptions={setOptions}
                disabled={busy}
              />
            )}
          </div>
        </section>

        <section className="panel" aria-labelledby={`${id}-batch`}>
          <h2 id={`${id}-batch`}>{t('upload.batch')}</h2>
          <Field
            label={t('upload.batchName')}
            hint={t('upload.batchNameHint')}
            error={
              nameProblems[0]
                ? t('fileChecks.invalid_batch_name', {
                    max: formatNumber(language, nameProblems[0].params.max),
                  })
                : null
            }
            htmlFor={`${id}-name`}
          >
            <input
              id={`${id}-name`}
              value={batchName}
              maxLength={100}
              disabled={busy}
              onChange={(event) => {
                setBatchName(event.target.value);
                setNameTouched(true);
              }}
              placeholder={catalogue ? defaultBatchName(catalogue.name) : ''}
              data-testid="upload-batch-name"
            />
          </Field>
          {optionsFile && <OptionsFileNotice name={optionsFile.name} read={optionsFile.read} />}
          <OptionsForm options={options} setOptions={setOptions} disabled={busy} />
        </section>

        <div className="submit-bar">
          {/* A file's own failure shows next to it; the bar says only that the upload stopped. */}
          {error !== null &&
            !(error instanceof MissingFileError) &&
            !Object.values(sending.errors).includes(error) && (
              <ErrorNotice error={error} testId="upload-error" />
            )}
          {error instanceof MissingFileError && (
            <Notice kind="error" testId="upload-error">
              {t('upload.noFormFor', { name: error.fileName })}
            </Notice>
          )}
          {phase === 'failed' && (
            <Notice kind="error" testId="upload-failed">
              {t('upload.failed')}
            </Notice>
          )}
          {phase === 'starting' && (
            <span className="upload-progress" data-testid="upload-starting">
              <span className="spinner" aria-hidden="true" /> {t('upload.starting')}
            </span>
          )}
          {phase !== 'edit' && phase !== 'starting' && (
            <span
              className="upload-progress"
              data-testid="upload-progress"
              data-done={done}
              data-total={total}
            >
              {t('upload.progress', {
                done: formatNumber(language, done),
                total: formatNumber(language, total),
              })}
            </span>
          )}
          {!catalogue && <span className="muted">{t('upload.needCatalogue')}</span>}
          <span className="spacer" />
          <button
            type="submit"
            className="button button-primary"
            disabled={blocked || busy}
            data-testid="upload-submit"
          >
            {phase === 'starting'
              ? t('upload.startingButton')
              : busy
                ? t('upload.sending')
                : phase === 'failed'
                  ? t('upload.retry')
                  : options.planOnly
                    ? t('upload.submitPlan')
                    : t('upload.submit')}
          </button>
        </div>
      </form>
    </div>
  );
};
