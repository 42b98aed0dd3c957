/**
 * A batch's audit on its page: who did what to which row and when, in the order it happened (the
 * batch's audit log), a page at a time. A person's answers and decisions name them; the pipeline's
 * own steps name nobody. Read when the section is opened, and again on "Refresh".
 */
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { AUDIT_EVENTS, type AuditEventView } from '../../../shared/console/web-contract.js';
import { auditDetailWords } from '../audit-detail.js';
import { ErrorNotice, None } from '../components/ui.js';
import { useConsole } from '../context.js';
import { formatDateTime } from '../format.js';
import { useCall, useLanguage } from '../hooks.js';

/** The events the page words; one recorded by a later release is shown by its name. */
const KNOWN_EVENTS: ReadonlySet<string> = new Set(AUDIT_EVENTS);

export const BatchAudit = ({ batchId }: { batchId: string }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api } = useConsole();
  const [events, setEvents] = useState<AuditEventView[] | null>(null);
  const [next, setNext] = useState<string | null>(null);
  const { busy, error, run } = useCall();

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
              {events.map((event) => (
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
                  <td>{KNOWN_EVENTS.has(event.event) ? t(`audit.events.${event.event}`) : event.event}</td>
                  <td>
                    {event.who === '' ? <span className="muted">{t('audit.pipeline')}</span> : event.who}
                  </td>
                  <td className="mono">{event.classification_id ?? <None />}</td>
                  <td className="truncate cell-wide" title={auditDetailWords(t, language, event.detail)}>
                    {event.detail ? auditDetailWords(t, language, event.detail) : <None />}
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
