/**
 * The batch list, newest first, a page at a time ("Load more"). Refreshes every 5 s while a
 * batch is moving, every 2 s (for a minute) while a just-uploaded batch has not shown up yet.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { BatchList, BatchListItem } from '../../../shared/console/web-contract.js';
import { ErrorNotice, Live, Loading, Notice, StageBadge, StatusCounts } from '../components/ui.js';
import { useConsole } from '../context.js';
import { formatDateTime, formatMoney, formatNumber, formatShortDateTime } from '../format.js';
import { navigate, useLanguage, usePoll } from '../hooks.js';
import { hrefOf } from '../router.js';
import { isLive } from '../status.js';

const WAIT_MS = 60_000;

const newestFirst = (a: BatchListItem, b: BatchListItem): number => b.started_at.localeCompare(a.started_at);

/** The first page again, over what is loaded: fresh items replace old ones, later pages stay. */
const mergeFirstPage = (loaded: BatchList | null, first: BatchList): BatchList => {
  if (!loaded) return first;
  const fresh = new Set(first.batches.map((batch) => batch.batch_id));
  const rest = loaded.batches.slice(first.batches.length).filter((batch) => !fresh.has(batch.batch_id));
  const morePages = loaded.batches.length > first.batches.length;
  return {
    batches: [...first.batches, ...rest].sort(newestFirst),
    next: morePages ? loaded.next : first.next,
  };
};

const BatchRow = ({ batch }: { batch: BatchListItem }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const href = hrefOf({ page: 'batch', batchId: batch.batch_id });
  return (
    <tr
      className="clickable"
      data-testid="batch-row"
      data-batch-id={batch.batch_id}
      data-stage={batch.stage}
      onClick={(event) => {
        if ((event.target as HTMLElement).closest('a')) return;
        navigate({ page: 'batch', batchId: batch.batch_id });
      }}
    >
      <th scope="row" className="cell-name">
        <a href={href}>{batch.name}</a>
        {batch.plan_only && <span className="tag">{t('batches.planOnly')}</span>}
      </th>
      <td className="cell-file truncate" title={batch.file_name}>
        {batch.file_name}
      </td>
      <td>
        <StageBadge stage={batch.stage} />
        {batch.stop && (
          <span className="stop-mark" title={t('batches.stopped', { title: batch.stop.title })}>
            !<span className="visually-hidden">{t('batches.stopped', { title: batch.stop.title })}</span>
          </span>
        )}
      </td>
      <td className="num">{formatNumber(language, batch.rows_total)}</td>
      <td className="cell-counts">
        <StatusCounts counts={batch.by_status} compact />
      </td>
      <td className="num">{formatMoney(language, batch.billed_usd)}</td>
      <td className="cell-date" title={formatDateTime(language, batch.started_at)}>
        {formatShortDateTime(language, batch.started_at)}
      </td>
      <td
        className="cell-date"
        title={batch.finished_at ? formatDateTime(language, batch.finished_at) : undefined}
      >
        {batch.finished_at ? formatShortDateTime(language, batch.finished_at) : t('common.none')}
      </td>
    </tr>
  );
};

const WaitingNotice = ({ name, since }: { name: string; since: number }) => {
  const { t } = useTranslation();
  const [now, setNow] = useState(Date.now());
  usePoll(() => setNow(Date.now()), 1_000, now - since < WAIT_MS);
  return now - since < WAIT_MS ? (
    <Notice kind="info" testId="waiting-notice">
      <span className="spinner" aria-hidden="true" /> <strong>{t('batches.waiting', { name })}</strong>{' '}
      {t('batches.waitingHint')}
    </Notice>
  ) : (
    <Notice kind="warn" testId="waiting-notice">
      {t('batches.waitingTimeout', { name })}
    </Notice>
  );
};

export const BatchesPage = ({ waiting }: { waiting: string | null }) => {
  const { t } = useTranslation();
  const { api } = useConsole();
  const [list, setList] = useState<BatchList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const [waitSince] = useState(() => Date.now());

  const refresh = async () => {
    try {
      const first = await api.batches();
      setList((loaded) => mergeFirstPage(loaded, first));
      setError(null);
    } catch (failure) {
      setError(failure);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, when the page opens.
  useEffect(() => {
    void refresh();
  }, []);

  const arrived = waiting === null || (list?.batches.some((batch) => batch.name === waiting) ?? false);
  const waitingNow = !arrived && Date.now() - waitSince < WAIT_MS;
  const anyLive = list?.batches.some(isLive) ?? false;
  usePoll(refresh, waitingNow ? 2_000 : 5_000, waitingNow || anyLive);

  const loadMore = async () => {
    if (!list?.next) return;
    setLoadingMore(true);
    try {
      const page = await api.batches(list.next);
      setList((loaded) => {
        const known = new Set(loaded?.batches.map((batch) => batch.batch_id));
        return {
          batches: [...(loaded?.batches ?? []), ...page.batches.filter((b) => !known.has(b.batch_id))],
          next: page.next,
        };
      });
    } catch (failure) {
      setError(failure);
    } finally {
      setLoadingMore(false);
    }
  };

  return (
    <div className="page">
      <div className="page-head">
        <h1>{t('batches.title')}</h1>
        {anyLive && <Live title={t('batches.autoRefresh')} />}
        <span className="spacer" />
        <a className="button button-primary" href="#/upload">
          {t('batches.upload')}
        </a>
      </div>
      {waiting !== null && !arrived && <WaitingNotice name={waiting} since={waitSince} />}
      {error !== null && <ErrorNotice error={error} />}
      {list === null && error === null && <Loading />}
      {list !== null && list.batches.length === 0 && <p className="empty">{t('batches.empty')}</p>}
      {list !== null && list.batches.length > 0 && (
        <div className="table-wrap">
          <table className="table" data-testid="batches-table">
            <thead>
              <tr>
                <th scope="col">{t('batches.columns.name')}</th>
                <th scope="col">{t('batches.columns.file')}</th>
                <th scope="col">{t('batches.columns.stage')}</th>
                <th scope="col" className="num">
                  {t('batches.columns.rows')}
                </th>
                <th scope="col">{t('batches.columns.byStatus')}</th>
                <th scope="col" className="num">
                  {t('batches.columns.billed')}
                </th>
                <th scope="col">{t('batches.columns.started')}</th>
                <th scope="col">{t('batches.columns.finished')}</th>
              </tr>
            </thead>
            <tbody>
              {list.batches.map((batch) => (
                <BatchRow key={batch.batch_id} batch={batch} />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list?.next && (
        <div className="more">
          <button
            type="button"
            className="button"
            onClick={loadMore}
            disabled={loadingMore}
            data-testid="batches-load-more"
          >
            {loadingMore ? t('common.loading') : t('common.loadMore')}
          </button>
        </div>
      )}
    </div>
  );
};
