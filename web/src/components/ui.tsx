/**
 * The small pieces every page uses: status chips, stage badges, error notices, a progress bar,
 * the "Live" mark and the dash for a missing value.
 */
import type { ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import type { BatchStage, RowCounts } from '../../../shared/console/web-contract.js';
import { formatNumber } from '../format.js';
import { useLanguage } from '../hooks.js';
import { errorDetail, errorMessage } from '../i18n.js';
import { countsInOrder, type RowStatus } from '../status.js';

export const StatusChip = ({ status, count }: { status: RowStatus; count?: number }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  return (
    <span className={`chip status-${status}`} data-status={status}>
      <span className="chip-dot" aria-hidden="true" />
      {t(`status.${status}`)}
      {count !== undefined && <span className="chip-count">{formatNumber(language, count)}</span>}
    </span>
  );
};

export const StatusCounts = ({ counts, compact = false }: { counts: RowCounts; compact?: boolean }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const entries = countsInOrder(counts);
  if (entries.length === 0) return <None />;
  return (
    <ul className={compact ? 'counts counts-compact' : 'counts'}>
      {entries.map(({ status, count }) =>
        compact ? (
          <li
            key={status}
            className={`mini-chip status-${status}`}
            data-status={status}
            title={`${t(`status.${status}`)}: ${formatNumber(language, count)}`}
          >
            <span className="chip-dot" aria-hidden="true" />
            <span className="visually-hidden">{t(`status.${status}`)}: </span>
            {formatNumber(language, count)}
          </li>
        ) : (
          <li key={status}>
            <StatusChip status={status} count={count} />
          </li>
        ),
      )}
    </ul>
  );
};

export const StageBadge = ({ stage, testId }: { stage: BatchStage; testId?: string }) => {
  const { t } = useTranslation();
  return (
    <span className={`badge stage-${stage}`} data-testid={testId} data-stage={stage}>
      {t(`stage.${stage}`)}
    </span>
  );
};

export const ErrorNotice = ({ error, testId }: { error: unknown; testId?: string }) => {
  const { t } = useTranslation();
  const detail = errorDetail(error);
  const message = errorMessage(t, error);
  return (
    <div className="notice notice-error" role="alert" data-testid={testId ?? 'error'}>
      <p>{message}</p>
      {detail && detail !== message && (
        <details>
          <summary>{t('common.details')}</summary>
          <p className="detail">{detail}</p>
        </details>
      )}
    </div>
  );
};

export const Notice = ({
  kind,
  children,
  testId,
}: {
  kind: 'info' | 'warn' | 'error' | 'success';
  children: ReactNode;
  testId?: string;
}) => (
  <div className={`notice notice-${kind}`} role={kind === 'error' ? 'alert' : 'status'} data-testid={testId}>
    {children}
  </div>
);

export const ProgressBar = ({ done, total, label }: { done: number; total: number; label: string }) => {
  const ratio = total > 0 ? Math.min(1, done / total) : 0;
  return (
    <div
      className="progress"
      role="progressbar"
      aria-label={label}
      aria-valuemin={0}
      aria-valuemax={total}
      aria-valuenow={done}
    >
      <div className="progress-fill" style={{ width: `${(ratio * 100).toFixed(2)}%` }} />
    </div>
  );
};

export const Loading = () => {
  const { t } = useTranslation();
  return (
    <p className="muted loading" aria-live="polite">
      {t('common.loading')}
    </p>
  );
};

/** The muted dash a page shows where a value is missing. */
export const None = () => {
  const { t } = useTranslation();
  return <span className="muted">{t('common.none')}</span>;
};

/** The "Live" mark beside a page's title while the page refreshes itself; `title` says how often. */
export const Live = ({ title }: { title?: string }) => {
  const { t } = useTranslation();
  return (
    <span className="live" title={title}>
      <span className="live-dot" aria-hidden="true" />
      {t('common.live')}
    </span>
  );
};

/**
 * The answers a person gave, each beside the service's question, as they were written (data: never
 * translated by the browser); the audit and an opened row show them the same way.
 */
export const GivenAnswers = ({
  given,
  testId,
}: {
  given: readonly { question: string; answer: string }[];
  testId?: string;
}) => (
  <ul className="audit-said" data-testid={testId}>
    {given.map((answer) => (
      <li key={answer.question}>
        <span className="muted" translate="no">
          {answer.question}
        </span>{' '}
        <span translate="no">{answer.answer}</span>
      </li>
    ))}
  </ul>
);
