/**
 * One row opened under its line in a batch's table: everything about it (GET
 * /batches/{batchId}/rows/{row}): why it ended as it did, in full; the NCM it declared and the one
 * returned, each with its description; the answers given to the service's questions; a person's
 * decision and its note; who sent it again; when it was sent and ended; and every cell of the file
 * under its header (the supplier and the reference among them).
 */
import { useTranslation } from 'react-i18next';
import { reasonName, wordDetail } from '../../../shared/console/web-contract.js';
import { ErrorNotice, GivenAnswers, Loading, None } from '../components/ui.js';
import { useConsole } from '../context.js';
import { formatDateTime, formatNcm, formatPercent } from '../format.js';
import { useLanguage, useLoader } from '../hooks.js';

/** A term and what it says, in the panel's list; nothing when there is nothing to say. */
const Said = ({ term, children, testId }: { term: string; children: React.ReactNode; testId?: string }) => (
  <>
    <dt>{term}</dt>
    <dd data-testid={testId}>{children}</dd>
  </>
);

/** The panel under a row; `onClose` folds it away. */
export const RowDetailPanel = ({
  batchId,
  row,
  onClose,
}: {
  batchId: string;
  row: number;
  onClose: () => void;
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const { api } = useConsole();
  const { data, error } = useLoader(() => api.row(batchId, row), `${batchId}#${row}`);
  if (data === null) return error !== null ? <ErrorNotice error={error} /> : <Loading />;
  const { view } = data;
  const why = wordDetail(
    { detail: view.detail ?? undefined, detail_messages: view.detail_messages },
    language,
  );
  const when = (at: string | null) => (at ? formatDateTime(language, at) : '');
  return (
    <section
      className="row-detail"
      data-testid="row-detail"
      data-row={row}
      aria-label={t('rowDetail.title', { row })}
    >
      <div className="row-detail-head">
        <h3 className="subhead">{t('rowDetail.title', { row })}</h3>
        <button
          type="button"
          className="button button-small"
          onClick={onClose}
          data-testid="row-detail-close"
        >
          {t('common.close')}
        </button>
      </div>
      <dl className="row-detail-list">
        {(why || view.reason) && (
          <Said term={t('rowDetail.why')} testId="row-detail-why">
            {why || (view.reason ? reasonName(view.reason, language) : '')}
          </Said>
        )}
        <Said term={t('rowDetail.declared')} testId="row-detail-declared">
          {view.declared_ncm ? (
            <>
              <span className="mono">{view.declared_ncm}</span>{' '}
              {data.declared_ncm_description && <span translate="no">{data.declared_ncm_description}</span>}
            </>
          ) : (
            <None />
          )}
        </Said>
        <Said term={t('rowDetail.returned')} testId="row-detail-ncm">
          {view.ncm ? (
            <>
              <span className="mono">{formatNcm(view.ncm)}</span>{' '}
              {view.ncm_description && <span translate="no">{view.ncm_description}</span>}
              {view.confidence !== null && (
                <span className="muted"> · {formatPercent(language, view.confidence)}</span>
              )}
            </>
          ) : (
            <None />
          )}
        </Said>
        {data.answers && (
          <Said
            term={t('rowDetail.answers', { by: data.answers.by, at: when(data.answers.at) })}
            testId="row-detail-answers"
          >
            <GivenAnswers given={data.answers.given} />
          </Said>
        )}
        {data.decision && (
          <Said
            term={t('rowDetail.decision', { by: data.decision.by, at: when(data.decision.at) })}
            testId="row-detail-decision"
          >
            <span className="mono">{data.decision.ncm}</span>
            {data.decision.sim && <span className="mono"> · SIM {data.decision.sim}</span>}
            {data.decision.note && (
              <div>
                {t('audit.note')} <span translate="no">{data.decision.note}</span>
              </div>
            )}
          </Said>
        )}
        {data.resent && (
          <Said term={t('rowDetail.resent')} testId="row-detail-resent">
            {t('rowDetail.resentBy', { by: data.resent.by, at: when(data.resent.at) })}
          </Said>
        )}
        {(data.submitted_at || data.finished_at) && (
          <Said term={t('rowDetail.when')}>
            {data.submitted_at && t('rowDetail.submitted', { at: when(data.submitted_at) })}
            {data.submitted_at && data.finished_at && ' · '}
            {data.finished_at && t('rowDetail.finished', { at: when(data.finished_at) })}
          </Said>
        )}
        {data.classification_id && (
          <Said term={t('rowDetail.classification')}>
            <span className="mono">{data.classification_id}</span>
          </Said>
        )}
      </dl>
      <h4 className="subhead">{t('rowDetail.cells')}</h4>
      <dl className="row-detail-cells" data-testid="row-detail-cells">
        {data.cells.map((cell, index) => (
          // A header may repeat: its place in the file is the cell's.
          // biome-ignore lint/suspicious/noArrayIndexKey: the file's column order is fixed.
          <div key={index}>
            <dt translate="no">{cell.header}</dt>
            <dd translate="no">{cell.value === '' ? <None /> : cell.value}</dd>
          </div>
        ))}
      </dl>
    </section>
  );
};
