/**
 * A batch's rows: filtered by status (several at once) and searched (q, 300 ms after typing
 * stops), a page at a time. While the batch moves, the loaded rows are looked at again every 5 s.
 * A filtered page may come back short (the server reads a bounded number of rows a request) with
 * more to load; a search's matches are not counted, so it says how many were found so far.
 *
 * A rejected or failed row offers "Reenviar" (ResendForm.tsx): sent again, it works while the
 * batch does not, and the rows shown are looked at again while any works.
 *
 * Beside the verdict's NCM, the NCM the row declared; a code that is not in the NCM table in force
 * is marked, its title naming the table the server checked it against (the page's `ncm_table`),
 * and the rows with such a code can be kept alone (found a page at a time, as a search's are).
 */
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { RowList, RowView } from '../../../shared/console/web-contract.js';
import {
  CONSOLE_LIMITS,
  reasonName,
  WORKING_STATUSES,
  wordDetail,
} from '../../../shared/console/web-contract.js';
import { ErrorNotice, Loading, None, Notice, StatusChip } from '../components/ui.js';
import { useConsole } from '../context.js';
import { formatMoney, formatNcm, formatNcmTable, formatNumber, formatPercent } from '../format.js';
import { useDebounced, useLanguage, usePoll } from '../hooks.js';
import { plural } from '../i18n.js';
import type { Language } from '../lang.js';
import { hrefOf } from '../router.js';
import { type RowStatus, STATUS_ORDER } from '../status.js';
import { ResendForm } from './ResendForm.js';
import { RowDetailPanel } from './RowDetail.js';

const PAGE = 100;
/** How long the table waits for the round to take a row just sent again before it stops looking. */
const AWAIT_ROUND_MS = 180_000;

/**
 * Why a row ended as it did, in the viewer's language (a rejection names its column and what to
 * fix), under its status, in full in the tooltip; the reason's code, which results.csv carries, in `data-reason`.
 */
const RowReason = ({ row, language }: { row: RowView; language: Language }) => {
  const worded = wordDetail(
    { detail: row.detail ?? undefined, detail_messages: row.detail_messages },
    language,
  );
  // A detail may begin mid-sentence ("the service could not classify…"); on its own line it starts one.
  const detail = worded && worded.charAt(0).toLocaleUpperCase(language) + worded.slice(1);
  // The code stays for machines (data-reason); a person reads words, the reason named when no detail says more.
  const said = detail || (row.reason ? reasonName(row.reason, language) : '');
  return (
    <div className="sub reason" title={said} data-reason={row.reason ?? ''}>
      {said}
    </div>
  );
};

/** A code that is not in the NCM table in force: said on the page, the table and what it means in its title. */
const NotInForce = ({ title, which }: { title: string; which: 'declared' | 'verdict' }) => {
  const { t } = useTranslation();
  return (
    <span className="ncm-flag" title={title} data-testid="ncm-not-in-force" data-which={which}>
      <span aria-hidden="true">⚠</span>
      <span className="ncm-flag-label">{t('rows.notInForce')}</span>
      <span className="visually-hidden">: {title}</span>
    </span>
  );
};

/** The verdict's NCM, and under it the one the row declared, each marked when it is not in force. */
const NcmCell = ({ row, table }: { row: RowView; table: string }) => {
  const { t } = useTranslation();
  return (
    <td className="ncm-cell" data-testid="ncm">
      <div className="mono nowrap">{row.ncm ? formatNcm(row.ncm) : <None />}</div>
      {row.ncm !== null && row.ncm_in_force === false && (
        <NotInForce which="verdict" title={t('rows.verdictNotInForce', { code: row.ncm, table })} />
      )}
      {row.declared_ncm !== null && (
        <div
          className="sub declared-ncm"
          data-testid="declared-ncm"
          data-in-force={row.declared_ncm_in_force === null ? '' : String(row.declared_ncm_in_force)}
        >
          {t('rows.declared')} <span className="mono">{row.declared_ncm}</span>
        </div>
      )}
      {row.declared_ncm_matches === false && (
        <span
          className="ncm-flag ncm-divergent"
          title={t('rows.divergentTitle', { declared: row.declared_ncm ?? '', ncm: row.ncm ?? '' })}
          data-testid="ncm-divergent"
        >
          <span aria-hidden="true">≠</span>
          <span className="ncm-flag-label">{t('rows.divergent')}</span>
        </span>
      )}
      {row.declared_ncm !== null && row.declared_ncm_in_force === false && (
        <NotInForce
          which="declared"
          title={t('rows.declaredNotInForce', { code: row.declared_ncm, table })}
        />
      )}
    </td>
  );
};

