/** Unit: fault settings (CLI spec and JSON object) and the seeded fault stream. */
import { describe, expect, it } from 'vitest';
import { FaultInjector, parseFaultSettings, parseFaultSpec } from '../../local/sandbox/faults.js';

describe('parseFaultSpec', () => {
  it('reads comma-separated key=value pairs, numbers and booleans', () => {
    expect(parseFaultSpec('http5xx=0.1, reset_after=0.05,latency_ms=200,maintenance=1')).toEqual({
      ok: true,
      faults: { http5xx: 0.1, reset_after: 0.05, latency_ms: 200, maintenance: true },
    });
    expect(parseFaultSpec('maintenance=off,rate_limit_burst=0.2,reset_before=0')).toEqual({
      ok: true,
      faults: { maintenance: false, rate_limit_burst: 0.2, reset_before: 0 },
    });
    expect(parseFaultSpec('')).toEqual({ ok: true, faults: {} });
  });

  it.each([
    ['http5xx', 'http5xx'],
    ['http5xx=1.5', 'http5xx'],
    ['latency_ms=1.5', 'latency_ms'],
    ['reset_later=0.1', 'reset_later'],
    ['maintenance=maybe', 'maintenance'],
  ])('refuses %s, naming %s', (spec, field) => {
    const parsed = parseFaultSpec(spec);
    expect(parsed.ok).toBe(false);
    if (!parsed.ok) expect(parsed.errors.map((e) => e.field).join(' ')).toContain(field);
  });

  it('the JSON form takes the same keys and refuses unknown ones', () => {
    expect(parseFaultSettings({ http5xx: 0.1, maintenance: 0 })).toEqual({
      ok: true,
      faults: { http5xx: 0.1, maintenance: false },
    });
    expect(parseFaultSettings({ http5xx: '0.1' }).ok).toBe(false);
    expect(parseFaultSettings([]).ok).toBe(false);
  });
});

describe('FaultInjector', () => {
  it('is reproducible for a seed, varies with the seed, and restarts on reset', () => {
    const draws = (injector: FaultInjector) =>
      Array.from({ length: 50 }, () => {
        const plan = injector.plan();
        return plan.serverError ?? (plan.resetAfter ? 'reset' : 'ok');
      });
    const a = new FaultInjector('s1');
    const b = new FaultInjector('s1');
    const c = new FaultInjector('s2');
    for (const injector of [a, b, c]) injector.apply({ http5xx: 0.3, reset_after: 0.2 });
    const first = draws(a);
    expect(draws(b)).toEqual(first);
    expect(draws(c)).not.toEqual(first);
    a.reset();
    a.apply({ http5xx: 0.3, reset_after: 0.2 });
    expect(draws(a)).toEqual(first);
    expect(a.injected().http5xx + a.injected().reset_after).toBe(first.filter((d) => d !== 'ok').length);
  });

  it('maintenance wins over every other fault', () => {
    const injector = new FaultInjector('s');
    injector.apply({ maintenance: true, http5xx: 1, reset_before: 1 });
    expect(injector.plan()).toMatchObject({ maintenance: true, resetBefore: false, serverError: null });
  });
});
