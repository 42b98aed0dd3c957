/**
 * A batch's audit on its page: who did what to which row and when, in the order it happened (the
 * batch's audit log), a page at a time. A person's answers and decisions name them; the pipeline's
 * own steps name nobody; each names how the person was known. Read when the section is opened,
 * and again on "Refresh"; filtered by row, person and kind of event over what was read.
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AUDIT_EVENTS, type AuditEventView } from '../../../shared/console/web-contract.js';
import { auditDetailWords } from '../audit-detail.js';
import { ErrorNotice, GivenAnswers, None } from '../components/ui.js';
import { useConsole } from '../context.js';
import { formatDateTime } from '../format.js';
import { useCall, useLanguage } from '../hooks.js';

/** The events the page words; one recorded by a later release is shown by its name. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set(AUDIT_EVENTS);

/** How a person was known, as the page words it; another way is shown by its name. */
const KNOWN_BY: ReadonlySet<string> = new Set(['console', 'iam', 'cli']);

/** The person filter's value for the pipeline's own steps, which name nobody. */
const PIPELINE = '\u0000pipeline';

type AuditFilters = { row: string; who: string; event: string };

export const BatchAudit = ({ batchId }: { batchId: string }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api } = useConsole();
  const [events, setEvents] = useState<AuditEventView[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const [filters, setFilters] = useState<AuditFilters>({ row: '', who: '', event: '' });
  const { busy, error, run } = useCall();
  const eventName = (event: string) => (KNOWN_EVENTS.has(event) ? t(`audit.events.${event}`) : event);
  // Filters over the events read so far ("load more" reads on): one row, one person, one kind of event.
  const shown = (events ?? []).filter(
    (event) =>
      (filters.row.trim() === '' || String(event.row) === filters.row.trim()) &&
      (filters.who === '' || (filters.who === PIPELINE ? event.who === '' : event.who === filters.who)) &&
      (filters.event === '' || event.event === filters.event),
  );
  const people = [...new Set((events ?? []).map((event) => event.who).filter((who) => who !== ''))].sort();
  const kinds = [...new Set((events ?? []).map((event) => event.event))];

  const load = (after: string | null) =>
    run(async () => {
      const page = await api.audit(batchId, after ?? undefined);
      setEvents((before) => (after === null ? page.events : [...(before ?? []), ...page.events]));
      setNext(page.next);
    });
  return (
    <details
      className="panel audit"
      data-testid="batch-audit"
      onToggle={(event) => {
        if ((event.target as HTMLDetailsElement).open && events === null) void load(null);
      }}
    >
      <summary>
        <h2>{t('audit.title')}</h2>
      </summary>
      <p className="hint">{t('audit.intro')}</p>
      {error !== null && <ErrorNotice error={error} />}
      {events !== null && events.length === 0 && <p className="empty">{t('audit.empty')}</p>}
      {events !== null && events.length > 0 && (
        <div className="toolbar audit-filters" data-testid="audit-filters">
          <label className="toolbar-field">
            <span>{t('audit.columns.row')}</span>
            <input
              className="input-short"
              inputMode="numeric"
              value={filters.row}
              onChange={(event) => setFilters({ ...filters, row: event.target.value })}
              data-testid="audit-filter-row"
            />
          </label>
          <label className="toolbar-field">
            <span>{t('audit.columns.who')}</span>
            <select
              value={filters.who}
              onChange={(event) => setFilters({ ...filters, who: event.target.value })}
              data-testid="audit-filter-who"
            >
              <option value="">{t('checks.filter.all')}</option>
              {people.map((who) => (
                <option key={who} value={who}>
                  {who}
                </option>
              ))}
              <option value={PIPELINE}>{t('audit.pipeline')}</option>
            </select>
          </label>
          <label className="toolbar-field">
            <span>{t('audit.columns.event')}</span>
            <select
              value={filters.event}
              onChange={(event) => setFilters({ ...filters, event: event.target.value })}
              data-testid="audit-filter-event"
            >
              <option value="">{t('checks.filter.all')}</option>
              {kinds.map((kind) => (
                <option key={kind} value={kind}>
                  {eventName(kind)}
                </option>
              ))}
            </select>
          </label>
          <span className="muted" data-testid="audit-shown" data-shown={shown.length}>
            {t('audit.shown', { shown: shown.length, read: events.length })}
          </span>
        </div>
      )}
      {events !== null && events.length > 0 && (
        <div className="table-wrap">
          <table className="table table-compact">
            <thead>
              <tr>
                <th scope="col">{t('audit.columns.at')}</th>
                <th scope="col" className="num">
                  {t('audit.columns.row')}
                </th>
                <th scope="col">{t('audit.columns.event')}</th>
                <th scope="col">{t('audit.columns.who')}</th>
                <th scope="col">{t('audit.columns.classification')}</th>
                <th scope="col">{t('audit.columns.detail')}</th>
              </tr>
            </thead>
            <tbody>
              {shown.map((event) => (
                <tr
                  key={`${event.at}#${event.row}#${event.event}`}
                  data-testid="audit-event"
                  data-row={event.row}
                  data-event={event.event}
                  data-who={event.who}
                >
                  <td className="nowrap">{formatDateTime(language, event.at)}</td>
                  <th scope="row" className="num">
                    {event.row}
                  </th>
                  <td>{eventName(event.event)}</td>
                  <td title={event.who_id ?? undefined} data-known-by={event.known_by ?? ''}>
                    {event.who === '' ? <span className="muted">{t('audit.pipeline')}</span> : event.who}
                    {/* How the person was known, and a name the file stated that was another. */}
                    {event.known_by && (
                      <span className="sub">
                        {KNOWN_BY.has(event.known_by) ? t(`audit.knownBy.${event.known_by}`) : event.known_by}
                      </span>
                    )}
                    {event.stated_by && (
                      <span className="sub">{t('audit.statedBy', { name: event.stated_by })}</span>
                    )}
                  </td>
                  <td className="mono">{event.classification_id ?? <None />}</td>
                  <td className="cell-wide">
                    <div className="truncate" title={auditDetailWords(t, language, event.detail)}>
                      {event.detail ? auditDetailWords(t, language, event.detail) : <None />}
                    </div>
                    {/* What the person said: the answers given, the decision's note; as they wrote them. */}
                    {event.answers && event.answers.length > 0 && (
                      <GivenAnswers given={event.answers} testId="audit-answers" />
                    )}
                    {event.note && (
                      <div className="sub audit-said" data-testid="audit-note">
                        {t('audit.note')} <span translate="no">{event.note}</span>
                      </div>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <div className="group-submit">
        {next !== null && (
          <button type="button" className="button" disabled={busy} onClick={() => void load(next)}>
            {t('common.loadMore')}
          </button>
        )}
        <button
          type="button"
          className="button button-quiet"
          disabled={busy}
          onClick={() => void load(null)}
          data-testid="audit-refresh"
        >
          {t('audit.refresh')}
        </button>
      </div>
    </details>
  );
};
