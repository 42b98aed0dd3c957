/**
 * `startSandbox(options)`: a faithful local HTTP server of the Tariff Classification
 * Service v1, on loopback, for trying, testing and developing integrations.
 */
import type { AddressInfo } from 'node:net';
import { LIMITS } from '../../shared/tcs/schemas.js';
import type { ClassifierPort } from './classifier/contract.js';
import { sandboxClassifier } from './classifier/index.js';
import { createMonotonicClock, SECOND_MS } from './core/clock.js';
import { ClassificationEngine, type OrganizationStats } from './core/engine.js';
import { deriveApiKeys, keysByName, PRIMARY_ORG, type SandboxKeys } from './core/organizations.js';
import { type PublicUrls, renderClassification } from './core/render.js';
import {
  type FaultCounts,
  FaultInjector,
  type FaultSettings,
  type Faults,
  parseFaultSettings,
  parseFaultSpec,
} from './faults.js';
import type { SandboxLog } from './http/context.js';
import { DEFAULT_PROBLEMS_BASE } from './http/problems.js';
import { createSandboxServer } from './http/server.js';
import { createUrlSigner } from './http/signing.js';
import { DebouncedWriter, loadState, saveState } from './persistence.js';

export type SandboxOptions = {
  /** TCP port on 127.0.0.1; 0 (default) picks a free one. */
  port?: number;
  /** Run length factor: a run takes about 60 s × timeScale (default 1; 0.01 ≈ 0.6 s). */
  timeScale?: number;
  /** Fixes keys, ids, run lengths, verdicts and the fault stream (default "sandbox"). */
  seed?: string;
  /** Faults from the start: `"http5xx=0.1,reset_after=0.05"` or `{ http5xx: 0.1, reset_after: 0.05 }`. */
  faults?: string | FaultSettings;
  /** API classifications in progress at once per organisation (default 10). */
  concurrencyLimit?: number;
  /** Processing time of a creation or an answer, in real ms, during which its key is in flight (default 10). */
  creationDelayMs?: number;
  /**
   * How long, in sandbox seconds after `GET /sim-openings` first asks about an NCM, the simulated
   * registry takes to confirm SIM openings it is verifying (default 86400, a day; 0: at once).
   */
  simConfirmAfterSeconds?: number;
  /** Directory of a JSON state file to load on start and keep up to date; no persistence when absent. */
  dataDir?: string;
  /** The simulated classifier (default: the built-in `sandboxClassifier`). */
  classifier?: ClassifierPort;
  /** Log sink: `'stderr'` (default), `'silent'`, or a function. */
  log?: SandboxLog | 'stderr' | 'silent';
  /** Base of problem `type` URIs (default `https://sandbox.tcs.invalid/problems`). */
  problemsBase?: string;
  /** Validity of the signed verdict-PDF URL, in sandbox seconds (default 300). */
  pdfUrlValiditySeconds?: number;
};

type SandboxStats = OrganizationStats & {
  /** The organisation the top-level figures are for (the `classify` and `read` keys'). */
  organization: string;
  requests_by_route: Record<string, number>;
  responses_by_status: Record<string, number>;
  /** Idempotent requests being processed now (their key answers 409 in flight). */
  idempotency_in_flight: number;
  faults: Faults;
  faults_injected: FaultCounts;
  clock: { now: string; offset_seconds: number };
  time_scale: number;
  concurrency_limit: number;
  by_organization: Record<string, OrganizationStats>;
};

export type Sandbox = {
  /** `http://127.0.0.1:PORT/v1` */
  baseUrl: string;
  /** `http://127.0.0.1:PORT/__admin` */
  adminUrl: string;
  origin: string;
  port: number;
  keys: SandboxKeys;
  /** The one JSON line the CLI prints when ready. */
  readyLine: string;
  stats(): SandboxStats;
  /** Sandbox clock now. */
  now(): Date;
  advanceClock(seconds: number): void;
  /** Merges fault settings into the current ones and returns the result. */
  setFaults(settings: FaultSettings): Faults;
  /** Clears every record, figure and fault (and the clock offset). */
  reset(): void;
  close(): Promise<void>;
};

const stderrLog: SandboxLog = (event, fields) => {
  process.stderr.write(`${JSON.stringify({ t: new Date().toISOString(), event, ...fields })}\n`);
};

const logSinkOf = (log: SandboxOptions['log']): SandboxLog => {
  if (log === 'silent') return () => undefined;
  if (log === undefined || log === 'stderr') return stderrLog;
  return log;
};

