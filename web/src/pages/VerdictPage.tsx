/**
 * A row's verdict PDF through the console (`#/batches/<id>/rows/<n>/verdict`): the link the page
 * gives, which a person can send to someone of the team. Opened, signed in, it asks the API for a
 * fresh short-lived link to the PDF and goes there, so the shared link never expires and only
 * people who can sign in follow it.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { ErrorNotice } from '../components/ui.js';
import { useConsole } from '../context.js';
import { hrefOf } from '../router.js';

/** Takes a batch and a row, and goes to a fresh link to the row's verdict PDF, or says why it cannot. */
export const VerdictPage = ({ batchId, row }: { batchId: string; row: number }) => {
  const { t } = useTranslation();
  const { api } = useConsole();
  const [error, setError] = useState<unknown>(null);
  useEffect(() => {
    let gone = false;
    api.verdictLink(batchId, row).then(
      (link) => {
        if (!gone) window.location.replace(link.url);
      },
      (failure: unknown) => {
        if (!gone) setError(failure);
      },
    );
    return () => {
      gone = true;
    };
  }, [api, batchId, row]);
  return (
    <div className="page" data-testid="verdict-page">
      <p className="muted">{t('rows.openingPdf', { row })}</p>
      {error !== null && <ErrorNotice error={error} testId="verdict-error" />}
      <a href={hrefOf({ page: 'batch', batchId })}>{t('app.backToBatch')}</a>
    </div>
  );
};
