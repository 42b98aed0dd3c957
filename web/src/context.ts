import { createContext, useContext } from 'react';
import type { SessionView } from '../../shared/console/web-contract.js';
import type { Api } from './client.js';
import type { ConsoleConfig } from './config.js';

export type ConsoleContextValue = {
  api: Api;
  config: ConsoleConfig;
  session: SessionView;
  /** Leaves through the hosted UI's sign-out; null locally, where nobody signs in. */
  signOut: (() => Promise<void>) | null;
  /** Rows waiting for answers, as the last look at the inbox found them (the nav's badge). */
  pending: number | null;
  setPending: (rows: number) => void;
  /** Products waiting for a check, as the last look at the "To check" list found them (its badge). */
  checking: number | null;
  setChecking: (entries: number) => void;
};

export const ConsoleContext = createContext<ConsoleContextValue | null>(null);

export const useConsole = (): ConsoleContextValue => {
  const value = useContext(ConsoleContext);
  if (!value) throw new Error('useConsole outside ConsoleContext');
  return value;
};
