/**
 * One batch: what it is, its live progress (every 2 s while it moves), why it stopped, its
 * problems and warnings, its files to download, and its rows (src/pages/RowsTable.tsx). A batch
 * whose catalogue is still being read says so; a plan can be run from here (RunPlan), the new
 * batch opening once it starts.
 */
import { type ReactNode, useCallback, useState } from 'react';
import { useTranslation } from 'react-i18next';
import {
  type BatchFileName,
  type BatchView,
  type Message,
  RESULTS_BUNDLE,
  type RowList,
  wordMessage,
} from '../../../shared/console/web-contract.js';
import {
  ErrorNotice,
  Live,
  Loading,
  Notice,
  ProgressBar,
  StageBadge,
  StatusCounts,
} from '../components/ui.js';
import { useConsole } from '../context.js';
import { downloadUrl } from '../download.js';
import {
  formatDateTime,
  formatDuration,
  formatMoney,
  formatNcmTable,
  formatNumber,
  formatPercent,
} from '../format.js';
import { navigate, useLanguage, useLoader, usePoll } from '../hooks.js';
import { waitForStartedBatch } from '../started-batch.js';
import { isLive } from '../status.js';
import { BatchAudit } from './BatchAudit.js';
import { RowsTable } from './RowsTable.js';

/** Each language by its own name, as the upload form lists them. */
const WORKBOOK_LANGUAGE_NAMES = { pt: 'Português', es: 'Español', en: 'English' } as const;

const FILE_LABEL: Record<BatchFileName, string> = {
  'results.xlsx': 'results_workbook',
  'results.csv': 'results',
  'erp-update.csv': 'erp_update',
  'review.xlsx': 'review_workbook',
  'review.csv': 'review',
  'summary.json': 'summary',
  'plan.json': 'plan',
  'plan.csv': 'plan',
  'answers-report.csv': 'answers_report',
  'results.partial.xlsx': 'results_partial_workbook',
  'results.partial.csv': 'results_partial',
  'summary.partial.json': 'summary_partial',
};

/** A file of the outbox, the results with their PDFs, or one answers round's own report (by its name). */
type Download = BatchFileName | typeof RESULTS_BUNDLE | { file: string; at: string };

const fileOf = (download: Download): string => (typeof download === 'string' ? download : download.file);

const Downloads = ({ batch }: { batch: BatchView }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api } = useConsole();
  const [busy, setBusy] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  // The workbook with its verdict PDFs beside it, so its links open: offered once the workbook is whole.
  // Every answers round's own report after the latest one, oldest first.
  const shown: Download[] = batch.files.flatMap((file): Download[] =>
    file === 'results.xlsx'
      ? [file, RESULTS_BUNDLE]
      : file === 'answers-report.csv' && batch.round_reports.length > 1
        ? [file, ...batch.round_reports]
        : [file],
  );
  const labelOf = (download: Download): string =>
    typeof download !== 'string'
      ? t('batch.files.round_report', { at: formatDateTime(language, download.at) })
      : t(`batch.files.${download === RESULTS_BUNDLE ? 'results_bundle' : FILE_LABEL[download]}`);
  const download = async (file: string) => {
    setBusy(file);
    setError(null);
    try {
      const link = await api.fileLink(batch.batch_id, file);
      downloadUrl(link.url, link.file_name);
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(null);
    }
  };
  return (
    <section className="panel" aria-labelledby="downloads-title">
      <h2 id="downloads-title">{t('batch.downloads')}</h2>
      {batch.files.length === 0 ? (
        <p className="muted">{t('batch.noFiles')}</p>
      ) : (
        <ul className="downloads">
          {shown.map((item) => {
            const file = fileOf(item);
            return (
              <li key={file}>
                <button
                  type="button"
                  className="button download"
                  onClick={() => download(file)}
                  disabled={busy !== null}
                  aria-busy={busy === file}
                  data-testid={`download-${file}`}
                  title={busy === file ? t('batch.preparingLink') : undefined}
                >
                  <span className="download-icon" aria-hidden="true">
                    ↓
                  </span>
                  <span className="download-label">{labelOf(item)}</span>
                  <span className="download-file">{file}</span>
                </button>
              </li>
            );
          })}
        </ul>
      )}
      {error !== null && <ErrorNotice error={error} testId="download-error" />}
    </section>
  );
};