/** Refuses an option that cannot work, with a message naming it. */
const checkOptions = (options: SandboxOptions): void => {
  const problems: string[] = [];
  const { port, timeScale, concurrencyLimit, creationDelayMs, pdfUrlValiditySeconds } = options;
  if (port !== undefined && !(Number.isInteger(port) && port >= 0 && port <= 65535)) {
    problems.push(`port must be an integer from 0 to 65535, got ${port}`);
  }
  if (timeScale !== undefined && !(Number.isFinite(timeScale) && timeScale > 0 && timeScale <= 1000)) {
    problems.push(`timeScale must be a number > 0 and ≤ 1000, got ${timeScale}`);
  }
  if (concurrencyLimit !== undefined && !(Number.isInteger(concurrencyLimit) && concurrencyLimit >= 1)) {
    problems.push(`concurrencyLimit must be an integer ≥ 1, got ${concurrencyLimit}`);
  }
  if (creationDelayMs !== undefined && !(Number.isFinite(creationDelayMs) && creationDelayMs >= 0)) {
    problems.push(`creationDelayMs must be a number ≥ 0, got ${creationDelayMs}`);
  }
  const { simConfirmAfterSeconds } = options;
  if (
    simConfirmAfterSeconds !== undefined &&
    !(Number.isFinite(simConfirmAfterSeconds) && simConfirmAfterSeconds >= 0)
  ) {
    problems.push(`simConfirmAfterSeconds must be a number ≥ 0, got ${simConfirmAfterSeconds}`);
  }
  if (
    pdfUrlValiditySeconds !== undefined &&
    !(Number.isFinite(pdfUrlValiditySeconds) && pdfUrlValiditySeconds > 0)
  ) {
    problems.push(`pdfUrlValiditySeconds must be a number > 0, got ${pdfUrlValiditySeconds}`);
  }
  if (options.seed !== undefined && options.seed === '') problems.push('seed must not be empty');
  if (problems.length > 0) throw new RangeError(`Invalid sandbox options: ${problems.join('; ')}`);
};

const initialFaults = (faults: SandboxOptions['faults']): Partial<Faults> => {
  if (faults === undefined) return {};
  const parsed = typeof faults === 'string' ? parseFaultSpec(faults) : parseFaultSettings(faults);
  if (!parsed.ok) {
    throw new RangeError(`Invalid faults: ${parsed.errors.map((e) => `${e.field} ${e.message}`).join('; ')}`);
  }
  return parsed.faults;
};

/** A day of sandbox time: how long the simulated registry takes to confirm SIM openings it is verifying. */
const DEFAULT_SIM_CONFIRM_AFTER_SECONDS = 24 * 60 * 60;

/** How often the state is brought up to date when no request does it (stats, persistence). */
const TICK_MS = 100;