/** The table's columns: a row's form of "Reenviar" spans them all. */
const COLUMNS = 9;

const Row = ({
  batchId,
  row,
  table,
  onResent,
}: {
  batchId: string;
  row: RowView;
  table: string;
  onResent: (row: number) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const [resending, setResending] = useState(false);
  const [open, setOpen] = useState(false);
  return (
    <>
      <tr data-testid="result-row" data-row={row.row} data-status={row.status}>
        <th scope="row" className="num">
          {/* The row's number opens everything about it under its line. */}
          <button
            type="button"
            className="link-button"
            aria-expanded={open}
            title={t('rows.openRow', { row: row.row })}
            onClick={() => setOpen(!open)}
            data-testid="row-open"
          >
            {row.row}
          </button>
        </th>
        <td>
          <StatusChip status={row.status} />
          {row.follows !== null && <div className="sub">{t('rows.follows', { row: row.follows })}</div>}
          {row.check === 'to_check' && (
            <div className="sub" data-testid="row-check" data-check="to_check">
              {/* Its entry in the "To check" list: a row that follows another is decided with it. */}
              <a
                href={hrefOf({ page: 'checks', batchId, row: row.follows ?? row.row })}
                data-testid="row-check-link"
              >
                {t('rows.toCheck')}
              </a>
              {/* Why it waits: a SIM opening to choose holds back a verdict at 96 % too. */}
              {row.check_reasons.length > 0 && (
                <span data-testid="row-check-why">
                  {' · '}
                  {row.check_reasons.map((reason) => t(`rows.checkWhy.${reason}`)).join(' · ')}
                </span>
              )}
            </div>
          )}
          {row.check === 'approved' && (
            <div className="sub" data-testid="row-check" data-check="approved" data-by={row.decided_by ?? ''}>
              {t('rows.approved', { ncm: row.approved_ncm ?? '', by: row.decided_by ?? '' })}
            </div>
          )}
          {row.reason && <RowReason row={row} language={language} />}
          {row.resend && !resending && (
            <button
              type="button"
              className="button button-small"
              title={t('rows.resendTitle', { row: row.row })}
              onClick={() => setResending(true)}
              data-testid="row-resend"
            >
              {t('rows.resend')}
            </button>
          )}
        </td>
        {/* The file's own cells and the table's words: data, kept as they are in every language. */}
        <td className="mono truncate" title={row.sku ?? undefined} translate="no">
          {row.sku ?? <None />}
        </td>
        <td className="cell-wide" translate="no">
          <div className="truncate" title={row.description ?? undefined}>
            {row.description ?? <None />}
          </div>
          {/* The file's reference and supplier, as a person looks a product up by them. */}
          {(row.external_reference || row.supplier) && (
            <div className="sub truncate" data-testid="row-reference">
              {[row.external_reference, row.supplier].filter(Boolean).join(' · ')}
            </div>
          )}
        </td>
        <NcmCell row={row} table={table} />
        <td className="truncate cell-wide" title={row.ncm_description ?? undefined} translate="no">
          {row.ncm_description ?? <None />}
        </td>
        <td className="num">
          {row.confidence === null ? <None /> : formatPercent(language, row.confidence)}
        </td>
        <td className="num">{formatMoney(language, row.cost_usd)}</td>
        <td>
          {/* Through the console: a link that can be shared within the team, opened signed in. */}
          {row.has_verdict_pdf && (
            <a
              href={hrefOf({ page: 'verdict', batchId, row: row.row })}
              target="_blank"
              rel="noopener"
              className="button button-small"
              aria-label={t('rows.openPdf', { row: row.row })}
              title={t('rows.openPdf', { row: row.row })}
              data-testid="verdict-pdf"
              data-row={row.row}
            >
              {t('rows.pdf')}
            </a>
          )}
        </td>
      </tr>
      {open && (
        <tr className="row-detail-line">
          <td colSpan={COLUMNS}>
            <RowDetailPanel batchId={batchId} row={row.row} onClose={() => setOpen(false)} />
          </td>
        </tr>
      )}
      {row.resend && resending && (
        <tr className="resend-line">
          <td colSpan={COLUMNS}>
            <ResendForm
              batchId={batchId}
              row={row.row}
              cells={row.resend}
              onCancel={() => setResending(false)}
              onSent={(sent) => {
                setResending(false);
                onResent(sent);
              }}
            />
          </td>
        </tr>
      )}
    </>
  );
};

const StatusFilter = ({
  selected,
  counts,
  onChange,
}: {
  selected: RowStatus[];
  counts: RowList['by_status'];
  onChange: (statuses: RowStatus[]) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const shown = STATUS_ORDER.filter((status) => (counts[status] ?? 0) > 0 || selected.includes(status));
  return (
    <fieldset className="status-filter" data-testid="status-filter">
      <legend className="visually-hidden">{t('rows.statusFilter')}</legend>
      <button
        type="button"
        className={selected.length === 0 ? 'filter-chip on' : 'filter-chip'}
        aria-pressed={selected.length === 0}
        onClick={() => onChange([])}
        data-status=""
      >
        {t('rows.clearFilter')}
      </button>
      {shown.map((status) => {
        const on = selected.includes(status);
        return (
          <button
            key={status}
            type="button"
            className={on ? `filter-chip on status-${status}` : `filter-chip status-${status}`}
            aria-pressed={on}
            data-status={status}
            onClick={() => onChange(on ? selected.filter((s) => s !== status) : [...selected, status])}
          >
            <span className="chip-dot" aria-hidden="true" />
            {t(`status.${status}`)}
            <span className="chip-count">{formatNumber(language, counts[status] ?? 0)}</span>
          </button>
        );
      })}
    </fieldset>
  );
};

/** Keeps the rows whose declared NCM or verdict's NCM is not in the NCM table in force. */
const NotInForceFilter = ({
  on,
  table,
  onChange,
}: {
  on: boolean;
  table: string | null;
  onChange: (on: boolean) => void;
}) => {
  const { t } = useTranslation();
  return (
    <button
      type="button"
      className={on ? 'filter-chip not-in-force on' : 'filter-chip not-in-force'}
      aria-pressed={on}
      onClick={() => onChange(!on)}
      title={table === null ? undefined : t('rows.notInForceFilterTitle', { table })}
      data-testid="not-in-force-filter"
    >
      <span aria-hidden="true">⚠</span>
      {t('rows.notInForceFilter')}
    </button>
  );
};

/** Keeps the rows whose declared NCM is not the verdict's, with how many the finished batch has. */
const DivergentFilter = ({
  on,
  count,
  onChange,
}: {
  on: boolean;
  count: number | null;
  onChange: (on: boolean) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  return (
    <button
      type="button"
      className={on ? 'filter-chip divergent on' : 'filter-chip divergent'}
      aria-pressed={on}
      onClick={() => onChange(!on)}
      title={t('rows.divergentFilterTitle')}
      data-testid="divergent-filter"
      data-count={count ?? ''}
    >
      <span aria-hidden="true">≠</span>
      {t('rows.divergentFilter')}
      {count !== null && <span className="chip-count">{formatNumber(language, count)}</span>}
    </button>
  );
};

type RowFilters = { statuses: RowStatus[]; q: string; notInForce: boolean; divergent: boolean };

const useRows = (batchId: string, filters: RowFilters, live: boolean) => {
  const { statuses, q, notInForce, divergent } = filters;
  const { api } = useConsole();
  const [list, setList] = useState<RowList | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [loadingMore, setLoadingMore] = useState(false);
  const generation = useRef(0);
  const key = `${statuses.join(',')}|${q}|${notInForce}|${divergent}`;

  const load = async (limit: number, replace: boolean) => {
    const mine = replace ? ++generation.current : generation.current;
    try {
      const page = await api.rows(batchId, { status: statuses, q, notInForce, divergent, limit });
      if (mine !== generation.current) return;
      setList(page);
      setError(null);
    } catch (failure) {
      if (mine === generation.current) setError(failure);
    }
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: the filter's key names what reloads.
  useEffect(() => {
    setList(null);
    void load(PAGE, true);
  }, [batchId, key]);
  // While the batch moves: the loaded rows again (up to a full page), so statuses change in place;
  // and once more when it stops moving, so the table ends as the batch did.
  const reloadShown = () =>
    load(Math.min(CONSOLE_LIMITS.rowsPageMax, Math.max(PAGE, list?.rows.length ?? 0)), false);
  // A row sent again works while the batch does not: the rows shown are looked at while any works,
  // and, from the sending until the round takes the row (a few seconds), for at most three minutes.
  const working =
    list?.rows.some(
      (row) => row.status !== 'following' && (WORKING_STATUSES as readonly string[]).includes(row.status),
    ) ?? false;
  const [awaitingUntil, setAwaitingUntil] = useState(0);
  useEffect(() => {
    if (working) setAwaitingUntil(0);
  }, [working]);
  const awaiting = Date.now() < awaitingUntil;
  usePoll(
    reloadShown,
    2_000,
    (live || working || awaiting) && (list?.rows.length ?? 0) <= CONSOLE_LIMITS.rowsPageMax,
  );
  /** Look at the rows again until a row just sent again is taken by its round. */
  const awaitRound = () => {
    setAwaitingUntil(Date.now() + AWAIT_ROUND_MS);
    void reloadShown();
  };
  const wasLive = useRef(live);
  // biome-ignore lint/correctness/useExhaustiveDependencies: only the change of `live` reloads.
  useEffect(() => {
    if (wasLive.current && !live) void reloadShown();
    wasLive.current = live;
  }, [live]);

  const loadMore = async () => {
    if (list?.next == null) return;
    const mine = generation.current;
    setLoadingMore(true);
    try {
      const page = await api.rows(batchId, {
        status: statuses,
        q,
        notInForce,
        divergent,
        after: list.next,
        limit: PAGE,
      });
      if (mine !== generation.current) return;
      setList((loaded) => (loaded ? { ...page, rows: [...loaded.rows, ...page.rows] } : page));
    } catch (failure) {
      setError(failure);
    } finally {
      setLoadingMore(false);
    }
  };
  return { list, error, loadMore, loadingMore, awaitRound };
};

export const RowsTable = ({
  batchId,
  live,
  preparing = false,
  planned = false,
  divergentRows = null,
  onCounts,
}: {
  batchId: string;
  live: boolean;
  /** The whole batch's rows by status as each page read them: the page above follows a row sent again. */
  onCounts?: (counts: RowList['by_status']) => void;
  /** Rows whose declared NCM is not the verdict's, as the finished batch's summary counts them. */
  divergentRows?: number | null;
  /** The batch's catalogue is still being read: no rows yet is not "no rows match". */
  preparing?: boolean;
  /** A plan: its rows are in plan.csv, not in the batch table. */
  planned?: boolean;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const [statuses, setStatuses] = useState<RowStatus[]>([]);
  const [search, setSearch] = useState('');
  const [notInForce, setNotInForce] = useState(false);
  const [divergent, setDivergent] = useState(false);
  const q = useDebounced(search.trim(), 300);
  const [resent, setResent] = useState<number | null>(null);
  const { list, error, loadMore, loadingMore, awaitRound } = useRows(
    batchId,
    { statuses, q, notInForce, divergent },
    live,
  );
  // The table the server checked this page's codes against, as the marks' titles name it.
  const table = list ? formatNcmTable(language, list.ncm_table) : null;
  const [counts, setCounts] = useState<RowList['by_status']>({});
  // The whole batch's counts (the filter does not change them); kept while a new filter loads.
  useEffect(() => {
    if (!list) return;
    setCounts(list.by_status);
    onCounts?.(list.by_status);
  }, [list, onCounts]);

  return (
    <section className="panel rows-panel" aria-labelledby="rows-title">
      <div className="panel-head">
        <h2 id="rows-title">{t('rows.title')}</h2>
        {list && list.matching !== null && !planned && (
          <span className="muted" data-testid="rows-matching" data-value={list.matching}>
            {plural(t, 'rows.matching', list.matching, formatNumber(language, list.matching))}
          </span>
        )}
        {/* A search's matches are not counted: the ones found in the rows read so far. */}
        {list && list.matching === null && (
          <span className="muted" data-testid="rows-found" data-value={list.rows.length}>
            {/* Every row read: the count is the whole answer, not one so far. */}
            {plural(
              t,
              list.next === null ? 'rows.foundAll' : 'rows.found',
              list.rows.length,
              formatNumber(language, list.rows.length),
            )}
          </span>
        )}
        <span className="spacer" />
        <label className="search">
          <span className="visually-hidden">{t('rows.search')}</span>
          <input
            type="search"
            value={search}
            maxLength={120}
            placeholder={t('rows.searchPlaceholder')}
            onChange={(event) => setSearch(event.target.value)}
            data-testid="rows-search"
          />
        </label>
      </div>
      <div className="row-filters">
        <StatusFilter selected={statuses} counts={counts} onChange={setStatuses} />
        <DivergentFilter on={divergent} count={divergentRows} onChange={setDivergent} />
        <NotInForceFilter on={notInForce} table={table} onChange={setNotInForce} />
      </div>
      {resent !== null && (
        <Notice kind="success" testId="row-resent">
          <p>{t('rows.resent', { row: resent })}</p>
        </Notice>
      )}
      {error !== null && <ErrorNotice error={error} />}
      {list === null && error === null && <Loading />}
      {list !== null && list.rows.length === 0 && (
        <p className="empty" data-testid="rows-empty">
          {preparing
            ? t('rows.notYetRead')
            : planned
              ? t('rows.planned')
              : list.next === null
                ? t('rows.empty')
                : t('rows.notFoundYet')}
        </p>
      )}
      {list !== null && list.rows.length > 0 && (
        <div className="table-wrap">
          <table className="table rows-table" data-testid="rows-table">
            <thead>
              <tr>
                <th scope="col" className="num">
                  {t('rows.columns.row')}
                </th>
                <th scope="col">{t('rows.columns.status')}</th>
                <th scope="col">{t('rows.columns.sku')}</th>
                <th scope="col">{t('rows.columns.description')}</th>
                <th scope="col">{t('rows.columns.ncm')}</th>
                <th scope="col">{t('rows.columns.ncmDescription')}</th>
                <th scope="col" className="num">
                  {t('rows.columns.confidence')}
                </th>
                <th scope="col" className="num">
                  {t('rows.columns.cost')}
                </th>
                <th scope="col">
                  <span className="visually-hidden">{t('rows.columns.verdict')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.rows.map((row) => (
                <Row
                  key={row.row}
                  batchId={batchId}
                  row={row}
                  table={table ?? ''}
                  onResent={(sent) => {
                    setResent(sent);
                    awaitRound();
                  }}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {list !== null && (
        <div className="more">
          {list.matching !== null && !planned && (
            <span className="muted">
              {t('common.showing', {
                shown: formatNumber(language, list.rows.length),
                total: formatNumber(language, list.matching),
              })}
            </span>
          )}
          {list.next !== null && (
            <button
              type="button"
              className="button"
              onClick={loadMore}
              disabled={loadingMore}
              data-testid="rows-load-more"
            >
              {loadingMore ? t('common.loading') : t('common.loadMore')}
            </button>
          )}
        </div>
      )}
    </section>
  );
};