const Stat = ({ label, children, testId }: { label: string; children: ReactNode; testId?: string }) => (
  <div className="stat">
    <dt>{label}</dt>
    <dd data-testid={testId}>{children}</dd>
  </div>
);

const Progress = ({ batch }: { batch: BatchView }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const none = t('common.none');
  const percent = batch.rows_total > 0 ? Math.floor((batch.rows_done / batch.rows_total) * 100) : 0;
  return (
    <section className="panel" aria-labelledby="progress-title">
      <div className="panel-head">
        <h2 id="progress-title">{t('batch.progress')}</h2>
        <span className="progress-numbers">
          <strong data-testid="rows-done" data-value={batch.rows_done}>
            {formatNumber(language, batch.rows_done)}
          </strong>{' '}
          {t('batch.of')}{' '}
          <strong data-testid="rows-total" data-value={batch.rows_total}>
            {formatNumber(language, batch.rows_total)}
          </strong>{' '}
          {t('batch.rowsDone')} <span className="muted">({percent}%)</span>
          {/* A large file shows no total for a minute while Prepare reads it: how far it has read. */}
          {batch.rows_read !== null && batch.rows_read > 0 && (
            <span className="sub" data-testid="rows-read" data-value={batch.rows_read}>
              {t('batch.rowsRead', { rows: formatNumber(language, batch.rows_read) })}
            </span>
          )}
        </span>
      </div>
      <ProgressBar done={batch.rows_done} total={batch.rows_total} label={t('batch.progress')} />
      <div className="progress-counts">
        <StatusCounts counts={batch.by_status} />
      </div>
      <dl className="stats">
        <Stat label={t('batch.slots')} testId="slots">
          <span data-in-use={batch.slots.in_use} data-cap={batch.slots.cap ?? ''}>
            {t('batch.slotsOf', {
              inUse: formatNumber(language, batch.slots.in_use),
              cap: batch.slots.cap === null ? none : formatNumber(language, batch.slots.cap),
            })}
          </span>
        </Stat>
        <Stat label={t('batch.billed')} testId="billed">
          <span data-value={batch.billed_usd}>{formatMoney(language, batch.billed_usd)}</span>
        </Stat>
        <Stat label={t('batch.saved')} testId="saved">
          {batch.saved_usd === null ? none : formatMoney(language, batch.saved_usd)}
          {/* Where it came from: earlier verdicts reused, identical rows of the file classified once. */}
          {batch.saved_usd !== null && batch.saved_usd > 0 && (
            <span className="sub" data-testid="saved-from">
              {wordMessage(batch.saving, language)}
            </span>
          )}
        </Stat>
        {batch.coverage && (
          <Stat label={t('batch.covered')} testId="coverage">
            <span
              data-rows={batch.coverage.rows}
              data-value={batch.coverage.value ?? ''}
              data-classifications={batch.coverage.classifications}
            >
              {batch.coverage.value === null
                ? t('batch.coveredOf', {
                    rows: formatNumber(language, batch.coverage.rows),
                    classifications: formatNumber(language, batch.coverage.classifications),
                  })
                : t('batch.coveredWithValueOf', {
                    rows: formatNumber(language, batch.coverage.rows),
                    value: formatNumber(language, batch.coverage.value),
                    classifications: formatNumber(language, batch.coverage.classifications),
                  })}
            </span>
          </Stat>
        )}
        <Stat label={t('batch.timeLeft')} testId="eta">
          {batch.eta_seconds === null || !isLive(batch) ? none : formatDuration(language, batch.eta_seconds)}
        </Stat>
        <Stat label={t('batch.pending')} testId="pending-questions">
          {batch.pending_questions > 0 ? (
            <a href="#/questions">
              {formatNumber(language, batch.pending_questions)} · {t('batch.answerThem')}
            </a>
          ) : (
            formatNumber(language, 0)
          )}
        </Stat>
      </dl>
    </section>
  );
};

/**
 * A stop the service decided (its Problem `type` is a URL), said in the service's own words; the
 * pipeline's own stops (`invalid_options`, a file it cannot read) are said by the batch's problems.
 */
