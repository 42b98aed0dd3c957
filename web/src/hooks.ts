/**
 * Small hooks: the route from the location's hash, polling, debouncing, the reader's language,
 * loading, and a call made from a button or a form.
 */
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { currentLanguage } from './i18n.js';
import type { Language } from './lang.js';
import { hrefOf, parseHash, type Route } from './router.js';

export const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parseHash(window.location.hash));
  useEffect(() => {
    const onChange = () => setRoute(parseHash(window.location.hash));
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
};

export const navigate = (route: Route): void => {
  window.location.hash = hrefOf(route);
};

/**
 * Calls `tick` every `ms` while `active` (and the tab is visible), never two at once. `tick`
 * may change on every render; the latest one runs.
 */
export const usePoll = (tick: () => Promise<unknown> | unknown, ms: number, active: boolean): void => {
  const latest = useRef(tick);
  latest.current = tick;
  useEffect(() => {
    if (!active) return;
    let running = false;
    const timer = window.setInterval(async () => {
      if (running || document.visibilityState === 'hidden') return;
      running = true;
      try {
        await latest.current();
      } catch {
        // The tick shows its own errors; the next one tries again.
      } finally {
        running = false;
      }
    }, ms);
    return () => window.clearInterval(timer);
  }, [ms, active]);
};

export const useDebounced = <T>(value: T, ms: number): T => {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = window.setTimeout(() => setSettled(value), ms);
    return () => window.clearTimeout(timer);
  }, [value, ms]);
  return settled;
};

export const useLanguage = (): Language => {
  const { i18n } = useTranslation();
  return currentLanguage(i18n.resolvedLanguage ?? i18n.language);
};

/** Runs `load` now and whenever `key` changes; the last call wins (earlier answers are dropped). */
export const useLoader = <T>(load: () => Promise<T>, key: string) => {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<unknown>(null);
  const generation = useRef(0);
  const latest = useRef(load);
  latest.current = load;
  const reload = useCallback(async (): Promise<void> => {
    const mine = ++generation.current;
    try {
      const value = await latest.current();
      if (mine !== generation.current) return;
      setData(value);
      setError(null);
    } catch (failure) {
      if (mine === generation.current) setError(failure);
    }
  }, []);
  // biome-ignore lint/correctness/useExhaustiveDependencies: `key` names what reloads.
  useEffect(() => {
    void reload();
  }, [key, reload]);
  return { data, setData, error, reload };
};

/**
 * A call a person starts from a button or a form: `run(work)` clears the last error, sets `busy`
 * until `work` settles and keeps what it threw in `error` (the page shows it; nothing is thrown on).
 */
export const useCall = () => {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const run = async (work: () => Promise<void>): Promise<void> => {
    setBusy(true);
    setError(null);
    try {
      await work();
    } catch (failure) {
      setError(failure);
    } finally {
      setBusy(false);
    }
  };
  return { busy, error, setError, run };
};
