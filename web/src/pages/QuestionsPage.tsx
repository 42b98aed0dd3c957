/**
 * The questions inbox: every group of rows asked the same questions, answered once per group.
 * Answered rows leave the inbox and show below "Sent answers" with their live status until they
 * are final (then their verdict's NCM). The inbox refreshes every 10 s while nobody is typing.
 */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { AnswersAccepted, PendingRowView } from '../../../shared/console/web-contract.js';
import { CONSOLE_LIMITS } from '../../../shared/console/web-contract.js';
import { batchChoices } from '../check-filters.js';
import { Notice, StatusChip } from '../components/ui.js';
import { BatchRow, useWorkList, WorkListPage } from '../components/work-list.js';
import { useConsole } from '../context.js';
import { formatNcm, formatNumber } from '../format.js';
import { useLanguage, usePoll } from '../hooks.js';
import { plural } from '../i18n.js';
import { rowRanges } from '../row-ranges.js';
import { type RowStatus, WORKING } from '../status.js';
import { QuestionGroupCard } from './QuestionGroupCard.js';

const FOLLOW_MS = 10 * 60_000;
let sentIds = 0;

type Followed = {
  row: PendingRowView;
  status: RowStatus;
  ncm: string | null;
  /** It left pending_data (a round took it): pending_data again means new questions. */
  resumed: boolean;
  final: boolean;
};

type Sent = { id: number; at: number; count: number; rows: Followed[] };

const isFinal = (item: Followed): boolean =>
  item.status === 'pending_data' ? item.resumed : !WORKING.includes(item.status);

/** Looks at the sent rows again, a call per batch and range of rows. */
const useFollow = (sent: Sent[], setSent: (update: (before: Sent[]) => Sent[]) => void) => {
  const { api } = useConsole();
  const open = sent.filter((item) => Date.now() - item.at < FOLLOW_MS && item.rows.some((row) => !row.final));
  const tick = async () => {
    const wanted = new Map<string, number[]>();
    for (const item of open) {
      for (const followed of item.rows) {
        if (followed.final) continue;
        wanted.set(followed.row.batch_id, [...(wanted.get(followed.row.batch_id) ?? []), followed.row.row]);
      }
    }
    const seen = new Map<string, { status: RowStatus; ncm: string | null }>();
    for (const [batchId, rows] of wanted) {
      for (const range of rowRanges(rows, CONSOLE_LIMITS.rowsPageMax)) {
        const page = await api.rows(batchId, range);
        for (const row of page.rows) seen.set(`${batchId}#${row.row}`, { status: row.status, ncm: row.ncm });
      }
    }
    setSent((before) =>
      before.map((item) => ({
        ...item,
        rows: item.rows.map((followed) => {
          const now = seen.get(`${followed.row.batch_id}#${followed.row.row}`);
          if (!now || followed.final) return followed;
          const next = {
            ...followed,
            status: now.status,
            ncm: now.ncm,
            resumed: followed.resumed || now.status !== 'pending_data',
          };
          return { ...next, final: isFinal(next) };
        }),
      })),
    );
  };
  usePoll(tick, 4_000, open.length > 0);
};