export const startSandbox = async (options: SandboxOptions = {}): Promise<Sandbox> => {
  checkOptions(options);
  const seed = options.seed ?? 'sandbox';
  const timeScale = options.timeScale ?? 1;
  const log = logSinkOf(options.log);
  const classifier = options.classifier ?? sandboxClassifier;
  const faults = new FaultInjector(seed);
  faults.apply(initialFaults(options.faults));

  const saved = options.dataDir ? loadState(options.dataDir) : null;
  const clock = createMonotonicClock(Date.now, saved?.clockOffsetMs ?? 0);
  let writer: DebouncedWriter | null = null;
  const engine = new ClassificationEngine({
    clock,
    classifier,
    seed,
    timeScale,
    concurrencyLimit: options.concurrencyLimit ?? LIMITS.concurrencyLimitDefault,
    simConfirmAfterMs: (options.simConfirmAfterSeconds ?? DEFAULT_SIM_CONFIRM_AFTER_SECONDS) * SECOND_MS,
    onChange: () => writer?.schedule(),
  });
  if (saved) {
    engine.restore(saved.engine);
    if (saved.seed !== seed) {
      log('warning', { message: `state was saved with seed "${saved.seed}"; keys now come from "${seed}"` });
    }
    log('state loaded', { classifications: saved.engine.classifications.length, saved_at: saved.savedAt });
  }
  const dataDir = options.dataDir;
  if (dataDir) {
    writer = new DebouncedWriter(
      () => saveState(dataDir, { seed, clockOffsetMs: clock.offsetMs(), engine: engine.snapshot() }),
      // Each write serialises the whole state: at most once a second, or a busy sandbox spends
      // its CPU rewriting the file (close() writes the last changes).
      1_000,
      (error) => log('error', { message: 'could not save the sandbox state', error: String(error) }),
    );
  }

  const keys = deriveApiKeys(seed);
  let urls: PublicUrls = { apiBase: '', origin: '' };

  const organizationStats = (): Record<string, OrganizationStats> =>
    Object.fromEntries(engine.activeOrganizations().map((org) => [org, engine.stats(org)]));

  const stats = (): SandboxStats => {
    const now = engine.advance();
    return {
      organization: PRIMARY_ORG,
      ...engine.stats(PRIMARY_ORG),
      requests_by_route: { ...counters.byRoute },
      responses_by_status: { ...counters.byStatus },
      idempotency_in_flight: engine.idempotency.inFlight(),
      faults: faults.current(),
      faults_injected: faults.injected(),
      clock: { now: new Date(now).toISOString(), offset_seconds: clock.offsetMs() / SECOND_MS },
      time_scale: timeScale,
      concurrency_limit: engine.concurrencyLimit,
      by_organization: organizationStats(),
    };
  };

  const advanceClock = (seconds: number): void => {
    clock.advance(seconds * SECOND_MS);
    engine.advance();
    writer?.schedule();
  };

  const reset = (): void => {
    clock.reset();
    engine.reset();
    faults.reset();
    counters.reset();
    writer?.schedule();
  };

  const { server, counters } = createSandboxServer(
    {
      engine,
      clock,
      classifier,
      keys,
      signer: createUrlSigner(),
      problemsBase: options.problemsBase ?? DEFAULT_PROBLEMS_BASE,
      creationDelayMs: options.creationDelayMs ?? 10,
      pdfUrlValidityMs: (options.pdfUrlValiditySeconds ?? 300) * SECOND_MS,
      maintenanceRetryAfterSeconds: Math.max(1, Math.ceil(30 * timeScale)),
      urls: () => urls,
      log,
    },
    faults,
    {
      stats,
      clock: () => ({
        now: new Date(clock.now()).toISOString(),
        offset_seconds: clock.offsetMs() / SECOND_MS,
      }),
      advanceClock: (seconds) => {
        advanceClock(seconds);
        return { now: new Date(clock.now()).toISOString(), offset_seconds: clock.offsetMs() / SECOND_MS };
      },
      faults: () => faults.current(),
      applyFaults: (settings) => faults.apply(settings),
      reset,
      triggers: () => classifier.triggers,
      classifications: (orgId) => {
        const now = clock.now();
        const billed = new Map<string, Record<string, number>>();
        const billedTimes = (org: string, id: string): number => {
          if (!billed.has(org)) billed.set(org, engine.stats(org).billed_per_classification);
          return billed.get(org)![id] ?? 0;
        };
        return engine
          .all()
          .filter((record) => orgId === null || record.orgId === orgId)
          .sort((a, b) => a.createdAt - b.createdAt)
          .map((record) => ({
            ...renderClassification(record, now, urls),
            _sandbox: {
              organization: record.orgId,
              prior_attempts: record.priorAttempts,
              billed_times: billedTimes(record.orgId, record.id),
              sheet: record.sheet && {
                upload_id: record.sheet.uploadId,
                text_chars: record.sheet.text.length,
              },
              run: record.run && {
                round: record.run.round,
                started_at: new Date(record.run.startedAt).toISOString(),
                ends_at: new Date(record.run.endsAt).toISOString(),
                stages: record.run.stages,
                outcome: record.run.verdict.status,
              },
              finished_runs: record.history.map((run) => ({
                round: run.round,
                started_at: new Date(run.startedAt).toISOString(),
                ended_at: new Date(run.endsAt).toISOString(),
                outcome: run.outcome,
              })),
              pending_since:
                record.pendingSince === null ? null : new Date(record.pendingSince).toISOString(),
            },
          }));
      },
    },
  );

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  urls = { apiBase: `${origin}/v1`, origin };
  const baseUrl = `${origin}/v1`;
  const adminUrl = `${origin}/__admin`;
  const keyMap = keysByName(keys);

  const ticker = setInterval(() => engine.advance(), TICK_MS);
  ticker.unref();
  log('sandbox ready', { base_url: baseUrl, time_scale: timeScale, seed, data_dir: dataDir ?? null });

  let closing: Promise<void> | null = null;
  return {
    baseUrl,
    adminUrl,
    origin,
    port,
    keys: keyMap,
    readyLine: JSON.stringify({ base_url: baseUrl, admin_url: adminUrl, keys: keyMap }),
    stats,
    now: () => new Date(clock.now()),
    advanceClock,
    setFaults(settings) {
      return faults.apply(initialFaults(settings));
    },
    reset,
    close() {
      closing ??= new Promise<void>((resolve, reject) => {
        clearInterval(ticker);
        server.close((error) => {
          writer?.flush();
          if (error) reject(error);
          else resolve();
        });
        server.closeAllConnections();
      });
      return closing;
    },
  };
};
