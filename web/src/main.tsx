/**
 * Start: read config.json, set the language, sign in (AWS only), ask who we are (GET /session),
 * then show the console. A failure on the way shows what failed and a way to try again.
 */
import './no-eval.js';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { App } from './App.js';
import { createSignIn } from './auth.js';
import { createApi } from './client.js';
import { ConsoleConfig } from './config.js';
import { errorMessage, initI18n } from './i18n.js';
import './styles.css';
import i18next from 'i18next';

/** Reads ./config.json, relative to the page (it works under any path), never from the cache. */
const loadConfig = async (): Promise<ConsoleConfig> => {
  const response = await fetch('./config.json', { cache: 'no-store' });
  if (!response.ok) throw new Error(`config.json: HTTP ${response.status}`);
  return ConsoleConfig.parse(await response.json());
};

const root = createRoot(document.getElementById('root')!);

const StartFailed = ({ error }: { error: unknown }) => (
  <main className="main start-failed" data-testid="start-failed">
    <h1>{i18next.t('app.startFailed')}</h1>
    <p>{errorMessage(i18next.t, error)}</p>
    <button type="button" className="button" onClick={() => window.location.reload()}>
      {i18next.t('app.retry')}
    </button>
  </main>
);

const start = async (): Promise<void> => {
  await initI18n();
  root.render(<p className="main muted">{i18next.t('app.loading')}</p>);
  try {
    const config = await loadConfig();
    const signIn = config.auth ? createSignIn(config.auth) : null;
    await signIn?.ensureSignedIn();
    const api = createApi(config, signIn);
    const session = await api.session();
    root.render(
      <StrictMode>
        <App api={api} config={config} session={session} signOut={signIn?.signOut ?? null} />
      </StrictMode>,
    );
  } catch (error) {
    root.render(<StartFailed error={error} />);
  }
};

void start();
