import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../../../local/sandbox/classifier/catalogue.js';
import { sandboxClassifier } from '../../../local/sandbox/classifier/index.js';
import { Country, SimOpenings, TariffLookup } from '../../../shared/tcs/schemas.js';
import { NOW } from './helpers.js';

const { lookupTariff, lookupSimOpenings, countries } = sandboxClassifier;
const withTariff = CATALOGUE.find((entry) => entry.ncm === '84821010')!; // ball bearings: tariff data
const tariffOf = (ncm: string) => CATALOGUE.find((entry) => entry.ncm === ncm)!.tariff;

describe('lookupTariff', () => {
  it('applies the intra-zone duty to a Mercosur origin', () => {
    for (const country of ['AR', 'BR', 'PY', 'UY']) {
      const tariff = lookupTariff({ ncm: withTariff.ncm, country, operation: 'import' }, NOW);
      expect(TariffLookup.parse(tariff)).toEqual(tariff);
      expect(tariff).toMatchObject({
        found: true,
        operation: 'import',
        duty_kind: 'intrazone',
        import_duty_intrazone: 0,
        import_duty_applicable: 0,
        queried_at: NOW.toISOString(),
      });
    }
  });

  it('applies the extra-zone duty to any other origin', () => {
    const tariff = lookupTariff({ ncm: withTariff.ncm, country: 'CN', operation: 'import' }, NOW);
    expect(TariffLookup.parse(tariff)).toEqual(tariff);
    if (!tariff.found || tariff.operation !== 'import') throw new Error('expected an import tariff');
    expect(tariff.duty_kind).toBe('extrazone');
    expect(tariff.import_duty_extrazone).toBeGreaterThan(0);
    expect(tariff.import_duty_applicable).toBe(tariff.import_duty_extrazone);
    expect(tariff.source).toMatch(/simulated/i);
  });

  it('answers export duties for an export', () => {
    const tariff = lookupTariff({ ncm: '12019000', country: 'CN', operation: 'export' }, NOW);
    expect(TariffLookup.parse(tariff)).toEqual(tariff);
    expect(tariff).toMatchObject({ found: true, operation: 'export', export_refund: 0 });
    expect(tariff).toHaveProperty('export_duty', 26);
  });

  it('reports no_data for an NCM outside the catalogue', () => {
    const tariff = lookupTariff({ ncm: '99999999', country: 'US', operation: 'import' }, NOW);
    expect(TariffLookup.parse(tariff)).toEqual(tariff);
    expect(tariff).toEqual({
      found: false,
      reason: 'no_data',
      source: expect.any(String),
      queried_at: NOW.toISOString(),
    });
  });

  it('reports the catalogue reasons for positions without figures', () => {
    expect(tariffOf('84139190')).toBe('no_data');
    expect(lookupTariff({ ncm: '84139190', country: 'DE', operation: 'import' }, NOW)).toMatchObject({
      found: false,
      reason: 'no_data',
    });
    expect(tariffOf('87032310')).toBe('not_available');
    expect(lookupTariff({ ncm: '87032310', country: 'JP', operation: 'export' }, NOW)).toMatchObject({
      found: false,
      reason: 'not_available',
    });
  });

  it('parses for every catalogue position, operation and a few countries', () => {
    for (const entry of CATALOGUE) {
      for (const operation of ['import', 'export'] as const) {
        for (const country of ['BR', 'US']) {
          const tariff = lookupTariff({ ncm: entry.ncm, country, operation }, NOW);
          expect(TariffLookup.parse(tariff)).toEqual(tariff);
          expect(tariff.found).toBe(typeof entry.tariff === 'object');
        }
      }
    }
  });
});

describe('lookupSimOpenings', () => {
  it('answers available, none or verifying as the catalogue says', () => {
    for (const entry of CATALOGUE) {
      const openings = lookupSimOpenings({ ncm: entry.ncm, operation: 'import' }, NOW);
      expect(SimOpenings.parse(openings)).toEqual(openings);
      expect(openings.ncm).toBe(entry.ncm);
      expect(openings.status).toBe(entry.sim.status);
      expect(openings.verified_at === null).toBe(entry.sim.status === 'verifying');
      if (openings.status === 'available') {
        expect(openings.openings.length).toBeGreaterThan(0);
        expect(openings.verified_at).toBe(NOW.toISOString());
      } else {
        expect(openings.openings).toEqual([]);
      }
    }
  });

  it('answers verifying, never a confirmed empty list, for an unknown NCM', () => {
    const openings = lookupSimOpenings({ ncm: '01012100', operation: 'export' }, NOW);
    expect(SimOpenings.parse(openings)).toEqual(openings);
    expect(openings).toEqual({
      ncm: '01012100',
      operation: 'export',
      status: 'verifying',
      openings: [],
      verified_at: null,
    });
  });
});

describe('countries', () => {
  it('lists 40 to 60 valid, unique countries with Portuguese names', () => {
    expect(countries.length).toBeGreaterThanOrEqual(40);
    expect(countries.length).toBeLessThanOrEqual(60);
    for (const country of countries) expect(Country.strict().parse(country)).toEqual(country);
    expect(new Set(countries.map((country) => country.code)).size).toBe(countries.length);
    expect(countries.find((country) => country.code === 'DE')?.name).toBe('Alemanha');
  });

  it('marks exactly the four Mercosur members', () => {
    const members = countries.filter((country) => country.mercosur).map((country) => country.code);
    expect(members.sort()).toEqual(['AR', 'BR', 'PY', 'UY']);
  });

  it('includes South America and the main trade partners', () => {
    const codes = new Set(countries.map((country) => country.code));
    const expected = ['AR', 'BO', 'BR', 'CL', 'CO', 'EC', 'GY', 'PE', 'PY', 'SR', 'UY', 'VE'];
    expected.push(
      'US',
      'CN',
      'DE',
      'IT',
      'ES',
      'FR',
      'JP',
      'KR',
      'IN',
      'MX',
      'CA',
      'GB',
      'NL',
      'BE',
      'CH',
      'PT',
    );
    expected.push('VN', 'TH', 'TW');
    for (const code of expected) expect(codes.has(code), code).toBe(true);
  });
});
