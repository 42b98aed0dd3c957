/**
 * The clock a Lambda's handlers read: the system clock unless the host of the process set one
 * under its well-known symbol (the local runtime's bootstrap does), and never a value that only
 * looks like one.
 */
import { describe, expect, it } from 'vitest';
import { HOST_CLOCK_KEY, processClock, systemClock } from '../../../functions/host-clock.js';
import type { Clock } from '../../../shared/pipeline/core/ports.js';

const hostWith = (value: unknown): object => ({ [Symbol.for(HOST_CLOCK_KEY)]: value });

describe('processClock', () => {
  it('is the system clock when the host set none: real time, production spans as they are', () => {
    const before = Date.now();
    const clock = processClock({});

    expect(clock).toBe(systemClock);
    expect(clock.span(300_000)).toBe(300_000);
    expect(clock.now().getTime()).toBeGreaterThanOrEqual(before);
    expect(clock.now().getTime()).toBeLessThanOrEqual(Date.now());
  });

  it("is the host's clock when it set one", () => {
    const faster: Clock = { now: () => new Date('2026-11-21T12:00:00.000Z'), span: (ms) => ms * 0.02 };

    const clock = processClock(hostWith(faster));

    expect(clock).toBe(faster);
    expect(clock.span(5_000)).toBe(100);
  });

  it('looks on the global object unless told otherwise', () => {
    // No test in this process sets one: the system clock, as on AWS.
    expect(processClock()).toBe(systemClock);
  });

  it.each([
    ['a number', 0.02],
    ['an object without span', { now: () => new Date() }],
    ['null', null],
  ])("refuses %s under the host's symbol rather than run at the wrong pace", (_, value) => {
    expect(() => processClock(hostWith(value))).toThrow(/needs now\(\) and span\(\)/);
  });
});