const SentAnswers = ({ sent }: { sent: Sent[] }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  if (sent.length === 0) return null;
  return (
    <section className="panel" aria-labelledby="sent-title" data-testid="sent-answers">
      <h2 id="sent-title">{t('questions.sentTitle')}</h2>
      {sent.map((item) => (
        <div key={item.id} className="sent">
          <Notice kind="success" testId="answers-sent">
            {plural(t, 'questions.sent', item.count, formatNumber(language, item.count))}
          </Notice>
          <ul className="sent-rows">
            {item.rows.map((followed) => {
              const timedOut = !followed.final && Date.now() - item.at >= FOLLOW_MS;
              return (
                <li
                  key={followed.row.classification_id}
                  data-testid="sent-row"
                  data-row={followed.row.row}
                  data-batch-id={followed.row.batch_id}
                  data-status={followed.status}
                  data-final={followed.final}
                >
                  <span className="sent-where">
                    <BatchRow
                      batchId={followed.row.batch_id}
                      name={followed.row.batch_name}
                      row={followed.row.row}
                    />
                    {followed.row.sku && <span className="mono muted"> · {followed.row.sku}</span>}
                  </span>
                  <StatusChip status={followed.status} />
                  {followed.final && followed.ncm && (
                    <span className="mono verdict" data-testid="sent-ncm">
                      {formatNcm(followed.ncm)}
                    </span>
                  )}
                  {!followed.final && !followed.resumed && !timedOut && (
                    <span className="muted">
                      <span className="spinner" aria-hidden="true" /> {t('questions.waitingResume')}
                    </span>
                  )}
                  {followed.final && followed.status === 'pending_data' && (
                    <span className="muted">{t('questions.askedAgain')}</span>
                  )}
                  {timedOut && <span className="muted">{t('questions.stillWaiting')}</span>}
                </li>
              );
            })}
          </ul>
        </div>
      ))}
    </section>
  );
};

export const QuestionsPage = () => {
  const { t } = useTranslation();
  const { api, setPending } = useConsole();
  const inbox = useWorkList(() => api.questions(), 10_000);
  const [answered, setAnswered] = useState<Set<string>>(new Set());
  const [sent, setSent] = useState<Sent[]>([]);
  const [batch, setBatch] = useState<string | null>(null);
  useFollow(sent, setSent);

  const onSent = (rows: PendingRowView[], accepted: AnswersAccepted) => {
    const count = accepted.files.reduce((sum, file) => sum + file.rows.length, 0) || rows.length;
    setAnswered((before) => new Set([...before, ...rows.map((row) => row.classification_id)]));
    setSent((before) => [
      {
        id: ++sentIds,
        at: Date.now(),
        count,
        rows: rows.map((row) => ({ row, status: 'pending_data', ncm: null, resumed: false, final: false })),
      },
      ...before,
    ]);
  };

  // Rows just answered stay out of the inbox (the next round takes them out for good).
  const groups = (inbox.data?.groups ?? [])
    .map((group) => ({ ...group, rows: group.rows.filter((row) => !answered.has(row.classification_id)) }))
    .filter((group) => group.rows.length > 0);
  const waiting = groups.reduce((sum, group) => sum + group.rows.length, 0);
  useEffect(() => {
    if (inbox.data) setPending(waiting);
  }, [inbox.data, waiting, setPending]);
  // One batch's questions at a time, when the person asks: each group keeps only that batch's rows.
  const batches = batchChoices(
    groups.flatMap((group) => group.rows.map((row) => [row.batch_id, row.batch_name] as const)),
  );
  const shownGroups = groups
    .map((group) =>
      batch === null ? group : { ...group, rows: group.rows.filter((row) => row.batch_id === batch) },
    )
    .filter((group) => group.rows.length > 0);

  return (
    <WorkListPage
      list={inbox}
      title={t('questions.title')}
      intro={t('questions.intro')}
      liveTitle={t('questions.autoRefresh')}
      count={groups.length}
      empty={t('questions.empty')}
      emptyTestId="questions-empty"
      sent={<SentAnswers sent={sent} />}
    >
      {groups.length > 0 && (
        <div className="toolbar">
          <label className="toolbar-field">
            <span>{t('checks.filter.batch')}</span>
            <select
              value={batch ?? ''}
              onChange={(event) => setBatch(event.target.value || null)}
              data-testid="questions-filter-batch"
            >
              <option value="">{t('checks.filter.all')}</option>
              {batches.map((choice) => (
                <option key={choice.id} value={choice.id}>
                  {choice.label}
                </option>
              ))}
            </select>
          </label>
        </div>
      )}
      {shownGroups.map((group) => (
        <QuestionGroupCard key={group.key} group={group} onDirty={inbox.onDirty} onSent={onSent} />
      ))}
    </WorkListPage>
  );
};