const isServiceStop = (stop: { type: string }): boolean => stop.type.includes('/');

/** A list of messages, each worded in the page's language from the shared table (shared/wording/). */
const MessageList = ({ said }: { said: readonly Message[] }) => {
  const language = useLanguage();
  return (
    <ul>
      {said.map((one) => (
        <li key={JSON.stringify(one)} data-code={one.code}>
          {wordMessage(one, language)}
        </li>
      ))}
    </ul>
  );
};

const Messages = ({ batch }: { batch: BatchView }) => {
  const { t } = useTranslation();
  return (
    <>
      {batch.stop &&
        (isServiceStop(batch.stop) ? (
          <Notice kind="error" testId="stop">
            <strong>{t('batch.stopTitle')}:</strong> {batch.stop.title}
            <p className="detail">{batch.stop.detail}</p>
          </Notice>
        ) : (
          // The pipeline's own stop (batch.json, the file): the problems below say why, in this language.
          <Notice kind="error" testId="stop">
            <strong>{t('batch.stopTitle')}</strong>
          </Notice>
        ))}
      {batch.problems.length > 0 && (
        <Notice kind="error" testId="problems">
          <strong>{t('batch.problems')}</strong>
          <MessageList said={batch.problems} />
        </Notice>
      )}
      {batch.warnings.length > 0 && (
        <Notice kind="warn" testId="warnings">
          <strong>{t('batch.warnings')}</strong>
          <MessageList said={batch.warnings} />
        </Notice>
      )}
    </>
  );
};

const Options = ({ batch }: { batch: BatchView }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const options = batch.options;
  if (!options) return null;
  const items: [string, string][] = [];
  if (options.operation) {
    items.push([
      t('batch.option.operation'),
      t(options.operation === 'import' ? 'upload.operationImport' : 'upload.operationExport'),
    ]);
  }
  if (options.country) items.push([t('batch.option.country'), options.country]);
  if (options.max_usd !== undefined)
    items.push([t('batch.option.budget'), formatMoney(language, options.max_usd)]);
  items.push([
    t('batch.option.reclassify'),
    t(
      options.reclassify === 'all'
        ? 'upload.reclassifyAll'
        : options.reclassify === 'ended_codes'
          ? 'upload.reclassifyEndedCodes'
          : 'upload.reclassifyChanged',
    ),
  ]);
  items.push([
    t('batch.option.duplicates'),
    t(options.duplicates === 'classify_each' ? 'upload.classifyEach' : 'upload.classifyOnce'),
  ]);
  if (options.language) items.push([t('batch.option.language'), WORKBOOK_LANGUAGE_NAMES[options.language]]);
  if (options.check_below !== undefined)
    items.push([t('batch.option.checkBelow'), formatPercent(language, options.check_below)]);
  return (
    <dl className="options-line" aria-label={t('batch.options')}>
      {items.map(([label, value]) => (
        <div key={label}>
          <dt>{label}</dt>
          <dd>{value}</dd>
        </div>
      ))}
    </dl>
  );
};

/**
 * "Run this plan": the planned batch's files and options copied into a batch of their own
 * (POST /batches/{id}/run), nothing uploaded again; the page then opens that batch.
 */
const RunPlan = ({ batch }: { batch: BatchView }) => {
  const { t } = useTranslation();
  const { api } = useConsole();
  const [phase, setPhase] = useState<'idle' | 'copying' | 'starting'>('idle');
  const [error, setError] = useState<unknown>(null);
  const run = async () => {
    setError(null);
    setPhase('copying');
    try {
      const started = await api.runPlan(batch.batch_id);
      setPhase('starting');
      const batchId = await waitForStartedBatch(api, {
        batch_name: started.batch_name,
        file_name: started.file_name,
        since: started.requested_at,
      });
      navigate(
        batchId === null ? { page: 'batches', waiting: started.batch_name } : { page: 'batch', batchId },
      );
    } catch (failure) {
      setError(failure);
      setPhase('idle');
    }
  };
  return (
    <section className="panel run-plan" data-testid="run-plan" aria-labelledby="run-plan-title">
      <div className="run-plan-text">
        <h2 id="run-plan-title">{t('batch.runPlan.title')}</h2>
        <p className="muted">{t('batch.runPlan.hint', { name: batch.batch_id })}</p>
      </div>
      <button
        type="button"
        className="button button-primary"
        onClick={run}
        disabled={phase !== 'idle'}
        aria-busy={phase !== 'idle'}
        data-testid="run-plan-button"
      >
        {phase === 'idle'
          ? t('batch.runPlan.button')
          : phase === 'copying'
            ? t('batch.runPlan.copying')
            : t('batch.runPlan.starting')}
      </button>
      {error !== null && <ErrorNotice error={error} testId="run-plan-error" />}
    </section>
  );
};

