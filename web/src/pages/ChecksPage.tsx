/**
 * The "To check" list as a day's workbench: verdicts a person signs off before they are used
 * (under the batch's `check_below`, or a SIM opening to choose), identical products as one line.
 * Filters (batch, reason, confidence), a search and a sort narrow hundreds to the ones at hand;
 * a line opens to be decided (CheckDecision.tsx), and after a decision the next line opens with
 * the focus on it. Lines selected together (a click, shift-click for a range, or every line
 * shown) are approved at the service's own NCM in one step, confirmed once in a bar that stays
 * at the bottom of the window. What was just sent stays in view at the bottom too. The list
 * refreshes every 15 s while nobody is typing; `#/checks?batch=…&row=…` opens it on a batch and
 * on the entry holding that row.
 */
import { type MouseEvent, useEffect, useMemo, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { type CheckEntryView, CONSOLE_LIMITS } from '../../../shared/console/web-contract.js';
import {
  batchesOf,
  type CheckFilters,
  CONFIDENCE_BANDS,
  type ConfidenceBand,
  entryWithRow,
  NO_FILTERS,
  REASONS,
  type Reason,
  SORTS,
  type Sort,
  sharedSimOptions,
  shownEntries,
} from '../check-filters.js';
import { ErrorNotice, Live, Loading, None, Notice } from '../components/ui.js';
import { useWorkList } from '../components/work-list.js';
import { useConsole } from '../context.js';
import { formatNcm, formatNumber, formatPercent, formatSim } from '../format.js';
import { useCall, useLanguage } from '../hooks.js';
import { plural } from '../i18n.js';
import { CheckDecision, type Decided, reasonWords } from './CheckDecision.js';

/** What the page confirms at the bottom of the window: one decision, or a bulk approval. */
type Sent =
  | ({ kind: 'decided' } & Decided)
  | { kind: 'approved'; key: string; entries: number; rows: number; sim: string | null };

/** The confirmations kept in view: the newest few, so they never cover the list. */
const SENT_SHOWN = 3;

const rowsOf = (entries: readonly CheckEntryView[]) =>
  entries.reduce((sum, entry) => sum + entry.row_count, 0);

const Filters = ({
  filters,
  onChange,
  batches,
}: {
  filters: CheckFilters;
  onChange: (next: CheckFilters) => void;
  batches: { id: string; label: string }[];
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const batchKnown = filters.batch === null || batches.some((batch) => batch.id === filters.batch);
  return (
    <div className="toolbar check-filters" data-testid="check-filters">
      <label className="toolbar-field toolbar-search">
        <span>{t('checks.filter.search')}</span>
        <input
          type="search"
          value={filters.search}
          placeholder={t('checks.filter.searchHint')}
          onChange={(event) => onChange({ ...filters, search: event.target.value })}
          data-testid="check-search"
        />
      </label>
      <label className="toolbar-field">
        <span>{t('checks.filter.batch')}</span>
        <select
          value={filters.batch ?? ''}
          onChange={(event) => onChange({ ...filters, batch: event.target.value || null })}
          data-testid="check-filter-batch"
        >
          <option value="">{t('checks.filter.all')}</option>
          {batches.map((batch) => (
            <option key={batch.id} value={batch.id}>
              {batch.label}
            </option>
          ))}
          {!batchKnown && filters.batch !== null && <option value={filters.batch}>{filters.batch}</option>}
        </select>
      </label>
      <label className="toolbar-field">
        <span>{t('checks.filter.reason')}</span>
        <select
          value={filters.reason ?? ''}
          onChange={(event) =>
            onChange({ ...filters, reason: (event.target.value || null) as Reason | null })
          }
          data-testid="check-filter-reason"
        >
          <option value="">{t('checks.filter.all')}</option>
          {REASONS.map((reason) => (
            <option key={reason} value={reason}>
              {t(`checks.filter.reasons.${reason}`)}
            </option>
          ))}
        </select>
      </label>
      <label className="toolbar-field">
        <span>{t('checks.filter.confidence')}</span>
        <select
          value={filters.confidence ?? ''}
          onChange={(event) =>
            onChange({ ...filters, confidence: (event.target.value || null) as ConfidenceBand | null })
          }
          data-testid="check-filter-confidence"
        >
          <option value="">{t('checks.filter.all')}</option>
          {(Object.keys(CONFIDENCE_BANDS) as ConfidenceBand[]).map((band) => {
            const [from, below] = CONFIDENCE_BANDS[band];
            return (
              <option key={band} value={band}>
                {from === 0
                  ? t('checks.filter.under', { n: formatPercent(language, below) })
                  : below > 100
                    ? t('checks.filter.from', { n: formatPercent(language, from) })
                    : t('checks.filter.between', {
                        from: formatPercent(language, from),
                        below: formatPercent(language, below),
                      })}
              </option>
            );
          })}
        </select>
      </label>
      <label className="toolbar-field">
        <span>{t('checks.filter.sort')}</span>
        <select
          value={filters.sort}
          onChange={(event) => onChange({ ...filters, sort: event.target.value as Sort })}
          data-testid="check-sort"
        >
          {SORTS.map((sort) => (
            <option key={sort} value={sort}>
              {t(`checks.sort.${sort}`)}
            </option>
          ))}
        </select>
      </label>
    </div>
  );
};

/**
 * The bar that approves the lines selected at the service's NCM: a SIM opening when every one
 * offers the same, a note, then one confirmation naming how many products and rows it settles.
 */
const BulkBar = ({
  selected,
  onClear,
  onApproved,
}: {
  selected: CheckEntryView[];
  onClear: () => void;
  onApproved: (sent: Sent, keys: string[]) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api } = useConsole();
  const { busy, error, setError, run } = useCall();
  const [confirming, setConfirming] = useState(false);
  const [sim, setSim] = useState('');
  const [note, setNote] = useState('');
  const simOptions = sharedSimOptions(selected);
  const rows = rowsOf(selected);
  const products = plural(
    t,
    'checks.bulk.products',
    selected.length,
    formatNumber(language, selected.length),
  );
  const rowWords = plural(t, 'checks.coversRows', rows, formatNumber(language, rows));
  const tooMany =
    selected.length > CONSOLE_LIMITS.entriesPerApproval ||
    selected.reduce((sum, entry) => sum + entry.rows.length, 0) > CONSOLE_LIMITS.decisionsPerSubmission;
  const chosenSim = simOptions.some((option) => option.code === sim) ? sim : '';

  // A new selection is confirmed anew.
  // biome-ignore lint/correctness/useExhaustiveDependencies: the selection's size is what changes it.
  useEffect(() => setConfirming(false), [selected.length]);

  const approve = () =>
    void run(async () => {
      const accepted = await api.approve({
        entries: selected.map((entry) => ({
          rows: entry.rows.map((row) => ({ batch_id: row.batch_id, row: row.row })),
          ncm: entry.ncm ?? '',
          sim: chosenSim === '' ? null : chosenSim,
        })),
        note,
      });
      setConfirming(false);
      setNote('');
      setSim('');
      onApproved(
        {
          kind: 'approved',
          key: accepted.files.map((file) => file.key).join(' '),
          entries: accepted.entries,
          rows,
          sim: chosenSim === '' ? null : chosenSim,
        },
        selected.map((entry) => entry.key),
      );
    });

  return (
    <section
      className="bulk-bar"
      aria-label={t('checks.bulk.title')}
      data-testid="bulk-bar"
      data-count={selected.length}
    >
      <div className="bulk-line">
        <strong data-testid="bulk-count">{t('checks.bulk.selected', { products, rows: rowWords })}</strong>
        <button type="button" className="button button-quiet button-small" onClick={onClear} disabled={busy}>
          {t('checks.bulk.clear')}
        </button>
      </div>
      {tooMany ? (
        <p className="field-error" role="alert" data-testid="bulk-too-many">
          {t('checks.bulk.tooMany', {
            products: formatNumber(language, CONSOLE_LIMITS.entriesPerApproval),
            rows: formatNumber(language, CONSOLE_LIMITS.decisionsPerSubmission),
          })}
        </p>
      ) : confirming ? (
        <div className="bulk-line" data-testid="bulk-confirm">
          <p className="bulk-question">
            {chosenSim === ''
              ? t('checks.bulk.confirm', { products, rows: rowWords })
              : t('checks.bulk.confirmSim', { products, rows: rowWords, sim: formatSim(chosenSim) })}
          </p>
          <button
            type="button"
            className="button button-primary"
            onClick={approve}
            disabled={busy}
            data-testid="bulk-confirm-yes"
          >
            {busy ? t('common.sending') : t('checks.bulk.confirmYes')}
          </button>
          <button
            type="button"
            className="button button-quiet"
            onClick={() => setConfirming(false)}
            disabled={busy}
          >
            {t('checks.bulk.back')}
          </button>
        </div>
      ) : (
        <div className="bulk-line">
          {simOptions.length > 0 && (
            <label className="toolbar-field">
              <span>{t('checks.sim')}</span>
              <select
                value={chosenSim}
                onChange={(event) => setSim(event.target.value)}
                data-testid="bulk-sim"
              >
                <option value="">{t('checks.simNone')}</option>
                {simOptions.map((option) => (
                  <option key={option.code} value={option.code}>
                    {formatSim(option.code)} · {option.description}
                  </option>
                ))}
              </select>
            </label>
          )}
          <label className="toolbar-field bulk-note">
            <span>{t('checks.note')}</span>
            <input
              type="text"
              maxLength={CONSOLE_LIMITS.noteChars}
              value={note}
              onChange={(event) => setNote(event.target.value)}
              data-testid="bulk-note"
            />
          </label>
          <button
            type="button"
            className="button button-primary"
            onClick={() => {
              setError(null);
              setConfirming(true);
            }}
            data-testid="bulk-approve"
          >
            {t('checks.bulk.approve')}
          </button>
        </div>
      )}
      {error !== null && <ErrorNotice error={error} testId="bulk-error" />}
    </section>
  );
};

/** One line of the table: what the person needs to choose it, and the button that opens it. */
const CheckLine = ({
  entry,
  open,
  selected,
  onToggle,
  onSelect,
}: {
  entry: CheckEntryView;
  open: boolean;
  selected: boolean;
  onToggle: () => void;
  onSelect: (event: MouseEvent<HTMLInputElement>) => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const product = entry.description ?? entry.title ?? entry.sku;
  const others = entry.candidates.filter((candidate) => candidate.ncm !== entry.ncm);
  const firstBatch = entry.rows[0];
  return (
    <tr className={open ? 'check-line open' : 'check-line'}>
      <td className="cell-check">
        <input
          type="checkbox"
          checked={selected}
          disabled={entry.ncm === null}
          aria-label={t('checks.select', { product: product ?? '' })}
          onClick={onSelect}
          onChange={() => {}}
          data-testid="check-select"
          translate="no"
        />
      </td>
      <th scope="row" className="check-product-cell" translate="no">
        <button
          type="button"
          className="line-toggle"
          aria-expanded={open}
          onClick={onToggle}
          data-testid="check-toggle"
        >
          <span className="check-line-product">{product ?? <None />}</span>
          {entry.sku && <span className="sub mono">{entry.sku}</span>}
        </button>
      </th>
      <td data-label={t('checks.why')}>
        <span className="check-why" data-testid="check-line-why">
          {reasonWords(t, language, entry).join(' · ')}
        </span>
      </td>
      <td data-label={t('checks.servicesNcm')} className="nowrap">
        {entry.ncm ? <span className="mono verdict">{formatNcm(entry.ncm)}</span> : <None />}
        {entry.confidence !== null && (
          <span className="muted" data-testid="check-line-confidence">
            {' '}
            · {formatPercent(language, entry.confidence)}
          </span>
        )}
      </td>
      <td data-label={t('checks.candidates')} className="small">
        {others.length === 0 ? (
          <None />
        ) : (
          <span className="mono">{others.map((candidate) => formatNcm(candidate.ncm)).join(' · ')}</span>
        )}
      </td>
      <td data-label={t('checks.rows')} data-testid="check-covers">
        {t('checks.covers', {
          rows: plural(t, 'checks.coversRows', entry.row_count, formatNumber(language, entry.row_count)),
          batches: plural(
            t,
            'checks.coversBatches',
            entry.batch_count,
            formatNumber(language, entry.batch_count),
          ),
        })}
        {firstBatch && <span className="sub">{firstBatch.batch_name}</span>}
      </td>
    </tr>
  );
};

/** What was just sent, at the bottom of the window until the person closes it (or three newer come). */
const SentNotice = ({ sent, onClose }: { sent: Sent; onClose: () => void }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const text =
    sent.kind === 'approved'
      ? t(sent.sim ? 'checks.bulk.approvedSim' : 'checks.bulk.approved', {
          products: plural(t, 'checks.bulk.products', sent.entries, formatNumber(language, sent.entries)),
          rows: plural(t, 'checks.coversRows', sent.rows, formatNumber(language, sent.rows)),
          sim: formatSim(sent.sim),
        })
      : t('checks.decided', {
          ncm: sent.accepted.sim
            ? t('checks.decidedSim', { ncm: formatNcm(sent.accepted.ncm), sim: formatSim(sent.accepted.sim) })
            : formatNcm(sent.accepted.ncm),
          rows: plural(
            t,
            'checks.coversRows',
            sent.entry.row_count,
            formatNumber(language, sent.entry.row_count),
          ),
        });
  return (
    <Notice kind="success" testId={sent.kind === 'approved' ? 'check-approved' : 'check-decided'}>
      <div className="notice-line">
        <span>{text}</span>
        <button type="button" className="button button-quiet button-small" onClick={onClose}>
          {t('common.close')}
        </button>
      </div>
    </Notice>
  );
};

/** The "To check" page, opened on a batch and on the entry holding one of its rows when the link names them. */
export const ChecksPage = ({ batchId, row }: { batchId: string | null; row: number | null }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api, setChecking } = useConsole();
  const list = useWorkList(() => api.checks(), 15_000);
  const [filters, setFilters] = useState<CheckFilters>({ ...NO_FILTERS, batch: batchId });
  const [openKey, setOpenKey] = useState<string | null>(null);
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  const [gone, setGone] = useState<ReadonlySet<string>>(new Set());
  const [sent, setSent] = useState<Sent[]>([]);
  const lastClicked = useRef<string | null>(null);
  const focusKey = useRef<string | null>(null);
  const linked = useRef(false);

  // Entries just decided stay out of the list (the round takes them out for good).
  const entries = useMemo(
    () => (list.data?.entries ?? []).filter((entry) => !gone.has(entry.key)),
    [list.data, gone],
  );
  const shown = useMemo(() => shownEntries(entries, filters), [entries, filters]);
  const batches = useMemo(() => batchesOf(entries), [entries]);
  const chosen = shown.filter((entry) => selected.has(entry.key));

  useEffect(() => {
    if (list.data !== null) setChecking(entries.length);
  }, [list.data, entries.length, setChecking]);

  // A link to a row (`#/checks?batch=…&row=…`) opens the entry holding it, once the list is in.
  useEffect(() => {
    if (linked.current || list.data === null || batchId === null || row === null) return;
    linked.current = true;
    const target = entryWithRow(entries, { batchId, row });
    if (target) {
      setOpenKey(target.key);
      focusKey.current = target.key;
    }
  }, [list.data, entries, batchId, row]);

  // The line asked for gets the focus and comes into view (after a decision: the next one).
  useEffect(() => {
    const key = focusKey.current;
    if (key === null) return;
    const line = document.querySelector<HTMLElement>(`[data-testid="check-entry"][data-key="${key}"]`);
    if (!line) return;
    focusKey.current = null;
    line.querySelector<HTMLElement>('[data-testid="check-toggle"]')?.focus();
    line.scrollIntoView({ block: 'start' });
  });

  const select = (entry: CheckEntryView, event: MouseEvent<HTMLInputElement>) => {
    const next = new Set(selected);
    const on = !selected.has(entry.key);
    // Shift-click selects (or clears) every line shown between the last one clicked and this one.
    const from =
      event.shiftKey && lastClicked.current ? shown.findIndex((e) => e.key === lastClicked.current) : -1;
    const to = shown.findIndex((e) => e.key === entry.key);
    const range = from === -1 ? [entry] : shown.slice(Math.min(from, to), Math.max(from, to) + 1);
    for (const one of range)
      if (one.ncm !== null) {
        if (on) next.add(one.key);
        else next.delete(one.key);
      }
    lastClicked.current = entry.key;
    setSelected(next);
  };

  const approvable = shown.filter((entry) => entry.ncm !== null);
  const allShownSelected = approvable.length > 0 && approvable.every((entry) => selected.has(entry.key));

  const settle = (keys: string[], confirmation: Sent) => {
    const index = shown.findIndex((entry) => keys.includes(entry.key));
    const after = shown.slice(index + 1).find((entry) => !keys.includes(entry.key)) ?? null;
    setGone((before) => new Set([...before, ...keys]));
    setSelected((before) => new Set([...before].filter((key) => !keys.includes(key))));
    setSent((before) => [confirmation, ...before].slice(0, SENT_SHOWN));
    return after;
  };

  return (
    <div className="page checks-page" data-testid="checks-page">
      <div className="page-head">
        <h1>{t('checks.title')}</h1>
        {!list.typing && <Live />}
      </div>
      <p className="lead">{t('checks.intro')}</p>
      {list.error !== null && <ErrorNotice error={list.error} />}
      {list.data === null && list.error === null && <Loading />}
      {list.data !== null && entries.length === 0 && (
        <p className="empty" data-testid="checks-empty">
          {t('checks.empty')}
        </p>
      )}
      {entries.length > 0 && (
        <>
          <Filters filters={filters} onChange={setFilters} batches={batches} />
          <p
            className="muted"
            data-testid="check-shown"
            data-shown={shown.length}
            data-total={entries.length}
          >
            {t('checks.shown', {
              shown: formatNumber(language, shown.length),
              total: plural(
                t,
                'checks.bulk.products',
                entries.length,
                formatNumber(language, entries.length),
              ),
            })}
          </p>
          {shown.length === 0 ? (
            <p className="empty" data-testid="checks-none-shown">
              {t('checks.noneShown')}
            </p>
          ) : (
            <div className="table-wrap">
              <table className="table check-table stack-on-phone">
                <thead>
                  <tr>
                    <th className="cell-check">
                      <input
                        type="checkbox"
                        checked={allShownSelected}
                        aria-label={t('checks.selectShown')}
                        onChange={() =>
                          setSelected((before) => {
                            const next = new Set(before);
                            for (const entry of approvable)
                              if (allShownSelected) next.delete(entry.key);
                              else next.add(entry.key);
                            return next;
                          })
                        }
                        data-testid="check-select-shown"
                      />
                    </th>
                    <th scope="col">{t('checks.product')}</th>
                    <th scope="col">{t('checks.why')}</th>
                    <th scope="col">{t('checks.servicesNcm')}</th>
                    <th scope="col">{t('checks.candidates')}</th>
                    <th scope="col">{t('checks.rows')}</th>
                  </tr>
                </thead>
                {shown.map((entry) => (
                  <tbody
                    key={entry.key}
                    data-testid="check-entry"
                    data-key={entry.key}
                    data-rows={entry.row_count}
                    data-batches={entry.batch_count}
                  >
                    <CheckLine
                      entry={entry}
                      open={openKey === entry.key}
                      selected={selected.has(entry.key)}
                      onToggle={() => {
                        // A line closed keeps nothing unsent: the list may move again.
                        if (openKey !== null) list.onDirty(openKey, false);
                        setOpenKey(openKey === entry.key ? null : entry.key);
                      }}
                      onSelect={(event) => select(entry, event)}
                    />
                    {openKey === entry.key && (
                      <tr className="check-open">
                        <td colSpan={6}>
                          <CheckDecision
                            entry={entry}
                            onDirty={list.onDirty}
                            onDecided={(decided) => {
                              const next = settle([decided.key], { kind: 'decided', ...decided });
                              setOpenKey(next?.key ?? null);
                              focusKey.current = next?.key ?? null;
                            }}
                          />
                        </td>
                      </tr>
                    )}
                  </tbody>
                ))}
              </table>
            </div>
          )}
        </>
      )}
      <div className="dock">
        {sent.length > 0 && (
          <div className="sent-dock" aria-live="polite" data-testid="check-sent">
            {sent.map((item) => (
              <SentNotice
                key={item.key}
                sent={item}
                onClose={() => setSent((before) => before.filter((other) => other !== item))}
              />
            ))}
          </div>
        )}
        {chosen.length > 0 && (
          <BulkBar
            selected={chosen}
            onClear={() => setSelected(new Set())}
            onApproved={(confirmation, keys) => {
              const next = settle(keys, confirmation);
              focusKey.current = next?.key ?? null;
            }}
          />
        )}
      </div>
    </div>
  );
};
