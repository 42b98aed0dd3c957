/**
 * `npm run smoke`'s command line (infra/smoke.ts): the defaults, and every option it cannot take
 * as given refused with a plain message (nothing given is silently ignored).
 */
import { describe, expect, it } from 'vitest';
import { STATEFUL_STACK_NAME } from '../../../infra/app.js';
import { DEFAULT_STACK, parseSmokeArguments } from '../../../infra/smoke.js';

describe('parseSmokeArguments', () => {
  it('defaults to the stateful stack the app deploys, and 15 minutes', () => {
    expect(DEFAULT_STACK).toBe(STATEFUL_STACK_NAME);
    expect(parseSmokeArguments([])).toEqual({ stackName: STATEFUL_STACK_NAME, timeoutMs: 15 * 60_000 });
  });

  it('takes a stack name and a timeout in minutes', () => {
    expect(parseSmokeArguments(['--stack', 'Staging-Stateful', '--timeout', '2.5'])).toEqual({
      stackName: 'Staging-Stateful',
      timeoutMs: 150_000,
    });
    expect(parseSmokeArguments(['--timeout=30'])).toMatchObject({ timeoutMs: 1_800_000 });
  });

  it('is null for --help', () => {
    expect(parseSmokeArguments(['--help'])).toBeNull();
    expect(parseSmokeArguments(['-h'])).toBeNull();
  });

  it.each([
    [['--stak', 'X'], 'unknown option --stak'],
    [['--yes'], 'unknown option --yes'],
    [
      ['NcmBatchClassifier-Stateful'],
      'unexpected argument NcmBatchClassifier-Stateful: the smoke takes options only',
    ],
    [['--stack'], '--stack needs a value'],
    [['--stack', 'A', '--stack', 'B'], '--stack is given twice'],
    [['--stack', ' '], '--stack needs a stack name'],
    [['--timeout', 'ten'], '--timeout ten: give minutes, above 0 and at most 1440'],
    [['--timeout=0'], '--timeout 0: give minutes, above 0 and at most 1440'],
    [['--timeout=-5'], '--timeout -5: give minutes, above 0 and at most 1440'],
    [['--timeout', '2000'], '--timeout 2000: give minutes, above 0 and at most 1440'],
  ])('refuses %j: %s', (argv, message) => {
    expect(() => parseSmokeArguments(argv)).toThrow(message);
    try {
      parseSmokeArguments(argv);
    } catch (error) {
      expect(error).toMatchObject({ name: 'UsageError', message });
    }
  });
});
