/** The frame: header (product, nav with the inbox badge, language, user), then the route's page. */
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import type { SessionView } from '../../shared/console/web-contract.js';
import type { Api } from './client.js';
import type { ConsoleConfig } from './config.js';
import { ConsoleContext, type ConsoleContextValue } from './context.js';
import { formatNumber } from './format.js';
import { useLanguage, usePoll, useRoute } from './hooks.js';
import { plural, setLanguage } from './i18n.js';
import { isLanguage, LANGUAGE_NAMES, LANGUAGES } from './lang.js';
import { BatchesPage } from './pages/BatchesPage.js';
import { BatchPage } from './pages/BatchPage.js';
import { ChecksPage } from './pages/ChecksPage.js';
import { QuestionsPage } from './pages/QuestionsPage.js';
import { UploadPage } from './pages/UploadPage.js';
import { VerdictPage } from './pages/VerdictPage.js';
import { hrefOf, type PageName, type Route } from './router.js';

const NAV: {
  page: PageName;
  route: Route;
  label: 'nav.batches' | 'nav.upload' | 'nav.questions' | 'nav.checks';
}[] = [
  { page: 'batches', route: { page: 'batches', waiting: null }, label: 'nav.batches' },
  { page: 'upload', route: { page: 'upload' }, label: 'nav.upload' },
  { page: 'questions', route: { page: 'questions' }, label: 'nav.questions' },
  { page: 'checks', route: { page: 'checks', batchId: null, row: null }, label: 'nav.checks' },
];

/** A menu entry's count of what waits there (rows to answer, products to check); nothing when none. */
const NavBadge = ({
  count,
  testId,
  title,
}: {
  count: number | null;
  testId: string;
  title: 'nav.pending' | 'nav.checking';
}) => {
  const { t } = useTranslation();
  const language = useLanguage();
  if (count === null || count === 0) return null;
  return (
    <span
      className="nav-badge"
      data-testid={testId}
      data-count={count}
      title={plural(t, title, count, formatNumber(language, count))}
    >
      {formatNumber(language, count)}
    </span>
  );
};

const Header = ({ route, value }: { route: Route; value: ConsoleContextValue }) => {
  const { t } = useTranslation();
  const language = useLanguage();
  const current: PageName = route.page === 'batch' || route.page === 'verdict' ? 'batches' : route.page;
  return (
    <header className="topbar">
      <a className="brand" href="#/batches">
        <span className="brand-mark" aria-hidden="true">
          NCM
        </span>
        {t('app.name')}
      </a>
      <nav aria-label={t('app.mainNav')} className="nav">
        {NAV.map((item) => (
          <a
            key={item.page}
            href={hrefOf(item.route)}
            className={current === item.page ? 'nav-link active' : 'nav-link'}
            aria-current={current === item.page ? 'page' : undefined}
            data-testid={`nav-${item.page}`}
          >
            {t(item.label)}
            {item.page === 'questions' && (
              <NavBadge count={value.pending} testId="questions-badge" title="nav.pending" />
            )}
            {item.page === 'checks' && (
              <NavBadge count={value.checking} testId="checks-badge" title="nav.checking" />
            )}
          </a>
        ))}
      </nav>
      <div className="topbar-end">
        <label className="lang-switch">
          <span className="visually-hidden">{t('app.language')}</span>
          <select
            value={language}
            onChange={(event) => isLanguage(event.target.value) && setLanguage(event.target.value)}
            data-testid="language"
          >
            {LANGUAGES.map((lang) => (
              <option key={lang} value={lang} lang={lang}>
                {LANGUAGE_NAMES[lang]}
              </option>
            ))}
          </select>
        </label>
        <span className="user" data-testid="user" title={value.session.user}>
          {value.session.user}
        </span>
        {value.signOut && (
          <button
            type="button"
            className="button button-quiet"
            onClick={() => void value.signOut?.()}
            data-testid="sign-out"
          >
            {t('app.signOut')}
          </button>
        )}
      </div>
    </header>
  );
};

const Page = ({ route }: { route: Route }) => {
  const { t } = useTranslation();
  switch (route.page) {
    case 'batches':
      return <BatchesPage waiting={route.waiting} />;
    case 'batch':
      return <BatchPage key={route.batchId} batchId={route.batchId} />;
    case 'verdict':
      return <VerdictPage batchId={route.batchId} row={route.row} />;
    case 'questions':
      return <QuestionsPage />;
    case 'checks':
      // A link to another entry (or to the whole list) opens the list afresh on it.
      return <ChecksPage key={hrefOf(route)} batchId={route.batchId} row={route.row} />;
    case 'upload':
      return <UploadPage />;
    case 'not_found':
      return (
        <div className="page">
          <p>{t('app.notFound')}</p>
          <a href="#/batches">{t('app.backToBatches')}</a>
        </div>
      );
  }
};

export const App = ({
  api,
  config,
  session,
  signOut,
}: {
  api: Api;
  config: ConsoleConfig;
  session: SessionView;
  signOut: (() => Promise<void>) | null;
}) => {
  const route = useRoute();
  const [pending, setPending] = useState<number | null>(null);
  const [checking, setChecking] = useState<number | null>(null);
  const refreshPending = async () => setPending((await api.questions()).rows);
  const refreshChecking = async () => setChecking((await api.checks()).entries.length);
  // biome-ignore lint/correctness/useExhaustiveDependencies: once, at start.
  useEffect(() => {
    void refreshPending().catch(() => {});
    void refreshChecking().catch(() => {});
  }, []);
  // The badges: each list's page reports its own count; elsewhere look every 30 s.
  usePoll(refreshPending, 30_000, route.page !== 'questions');
  usePoll(refreshChecking, 30_000, route.page !== 'checks');
  const value: ConsoleContextValue = {
    api,
    config,
    session,
    signOut,
    pending,
    setPending,
    checking,
    setChecking,
  };
  // biome-ignore lint/correctness/useExhaustiveDependencies: a new page starts at its top.
  useEffect(() => {
    window.scrollTo(0, 0);
  }, [route.page]);
  return (
    <ConsoleContext.Provider value={value}>
      <Header route={route} value={value} />
      <main className="main">
        <Page route={route} />
      </main>
    </ConsoleContext.Provider>
  );
};
