/**
 * Trigger phrases: bracketed tags a caller writes anywhere in a description or sheet text to
 * steer the sandbox onto a path deterministically, e.g. `[sandbox:fail=timed_out]`.
 * Matching is case-insensitive; the tag is removed before the product is matched, so a
 * trigger combines with a normal description. Unknown tags and values are ignored.
 */
import { KNOWN_FAILURE_REASONS } from '../../../shared/tcs/schemas.js';

type FailureTrigger = (typeof KNOWN_FAILURE_REASONS)[number];
const FORCEABLE_SIM_STATUSES = ['verifying', 'none', 'auto_selected', 'pending_choice', 'chosen'] as const;
export type ForcedSimStatus = (typeof FORCEABLE_SIM_STATUSES)[number];
const CONFIDENCE_BANDS = ['low', 'medium', 'high'] as const;
export type ForcedBand = (typeof CONFIDENCE_BANDS)[number];
const TARIFF_OUTCOMES = ['no_data', 'not_available'] as const;
type ForcedTariff = (typeof TARIFF_OUTCOMES)[number];

export type Triggers = {
  fail: FailureTrigger | null;
  failOnce: FailureTrigger | null;
  /** null: not forced; 0: ask with the default number of questions; 1..5: exactly that many. */
  ask: number | null;
  askProvisional: boolean;
  sim: ForcedSimStatus | null;
  confidence: ForcedBand | null;
  tariff: ForcedTariff | null;
};

const TAG = /\[\s*sandbox\s*:\s*([a-z-]+)\s*(?:=\s*([a-z0-9_]+)\s*)?\]/gi;

const oneOf = <T extends string>(allowed: readonly T[], value: string | undefined): T | null =>
  value !== undefined && (allowed as readonly string[]).includes(value) ? (value as T) : null;

/** Reads the trigger tags of `text` and returns them with the text stripped of every tag. */
export const parseTriggers = (text: string): { triggers: Triggers; rest: string } => {
  const triggers: Triggers = {
    fail: null,
    failOnce: null,
    ask: null,
    askProvisional: false,
    sim: null,
    confidence: null,
    tariff: null,
  };
  for (const match of text.matchAll(TAG)) {
    const name = match[1]!.toLowerCase();
    const value = match[2]?.toLowerCase();
    switch (name) {
      case 'fail':
        triggers.fail ??= oneOf(KNOWN_FAILURE_REASONS, value);
        break;
      case 'fail-once':
        triggers.failOnce ??= oneOf(KNOWN_FAILURE_REASONS, value);
        break;
      case 'ask': {
        const count = value === undefined ? 0 : Number(value);
        if (Number.isInteger(count) && count >= 0 && count <= 5) triggers.ask ??= count;
        break;
      }
      case 'ask-provisional':
        triggers.askProvisional = true;
        triggers.ask ??= 0;
        break;
      case 'sim':
        triggers.sim ??= oneOf(FORCEABLE_SIM_STATUSES, value);
        break;
      case 'confidence':
        triggers.confidence ??= oneOf(CONFIDENCE_BANDS, value);
        break;
      case 'tariff':
        triggers.tariff ??= oneOf(TARIFF_OUTCOMES, value);
        break;
    }
  }
  return { triggers, rest: text.replace(TAG, ' ') };
};

/** The documented list served by `ClassifierPort.triggers` (one line per phrase). */
export const TRIGGER_DOCS: readonly { phrase: string; effect: string }[] = [
  ...KNOWN_FAILURE_REASONS.map((reason) => ({
    phrase: `[sandbox:fail=${reason}]`,
    effect: `Fails the run with failure_reason ${reason}.`,
  })),
  ...KNOWN_FAILURE_REASONS.map((reason) => ({
    phrase: `[sandbox:fail-once=${reason}]`,
    effect: `Fails with ${reason} on the first attempt (priorAttempts 0); a retry resolves normally.`,
  })),
  {
    phrase: '[sandbox:ask]',
    effect: 'Forces pending_data (questions) on the first run, even for a clear description.',
  },
  { phrase: '[sandbox:ask=N]', effect: 'Forces pending_data with exactly N questions (N from 1 to 5).' },
  {
    phrase: '[sandbox:ask-provisional]',
    effect: 'Forces pending_data with a provisional proposal (is_provisional true candidates).',
  },
  ...FORCEABLE_SIM_STATUSES.map((status) => ({
    phrase: `[sandbox:sim=${status}]`,
    effect: `Sets the rank-1 candidate's sim.status to ${status}.`,
  })),
  ...CONFIDENCE_BANDS.map((band) => ({
    phrase: `[sandbox:confidence=${band}]`,
    effect: `Puts the rank-1 candidate's confidence in the ${band} band.`,
  })),
  ...TARIFF_OUTCOMES.map((reason) => ({
    phrase: `[sandbox:tariff=${reason}]`,
    effect: `The resolved verdict's tariffs are found:false with reason ${reason}.`,
  })),
];