/** A batch whose catalogue Prepare is still reading: no rows yet, and why. */
const Preparing = () => {
  const { t } = useTranslation();
  return (
    <Notice kind="info" testId="preparing">
      <span className="spinner" aria-hidden="true" /> <strong>{t('batch.preparing')}</strong>{' '}
      {t('batch.preparingHint')}
    </Notice>
  );
};

const Header = ({ batch }: { batch: BatchView }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  return (
    <div className="batch-head">
      <a className="back" href="#/batches">
        ← {t('batch.back')}
      </a>
      <div className="page-head">
        <h1 data-testid="batch-name">{batch.name}</h1>
        <StageBadge stage={batch.stage} testId="stage" />
        {isLive(batch) && <Live />}
      </div>
      <dl className="meta">
        <div>
          <dt>{t('batch.file')}</dt>
          <dd>{batch.file_name}</dd>
        </div>
        <div>
          <dt>{t('batch.started')}</dt>
          <dd>{formatDateTime(language, batch.started_at)}</dd>
        </div>
        <div>
          <dt>{t('batch.finished')}</dt>
          <dd>{batch.finished_at ? formatDateTime(language, batch.finished_at) : t('batch.notFinished')}</dd>
        </div>
        {/* The table its codes are checked against: a finished batch's results, the one they were written with. */}
        <div>
          <dt>{t('batch.ncmTable')}</dt>
          <dd data-testid="ncm-table" data-as-of={batch.ncm_table.as_of ?? ''}>
            {formatNcmTable(language, batch.ncm_table)}
          </dd>
        </div>
      </dl>
      <Options batch={batch} />
      {batch.plan_only && <p className="muted">{t('batch.planOnly')}</p>}
    </div>
  );
};

/** Rows by status as one comparable text: the statuses in order, those with no row left out. */
const countsKey = (counts: RowList['by_status']): string =>
  Object.entries(counts)
    .filter(([, count]) => (count ?? 0) > 0)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([status, count]) => `${status}:${count}`)
    .join(',');

export const BatchPage = ({ batchId }: { batchId: string }) => {
  const { api } = useConsole();
  const { data: batch, error, reload } = useLoader(() => api.batch(batchId), batchId);
  const live = batch !== null && isLive(batch);
  usePoll(reload, 2_000, live);
  // A finished batch moves again when a row is sent again: once the rows' counts differ from the
  // page's, the page reads the batch again (its summary, billed, files), as the rows table did.
  const shownCounts = countsKey(batch?.by_status ?? {});
  const followCounts = useCallback(
    (counts: RowList['by_status']) => {
      if (!live && countsKey(counts) !== shownCounts) void reload();
    },
    [live, shownCounts, reload],
  );
  if (batch === null) {
    return <div className="page">{error !== null ? <ErrorNotice error={error} /> : <Loading />}</div>;
  }
  return (
    <div className="page" data-testid="batch-page" data-batch-id={batch.batch_id}>
      <Header batch={batch} />
      {error !== null && <ErrorNotice error={error} />}
      {batch.stage === 'preparing' && <Preparing />}
      {batch.stage === 'planned' && <RunPlan batch={batch} />}
      <Messages batch={batch} />
      <div className="batch-grid">
        <Progress batch={batch} />
        <Downloads batch={batch} />
      </div>
      <RowsTable
        batchId={batch.batch_id}
        live={live}
        preparing={batch.stage === 'preparing'}
        planned={batch.stage === 'planned'}
        divergentRows={batch.divergent_rows}
        onCounts={followCounts}
      />
      <BatchAudit batchId={batch.batch_id} />
    </div>
  );
};
