/**
 * What the two lists a person works through share: the questions inbox (pages/QuestionsPage.tsx)
 * and the "To check" workbench (pages/ChecksPage.tsx). Each keeps itself fresh while nobody is
 * typing in it (`useWorkList`), and each item's form sends once, busy meanwhile, with the reason it
 * cannot send or the error it got. The inbox also takes the page (`WorkListPage`: what was just
 * sent above the items) and a card per item; the workbench lays out its own table.
 */
import { type ReactNode, useCallback, useId, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { useCall, useLoader, usePoll } from '../hooks.js';
import { hrefOf } from '../router.js';
import { ErrorNotice, Live, Loading } from './ui.js';

/** A list as its page holds it: the last answer, its error, and whether someone is typing in an item. */
export type WorkList<T> = {
  data: T | null;
  error: unknown;
  /** Some item has unsent input: the list holds still so it does not move under the person. */
  typing: boolean;
  /** An item says it has unsent input (`true`) or has none any more (`false`). */
  onDirty: (key: string, dirty: boolean) => void;
};

/** Loads a list when the page opens, then again every `everyMs` while nobody is typing in it. */
export const useWorkList = <T,>(load: () => Promise<T>, everyMs: number): WorkList<T> => {
  const { data, error, reload } = useLoader(load, 'once');
  const [dirty, setDirty] = useState<ReadonlySet<string>>(new Set());
  const typing = dirty.size > 0;
  usePoll(reload, everyMs, !typing);
  const onDirty = useCallback(
    (key: string, value: boolean) =>
      setDirty((before) => {
        if (before.has(key) === value) return before;
        const next = new Set(before);
        if (value) next.add(key);
        else next.delete(key);
        return next;
      }),
    [],
  );
  return { data, error, typing, onDirty };
};

/**
 * A list's page: its title (marked live while it refreshes), the intro, the list's error, what
 * was just sent, then the items, or "loading", or `empty` once the list came back with none.
 */
export const WorkListPage = ({
  list,
  title,
  intro,
  liveTitle,
  count,
  empty,
  emptyTestId,
  testId,
  sent,
  children,
}: {
  list: WorkList<unknown>;
  title: string;
  intro: string;
  liveTitle?: string;
  /** How many items the page shows. */
  count: number;
  empty: string;
  emptyTestId: string;
  testId?: string;
  sent: ReactNode;
  children: ReactNode;
}) => (
  <div className="page" data-testid={testId}>
    <div className="page-head">
      <h1>{title}</h1>
      {!list.typing && <Live title={liveTitle} />}
    </div>
    <p className="lead">{intro}</p>
    {list.error !== null && <ErrorNotice error={list.error} />}
    {sent}
    {list.data === null && list.error === null && <Loading />}
    {list.data !== null && count === 0 && (
      <p className="empty" data-testid={emptyTestId}>
        {empty}
      </p>
    )}
    {children}
  </div>
);

/** An item's card: a panel titled `title` (with `aside` beside it) that names the panel for screen readers. */
export const WorkItemCard = ({
  className,
  testId,
  data,
  title,
  aside,
  children,
}: {
  className: string;
  testId: string;
  /** The card's `data-*` attributes, for the browser tests. */
  data: Record<`data-${string}`, string | number>;
  title: ReactNode;
  aside?: ReactNode;
  children: ReactNode;
}) => {
  const id = useId();
  return (
    <section className={`panel ${className}`} data-testid={testId} {...data} aria-labelledby={`${id}-title`}>
      <div className="panel-head">
        <h2 id={`${id}-title`}>{title}</h2>
        {aside}
      </div>
      {children}
    </section>
  );
};

/**
 * An item's sending: `submit(problem, send)` shows `problem` and sends nothing when there is one,
 * otherwise runs `send` once, `busy` meanwhile; `error` is what the last send threw.
 */
export const useSubmit = () => {
  const { busy, error, setError, run } = useCall();
  const [problem, setProblem] = useState<string | null>(null);
  const submit = (problemNow: string | null, send: () => Promise<void>) => {
    setError(null);
    setProblem(problemNow);
    if (problemNow === null) void run(send);
  };
  return { busy, error, setError, problem, submit };
};

/** An item's form: sends on submit (the browser's own checks and navigation stay off), its error below it. */
export const WorkItemForm = ({
  onSubmit,
  onChange,
  error,
  errorTestId,
  children,
}: {
  onSubmit: () => void;
  /** Any input changed: the item has unsent input. */
  onChange: () => void;
  error: unknown;
  errorTestId: string;
  children: ReactNode;
}) => (
  <form
    onSubmit={(event) => {
      event.preventDefault();
      onSubmit();
    }}
    onChange={onChange}
    noValidate
  >
    {children}
    {error !== null && <ErrorNotice error={error} testId={errorTestId} />}
  </form>
);

/** The form's send button (its label "Sending…" while busy) with the problem that kept it from sending. */
export const SubmitBar = ({
  label,
  busy,
  blocked = false,
  problem,
  problemTestId,
  testId,
}: {
  label: string;
  busy: boolean;
  /** Something shown elsewhere in the form must be mended first. */
  blocked?: boolean;
  problem: string | null;
  problemTestId: string;
  testId: string;
}) => {
  const { t } = useTranslation();
  return (
    <div className="group-submit">
      {problem && (
        <p className="field-error" role="alert" data-testid={problemTestId}>
          {problem}
        </p>
      )}
      <button type="submit" className="button button-primary" disabled={busy || blocked} data-testid={testId}>
        {busy ? t('common.sending') : label}
      </button>
    </div>
  );
};

/** A link to a batch's page, named by the batch. */
export const BatchLink = ({ batchId, name }: { batchId: string; name: string }) => (
  <a href={hrefOf({ page: 'batch', batchId })}>{name}</a>
);

/** A row of a batch as the lists name it: the batch's link, then "· row 3". */
export const BatchRow = ({ batchId, name, row }: { batchId: string; name: string; row: number }) => {
  const { t } = useTranslation();
  return (
    <>
      <BatchLink batchId={batchId} name={name} /> · {t('common.row', { row })}
    </>
  );
};
