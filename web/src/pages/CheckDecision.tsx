/**
 * One entry of the "To check" list opened to be decided: the product in full, why it waits, the
 * service's NCM, every row and batch it covers, the verdict PDF, and the form. The person picks a
 * candidate or types an NCM, a SIM opening if the verdict offers some, a note, and decides: the
 * console writes the decisions file into each batch's answers folder, and the answers round
 * applies it under the signed-in name.
 */

import type { TFunction } from 'i18next';
import { useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { CheckEntryView, DecisionAccepted } from '../../../shared/console/web-contract.js';
import { None } from '../components/ui.js';
import { BatchRow, SubmitBar, useSubmit, WorkItemForm } from '../components/work-list.js';
import { useConsole } from '../context.js';
import { formatNcm, formatNumber, formatPercent, formatSim } from '../format.js';
import { useLanguage } from '../hooks.js';
import { plural } from '../i18n.js';
import type { Language } from '../lang.js';
import { hrefOf } from '../router.js';

const TYPED = 'typed';

/** Takes an entry and gives why it waits, a phrase per reason in the page's language ("confidence under 90 %"). */
export const reasonWords = (
  t: TFunction,
  language: Language,
  entry: Pick<CheckEntryView, 'reasons' | 'check_below'>,
): string[] =>
  entry.reasons.map((reason) =>
    reason === 'low_confidence' && entry.check_below !== null
      ? t('checks.reason.low_confidence', { below: formatPercent(language, entry.check_below) })
      : t(`checks.reason.${reason}`, { below: '' }),
  );

/** An entry just decided and what the console accepted: the page confirms it and moves on. */
export type Decided = { key: string; entry: CheckEntryView; accepted: DecisionAccepted };

const Candidates = ({
  entry,
  choice,
  typed,
  disabled,
  onChoice,
  onTyped,
}: {
  entry: CheckEntryView;
  choice: string;
  typed: string;
  disabled: boolean;
  onChoice: (choice: string) => void;
  onTyped: (typed: string) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const id = useId();
  return (
    <fieldset className="candidates" disabled={disabled} data-testid="candidates">
      <legend className="subhead">{t('checks.candidates')}</legend>
      {entry.candidates.map((candidate) => (
        <label key={candidate.ncm} className="candidate" data-testid="candidate" data-ncm={candidate.ncm}>
          <input
            type="radio"
            name={`${id}-ncm`}
            checked={choice === candidate.ncm}
            onChange={() => onChoice(candidate.ncm)}
            data-testid="candidate-choice"
          />
          <span className="candidate-body">
            <span className="candidate-head">
              <span className="mono verdict">{formatNcm(candidate.ncm)}</span>
              {candidate.confidence !== null && (
                <span className="muted"> · {formatPercent(language, candidate.confidence)}</span>
              )}
              {candidate.chosen && <span className="chip chip-quiet">{t('checks.servicesChoice')}</span>}
            </span>
            <span className="candidate-description" translate="no">
              {candidate.description}
            </span>
            {candidate.rationale && (
              <span className="hint candidate-rationale" translate="no">
                {candidate.rationale}
              </span>
            )}
          </span>
        </label>
      ))}
      <label className="candidate">
        <input
          type="radio"
          name={`${id}-ncm`}
          checked={choice === TYPED}
          onChange={() => onChoice(TYPED)}
          data-testid="candidate-typed-choice"
        />
        <span className="candidate-body">
          <span>{t('checks.otherNcm')}</span>
          <input
            aria-label={t('checks.otherNcm')}
            className="input-medium mono"
            placeholder="8471.30.12"
            maxLength={12}
            value={typed}
            onFocus={() => onChoice(TYPED)}
            onChange={(event) => onTyped(event.target.value)}
            data-testid="typed-ncm"
          />
        </span>
      </label>
    </fieldset>
  );
};

/**
 * An entry opened: everything about it (the product in full, why it waits, the service's NCM,
 * every row and batch, the verdict PDF) and the form deciding it once for all its rows.
 */
export const CheckDecision = ({
  entry,
  onDirty,
  onDecided,
}: {
  entry: CheckEntryView;
  onDirty: (key: string, dirty: boolean) => void;
  onDecided: (decided: Decided) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api } = useConsole();
  const id = useId();
  const [choice, setChoice] = useState('');
  const [typed, setTyped] = useState('');
  const [sim, setSim] = useState('');
  const [note, setNote] = useState('');
  const { busy, error, problem, submit } = useSubmit();
  const touch = () => onDirty(entry.key, true);

  const decide = () => {
    const ncm = choice === TYPED ? typed.trim() : choice;
    submit(ncm === '' ? t('checks.mustChoose') : null, async () => {
      const accepted = await api.decide({
        rows: entry.rows.map((row) => ({ batch_id: row.batch_id, row: row.row })),
        ncm,
        sim: sim === '' ? null : sim,
        note,
      });
      onDirty(entry.key, false);
      onDecided({ key: entry.key, entry, accepted });
    });
  };

  return (
    <div className="check-open-body" data-testid="check-open">
      <h2 className="check-product" translate="no">
        {entry.description ?? entry.title ?? entry.sku ?? <None />}
      </h2>
      <dl className="meta">
        <div>
          <dt>{t('checks.sku')}</dt>
          <dd className="mono">{entry.sku ?? <None />}</dd>
        </div>
        <div>
          <dt>{t('checks.why')}</dt>
          <dd data-testid="check-reasons">{reasonWords(t, language, entry).join(' · ')}</dd>
        </div>
        <div>
          <dt>{t('checks.servicesNcm')}</dt>
          <dd>
            {entry.ncm ? <span className="mono verdict">{formatNcm(entry.ncm)}</span> : <None />}
            {entry.confidence !== null && (
              <span className="muted"> · {formatPercent(language, entry.confidence)}</span>
            )}
          </dd>
        </div>
        <div>
          <dt>{t('checks.rows')}</dt>
          <dd>
            {entry.rows.map((row, i) => (
              <span key={`${row.batch_id}#${row.row}`}>
                {i > 0 && ', '}
                <BatchRow batchId={row.batch_id} name={row.batch_name} row={row.row} />
                {row.followers > 0 && (
                  <span className="muted">
                    {' '}
                    {t('checks.followers', { n: formatNumber(language, row.followers) })}
                  </span>
                )}
              </span>
            ))}
          </dd>
        </div>
      </dl>
      {entry.verdict && (
        <a
          href={hrefOf({ page: 'verdict', batchId: entry.verdict.batch_id, row: entry.verdict.row })}
          target="_blank"
          rel="noopener"
          className="button button-quiet"
          data-testid="check-pdf"
        >
          {t('checks.verdictPdf')}
        </a>
      )}
      <WorkItemForm onSubmit={decide} onChange={touch} error={error} errorTestId="check-error">
        <Candidates
          entry={entry}
          choice={choice}
          typed={typed}
          disabled={busy}
          onChoice={(next) => {
            touch();
            setChoice(next);
          }}
          onTyped={(next) => {
            touch();
            setTyped(next);
          }}
        />
        {entry.sim_options.length > 0 && (
          <div className="field">
            <label htmlFor={`${id}-sim`}>{t('checks.sim')}</label>
            <select
              id={`${id}-sim`}
              className="input-wide"
              value={sim}
              disabled={busy}
              onChange={(event) => setSim(event.target.value)}
              data-testid="check-sim"
            >
              <option value="">{t('checks.simNone')}</option>
              {entry.sim_options.map((option) => (
                <option key={option.code} value={option.code}>
                  {formatSim(option.code)} · {option.description}
                </option>
              ))}
            </select>
            <p className="hint">{t('checks.simHint')}</p>
          </div>
        )}
        <div className="field">
          <label htmlFor={`${id}-note`}>{t('checks.note')}</label>
          <textarea
            id={`${id}-note`}
            rows={2}
            maxLength={500}
            value={note}
            disabled={busy}
            onChange={(event) => setNote(event.target.value)}
            data-testid="check-note"
          />
        </div>
        <SubmitBar
          label={plural(t, 'checks.decide', entry.row_count, formatNumber(language, entry.row_count))}
          busy={busy}
          problem={problem}
          problemTestId="check-problem"
          testId="check-decide"
        />
      </WorkItemForm>
    </div>
  );
};
