/**
 * "Reenviar" for one rejected or failed row of a batch: its description, operation and country as
 * the row holds them, to correct, and a new technical sheet to attach. Sending drops a resend file
 * (POST /resends, after the sheet's upload through POST /answer-sheets); a round of the batch plans
 * the row again with Prepare's own checks and classifies it anew, billed only if it resolves.
 */
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { parseOperation, type RowResend, type RowView } from '../../../shared/console/web-contract.js';
import { sendForm } from '../client.js';
import { FilePicker, useFileProblemText } from '../components/files.js';
import { SubmitBar, useSubmit, WorkItemForm } from '../components/work-list.js';
import { useConsole } from '../context.js';
import { checkSheet } from '../files.js';
import { formatBytes } from '../format.js';
import { useLanguage } from '../hooks.js';
import { toSend } from './upload-flow.js';

type Cells = NonNullable<RowView['resend']>;

/** The two operations the service takes; a cell holding anything else starts with none chosen. */
const OPERATIONS = ['import', 'export'] as const;

/** The row's operation cell as one of the two, read as Prepare reads it; "" when it is neither. */
const operationOf = (cell: string): string => parseOperation(cell) ?? '';

/**
 * The form under a row: the cells to correct (only those changed are sent), a new sheet, and the
 * send; `onSent` once the resend file is written.
 */
export const ResendForm = ({
  batchId,
  row,
  cells,
  onSent,
  onCancel,
}: {
  batchId: string;
  row: number;
  cells: Cells;
  onSent: (row: number) => void;
  onCancel: () => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api, session } = useConsole();
  const id = useId();
  const [description, setDescription] = useState(cells.description);
  const [operation, setOperation] = useState(operationOf(cells.operation));
  const [country, setCountry] = useState(cells.country);
  const [sheet, setSheet] = useState<File | null>(null);
  const { busy, error, problem, submit } = useSubmit();
  const sheetProblems = sheet ? checkSheet(toSend(sheet), session.limits) : [];
  const problemText = useFileProblemText();

  const send = async () => {
    const resend: RowResend = { row };
    if (description.trim() !== cells.description.trim()) resend.description = description.trim();
    if (operation !== '' && operation !== cells.operation) resend.operation = operation;
    if (country.trim() !== cells.country.trim()) resend.country = country.trim();
    if (sheet) {
      const made = await api.answerSheet({ batch_id: batchId, sheet: toSend(sheet) });
      await sendForm(made.form, sheet);
      resend.sheet = made.sheet;
    }
    await api.resend({ batch_id: batchId, rows: [resend] });
    onSent(row);
  };
  const problemNow = (): string | null =>
    operation === '' && operationOf(cells.operation) === '' ? t('resend.chooseOperation') : null;

  return (
    <div className="resend-form" data-testid="resend-form" data-row={row}>
      <h3 className="subhead">{t('resend.title', { row })}</h3>
      <p className="hint">{t('resend.hint')}</p>
      <WorkItemForm
        onSubmit={() => submit(problemNow(), send)}
        onChange={() => {}}
        error={error}
        errorTestId="resend-error"
      >
        <div className="resend-fields">
          <div className="field field-wide">
            <label htmlFor={`${id}-description`}>{t('resend.description')}</label>
            <textarea
              id={`${id}-description`}
              value={description}
              rows={2}
              maxLength={5000}
              disabled={busy}
              onChange={(event) => setDescription(event.target.value)}
              data-testid="resend-description"
              translate="no"
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-operation`}>{t('resend.operation')}</label>
            <select
              id={`${id}-operation`}
              value={operation}
              disabled={busy}
              onChange={(event) => setOperation(event.target.value)}
              data-testid="resend-operation"
            >
              <option value="">{t('resend.operationAsIs', { cell: cells.operation || '—' })}</option>
              {OPERATIONS.map((value) => (
                <option key={value} value={value}>
                  {t(`resend.operations.${value}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-country`}>{t('resend.country')}</label>
            <input
              id={`${id}-country`}
              value={country}
              maxLength={80}
              disabled={busy}
              onChange={(event) => setCountry(event.target.value)}
              data-testid="resend-country"
              translate="no"
            />
          </div>
          <div className="field">
            <label htmlFor={`${id}-sheet`}>{t('resend.sheet')}</label>
            <FilePicker
              id={`${id}-sheet`}
              accept=".pdf,application/pdf"
              disabled={busy}
              chosen={
                sheet
                  ? `${sheet.name} · ${formatBytes(language, sheet.size)}`
                  : cells.sheet
                    ? t('resend.sheetAsIs', { sheet: cells.sheet })
                    : null
              }
              onFiles={(files) => setSheet(files[0] ?? null)}
              testId="resend-sheet"
            />
            {sheetProblems.map((item) => (
              <p key={item.code} className="field-error">
                {problemText(item)}
              </p>
            ))}
          </div>
        </div>
        <div className="resend-actions">
          <button
            type="button"
            className="button"
            onClick={onCancel}
            disabled={busy}
            data-testid="resend-cancel"
          >
            {t('common.cancel')}
          </button>
          <SubmitBar
            label={t('resend.submit')}
            busy={busy}
            blocked={sheetProblems.length > 0}
            problem={problem}
            problemTestId="resend-problem"
            testId="resend-submit"
          />
        </div>
      </WorkItemForm>
    </div>
  );
};
