import { describe, expect, it } from 'vitest';
import { CATALOGUE, SECTIONS } from '../../../local/sandbox/classifier/catalogue.js';
import { sandboxClassifier } from '../../../local/sandbox/classifier/index.js';
import { normalize } from '../../../local/sandbox/classifier/text.js';
import { described, expectResolved } from './helpers.js';

describe('built-in catalogue', () => {
  it('holds 40 to 60 positions with unique 8-digit NCMs', () => {
    expect(CATALOGUE.length).toBeGreaterThanOrEqual(40);
    expect(CATALOGUE.length).toBeLessThanOrEqual(60);
    for (const entry of CATALOGUE) expect(entry.ncm).toMatch(/^\d{8}$/);
    expect(new Set(CATALOGUE.map((entry) => entry.ncm)).size).toBe(CATALOGUE.length);
  });

  it('has a complete hierarchy whose codes are prefixes of the NCM', () => {
    for (const { ncm, hierarchy } of CATALOGUE) {
      const section = hierarchy.section!;
      expect(SECTIONS[section.code as keyof typeof SECTIONS], ncm).toBe(section.description);
      expect(hierarchy.chapter!.code, ncm).toBe(ncm.slice(0, 2));
      expect(hierarchy.heading!.code, ncm).toBe(ncm.slice(0, 4));
      expect(hierarchy.subheading!.code, ncm).toBe(ncm.slice(0, 6));
      for (const level of [section, hierarchy.chapter!, hierarchy.heading!, hierarchy.subheading!]) {
        expect(level.description.trim(), ncm).not.toBe('');
        expect(level.description, ncm).not.toMatch(/<\/?\w+>|^\s*-/);
      }
    }
  });

  it('covers many sections and chapters', () => {
    expect(new Set(CATALOGUE.map((entry) => entry.hierarchy.section!.code)).size).toBeGreaterThanOrEqual(15);
    expect(new Set(CATALOGUE.map((entry) => entry.ncm.slice(0, 2))).size).toBeGreaterThanOrEqual(30);
  });

  it('names 21 sections', () => {
    expect(Object.keys(SECTIONS)).toHaveLength(21);
  });

  it('keeps descriptions official-looking: no tags, no leading dashes', () => {
    for (const entry of CATALOGUE) {
      for (const text of [
        entry.description,
        ...entry.discarded.map((alternative) => alternative.description),
      ]) {
        expect(text, entry.ncm).not.toMatch(/<\/?\w+>|^\s*-|\u00a0/);
        expect(text.length, entry.ncm).toBeGreaterThan(3);
      }
    }
  });

  it('discards 1 to 5 real-looking alternatives that differ from the entry', () => {
    for (const entry of CATALOGUE) {
      expect(entry.discarded.length, entry.ncm).toBeGreaterThanOrEqual(1);
      expect(entry.discarded.length, entry.ncm).toBeLessThanOrEqual(5);
      const codes = entry.discarded.map((alternative) => alternative.ncm);
      expect(new Set(codes).size, entry.ncm).toBe(codes.length);
      for (const alternative of entry.discarded) {
        expect(alternative.ncm, entry.ncm).toMatch(/^\d{8}$/);
        expect(alternative.ncm, entry.ncm).not.toBe(entry.ncm);
        expect(alternative.reason, entry.ncm).not.toBe('');
      }
    }
  });

  it('keeps keywords accent-folded and lower-case, and at most 5 missing-data hints', () => {
    for (const entry of CATALOGUE) {
      for (const phrase of [...entry.keywords, ...(entry.excludes ?? [])]) {
        expect(phrase, entry.ncm).toBe(normalize(phrase));
      }
      expect(entry.missingData.length, entry.ncm).toBeLessThanOrEqual(5);
    }
  });

  it('uses the spec form for applied rules', () => {
    for (const entry of CATALOGUE) {
      expect(entry.appliedRules.length, entry.ncm).toBeGreaterThan(0);
      for (const rule of entry.appliedRules) expect(rule, entry.ncm).toMatch(/^[1-6]( [a-c]\))?$/);
    }
  });

  it('gives simulated SIM openings as the NCM plus two digits', () => {
    for (const entry of CATALOGUE) {
      if (entry.sim.status !== 'available') continue;
      expect(entry.sim.openings.length, entry.ncm).toBeGreaterThan(0);
      const codes = entry.sim.openings.map((opening) => opening.code);
      expect(new Set(codes).size, entry.ncm).toBe(codes.length);
      for (const code of codes) expect(code, entry.ncm).toMatch(new RegExp(`^${entry.ncm}\\d{2}$`));
    }
  });

  it('mixes every SIM and tariff situation', () => {
    const simKinds = new Set(
      CATALOGUE.map((entry) =>
        entry.sim.status === 'available'
          ? `available-${Math.min(entry.sim.openings.length, 2)}`
          : entry.sim.status,
      ),
    );
    expect([...simKinds].sort()).toEqual(['available-1', 'available-2', 'none', 'verifying']);
    const tariffKinds = new Set(
      CATALOGUE.map((entry) => (typeof entry.tariff === 'string' ? entry.tariff : 'found')),
    );
    expect([...tariffKinds].sort()).toEqual(['found', 'no_data', 'not_available']);
    expect(CATALOGUE.some((entry) => typeof entry.tariff === 'object' && entry.tariff.aec !== null)).toBe(
      true,
    );
  });

  it.each(CATALOGUE.map((entry) => [entry.productName, entry.ncm]))(
    'classifies its own product name "%s" as %s',
    (productName, ncm) => {
      const verdict = sandboxClassifier.classify(described(productName));
      expectResolved(verdict);
      expect(verdict.chosen_ncm).toBe(ncm);
    },
  );
});
