/**
 * One group of the inbox: rows asked exactly the same questions, answered once for all the
 * rows checked. A new PDF sheet, if given, is uploaded once per batch of the checked rows.
 */
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  type AnswersAccepted,
  CONSOLE_LIMITS,
  type PendingRowView,
  type QuestionGroup,
  type RowAnswers,
} from '../../../shared/console/web-contract.js';
import { sendForm } from '../client.js';
import { FilePicker, useFileProblemText } from '../components/files.js';
import { None } from '../components/ui.js';
import { BatchLink, SubmitBar, useSubmit, WorkItemCard, WorkItemForm } from '../components/work-list.js';
import { useConsole } from '../context.js';
import { checkSheet } from '../files.js';
import { formatBytes, formatDateTime, formatNcm, formatNumber, formatPercent } from '../format.js';
import { useLanguage } from '../hooks.js';
import { plural } from '../i18n.js';
import { toSend } from './upload-flow.js';

const OTHER = '\u0000other';
const WARN_DAYS = 5;

type Answer = { choice: string | null; other: string; text: string };

const answerOf = (answer: Answer, hasOptions: boolean): string =>
  (hasOptions ? (answer.choice === OTHER ? answer.other : (answer.choice ?? '')) : answer.text).trim();

const QuestionField = ({
  index,
  question,
  answer,
  maxChars,
  disabled,
  onChange,
}: {
  index: number;
  question: QuestionGroup['questions'][number];
  answer: Answer;
  maxChars: number;
  disabled: boolean;
  onChange: (answer: Answer) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const id = useId();
  const n = formatNumber(language, index + 1);
  const left = (value: string) => (
    <span className="hint">
      {t('questions.charsLeft', { n: formatNumber(language, maxChars - value.length) })}
    </span>
  );
  if (question.options.length === 0) {
    return (
      <div className="question">
        <label htmlFor={`${id}-text`} className="question-text">
          <span className="question-number">{t('questions.question', { n })}</span>
          {question.text}
        </label>
        <textarea
          id={`${id}-text`}
          rows={2}
          maxLength={maxChars}
          value={answer.text}
          disabled={disabled}
          onChange={(event) => onChange({ ...answer, text: event.target.value })}
          data-testid="answer-text"
          data-question={index}
        />
        {left(answer.text)}
      </div>
    );
  }
  return (
    <fieldset className="question" data-testid="answer-options" data-question={index} disabled={disabled}>
      <legend className="question-text">
        <span className="question-number">{t('questions.question', { n })}</span>
        {question.text}
      </legend>
      <div className="choices">
        {question.options.map((option, optionIndex) => (
          <label key={option} className="choice">
            <input
              type="radio"
              name={`${id}-choice`}
              value={option}
              checked={answer.choice === option}
              onChange={() => onChange({ ...answer, choice: option })}
              data-testid="answer-option"
              data-option={optionIndex}
            />
            {option}
          </label>
        ))}
        <label className="choice">
          <input
            type="radio"
            name={`${id}-choice`}
            value={OTHER}
            checked={answer.choice === OTHER}
            onChange={() => onChange({ ...answer, choice: OTHER })}
            data-testid="answer-other-choice"
          />
          {t('questions.other')}
        </label>
      </div>
      {answer.choice === OTHER && (
        <div className="other">
          <input
            aria-label={t('questions.otherLabel', { n })}
            maxLength={maxChars}
            value={answer.other}
            onChange={(event) => onChange({ ...answer, other: event.target.value })}
            data-testid="answer-other"
            // biome-ignore lint/a11y/noAutofocus: the field appears because the person just chose it.
            autoFocus
          />
          {left(answer.other)}
        </div>
      )}
    </fieldset>
  );
};

const RowsChecklist = ({
  rows,
  checked,
  setChecked,
  disabled,
}: {
  rows: PendingRowView[];
  checked: Set<string>;
  setChecked: (checked: Set<string>) => void;
  disabled: boolean;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const all = rows.every((row) => checked.has(row.classification_id));
  return (
    <div className="table-wrap">
      <table className="table table-compact stack-on-phone">
        <thead>
          <tr>
            <th scope="col" className="cell-check">
              <input
                type="checkbox"
                checked={all}
                disabled={disabled}
                aria-label={t('questions.selectAll')}
                onChange={() => setChecked(new Set(all ? [] : rows.map((row) => row.classification_id)))}
                data-testid="select-all-rows"
              />
            </th>
            <th scope="col">{t('questions.columns.batch')}</th>
            <th scope="col" className="num">
              {t('questions.columns.row')}
            </th>
            <th scope="col">{t('questions.columns.sku')}</th>
            <th scope="col">{t('questions.columns.description')}</th>
            <th scope="col">{t('questions.columns.provisional')}</th>
            <th scope="col">{t('questions.columns.daysLeft')}</th>
            <th scope="col">{t('questions.columns.sameProduct')}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr
              key={row.classification_id}
              data-testid="question-row"
              data-row={row.row}
              data-batch-id={row.batch_id}
            >
              <td className="cell-check">
                <input
                  type="checkbox"
                  checked={checked.has(row.classification_id)}
                  disabled={disabled}
                  aria-label={t('questions.selectRow', { row: row.row, batch: row.batch_name })}
                  onChange={() => {
                    const next = new Set(checked);
                    if (next.has(row.classification_id)) next.delete(row.classification_id);
                    else next.add(row.classification_id);
                    setChecked(next);
                  }}
                  data-testid="row-check"
                />
              </td>
              <td className="truncate" title={row.batch_name} data-label={t('questions.columns.batch')}>
                <BatchLink batchId={row.batch_id} name={row.batch_name} />
              </td>
              <th scope="row" className="num" data-label={t('questions.columns.row')}>
                {row.row}
              </th>
              <td className="mono truncate" data-label={t('questions.columns.sku')}>
                {row.sku ?? <None />}
              </td>
              <td
                className="truncate cell-wide"
                title={row.description ?? undefined}
                translate="no"
                data-label={t('questions.columns.description')}
              >
                {row.description ?? <None />}
              </td>
              <td className="nowrap" data-label={t('questions.columns.provisional')}>
                {row.provisional_ncm ? (
                  <span className="mono">{formatNcm(row.provisional_ncm)}</span>
                ) : (
                  <None />
                )}
                {row.provisional_confidence !== null && (
                  <span className="muted"> · {formatPercent(language, row.provisional_confidence)}</span>
                )}
              </td>
              <td
                className={row.days_left < WARN_DAYS ? 'nowrap days days-warn' : 'nowrap days'}
                title={t('questions.daysLeftHint', { date: formatDateTime(language, row.abandons_at) })}
                data-testid="days-left"
                data-days={row.days_left}
                data-label={t('questions.columns.daysLeft')}
              >
                {row.days_left <= 0
                  ? t('questions.lastDay')
                  : plural(t, 'questions.daysLeft', row.days_left, formatNumber(language, row.days_left))}
              </td>
              <td data-label={t('questions.columns.sameProduct')}>
                {row.same_product_rows.length > 0 ? (
                  t('questions.sameProductRows', { rows: row.same_product_rows.join(', ') })
                ) : (
                  <None />
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
};

/** The answers for every checked row, a batch's new sheet with its rows. */
const submissionOf = (
  group: QuestionGroup,
  rows: PendingRowView[],
  answers: string[],
  sheets: Map<string, string>,
): RowAnswers[] =>
  rows.map((row) => {
    const sheet = sheets.get(row.batch_id);
    return {
      batch_id: row.batch_id,
      classification_id: row.classification_id,
      answers: group.questions.flatMap((_, index) => {
        const questionId = row.question_ids[index];
        return questionId === undefined ? [] : [{ question_id: questionId, answer: answers[index] ?? '' }];
      }),
      ...(sheet ? { sheet } : {}),
    };
  });

export const QuestionGroupCard = ({
  group,
  onDirty,
  onSent,
}: {
  group: QuestionGroup;
  onDirty: (key: string, dirty: boolean) => void;
  onSent: (rows: PendingRowView[], accepted: AnswersAccepted) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api, session } = useConsole();
  const id = useId();
  const maxChars = session.limits.answer_chars;
  const [answers, setAnswers] = useState<Answer[]>(() =>
    group.questions.map(() => ({ choice: null, other: '', text: '' })),
  );
  // Rows left out; every row is in by default, rows the inbox adds later too.
  const [unchecked, setUnchecked] = useState<Set<string>>(() => new Set());
  const checked = new Set(
    group.rows.map((row) => row.classification_id).filter((classification) => !unchecked.has(classification)),
  );
  const [sheet, setSheet] = useState<File | null>(null);
  const { busy, error, problem, submit } = useSubmit();

  const touch = () => onDirty(group.key, true);
  const values = answers.map((answer, index) =>
    answerOf(answer, (group.questions[index]?.options.length ?? 0) > 0),
  );
  const chosen = group.rows.filter((row) => checked.has(row.classification_id));
  const sheetProblems = sheet ? checkSheet(toSend(sheet), session.limits) : [];
  const problemText = useFileProblemText();

  const problemNow = (): string | null => {
    if (values.some((value) => value === '')) return t('questions.mustAnswer');
    if (values.some((value) => value.length > maxChars)) {
      return t('questions.tooLong', { max: formatNumber(language, maxChars) });
    }
    if (chosen.length === 0) return t('questions.mustSelect');
    return null;
  };
  const send = async () => {
    const sheets = new Map<string, string>();
    if (sheet) {
      for (const batchId of new Set(chosen.map((row) => row.batch_id))) {
        const made = await api.answerSheet({ batch_id: batchId, sheet: toSend(sheet) });
        await sendForm(made.form, sheet);
        sheets.set(batchId, made.sheet);
      }
    }
    // At most answersPerSubmission rows a request; rows of a part that went stay sent if a later part fails.
    const size = CONSOLE_LIMITS.answersPerSubmission;
    for (let start = 0; start < chosen.length; start += size) {
      const part = chosen.slice(start, start + size);
      onSent(part, await api.answers({ rows: submissionOf(group, part, values, sheets) }));
    }
    onDirty(group.key, false);
  };

  return (
    <WorkItemCard
      className="question-group"
      testId="question-group"
      data={{ 'data-group-key': group.key }}
      title={plural(t, 'questions.group', group.rows.length, formatNumber(language, group.rows.length))}
    >
      <WorkItemForm
        onSubmit={() => submit(problemNow(), send)}
        onChange={touch}
        error={error}
        errorTestId="answers-error"
      >
        <div className="questions">
          {group.questions.map((question, index) => (
            <QuestionField
              // Questions have no id of their own; their place in the group is theirs.
              // biome-ignore lint/suspicious/noArrayIndexKey: the order is fixed for the group.
              key={index}
              index={index}
              question={question}
              answer={answers[index] ?? { choice: null, other: '', text: '' }}
              maxChars={maxChars}
              disabled={busy}
              onChange={(answer) => {
                touch();
                setAnswers((before) => before.map((old, i) => (i === index ? answer : old)));
              }}
            />
          ))}
        </div>
        <h3 className="subhead">{t('questions.rows')}</h3>
        <RowsChecklist
          rows={group.rows}
          checked={checked}
          setChecked={(next) => {
            touch();
            setUnchecked(
              new Set(
                group.rows
                  .map((row) => row.classification_id)
                  .filter((classification) => !next.has(classification)),
              ),
            );
          }}
          disabled={busy}
        />
        <div className="group-foot">
          <div className="field">
            <label htmlFor={`${id}-sheet`}>{t('questions.sheet')}</label>
            <FilePicker
              id={`${id}-sheet`}
              accept=".pdf,application/pdf"
              disabled={busy}
              chosen={sheet ? `${sheet.name} · ${formatBytes(language, sheet.size)}` : null}
              onFiles={(files) => {
                touch();
                setSheet(files[0] ?? null);
              }}
              testId="answer-sheet"
            />
            <p className="hint">{t('questions.sheetHint')}</p>
            {sheetProblems.map((item) => (
              <p key={item.code} className="field-error">
                {problemText(item)}
              </p>
            ))}
          </div>
          <SubmitBar
            label={t('questions.submit')}
            busy={busy}
            blocked={sheetProblems.length > 0}
            problem={problem}
            problemTestId="answers-problem"
            testId="submit-answers"
          />
        </div>
      </WorkItemForm>
    </WorkItemCard>
  );
};
