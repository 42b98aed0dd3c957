/** What the daily SIM sweep makes of each answer of GET /sim-openings for a verdict still verifying its openings. */
import { describe, expect, it } from 'vitest';
import {
  confirmationOf,
  confirmedResult,
  showsSimConfirmed,
} from '../../../../shared/pipeline/answers/sim-confirmation.js';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { detailOf } from '../../../../shared/wording/details.js';
import { message, wordDetail } from '../../../../shared/wording/index.js';

const opening = (code: string, description = `Abertura ${code.slice(-2)}`) => ({ code, description });

/** A resolved verdict as Store keeps it when its SIM openings were still being verified. */
const verifyingResult = (overrides: Partial<RowResult> = {}): RowResult => ({
  status: 'resolved',
  classification_id: 'cls_01J9Z8K7M6N5P4Q3R2S1T0V9W8',
  ncm: '8413.91.90',
  confidence: '88',
  ...detailOf([message('verdict_notes', { sim_verifying: true, tariffs_reason: 'no_data' })]),
  cost_usd: '2.00',
  ...overrides,
});

describe('confirmationOf', () => {
  it('waits while the registry is verifying, and for a status it does not know', () => {
    expect(confirmationOf({ status: 'verifying', openings: [] })).toEqual({ kind: 'wait' });
    expect(confirmationOf({ status: 'pending_review' as never, openings: [] })).toEqual({ kind: 'wait' });
  });

  it('does not take "available" with no opening for a confirmation (an empty list is never confirmed)', () => {
    expect(confirmationOf({ status: 'available', openings: [] })).toEqual({ kind: 'wait' });
  });

  it('reads one opening, several, or none', () => {
    expect(confirmationOf({ status: 'available', openings: [opening('8413919010')] })).toEqual({
      kind: 'one',
      opening: opening('8413919010'),
    });
    expect(
      confirmationOf({ status: 'available', openings: [opening('8413919010'), opening('8413919090')] }),
    ).toEqual({ kind: 'several', openings: [opening('8413919010'), opening('8413919090')] });
    expect(confirmationOf({ status: 'none', openings: [] })).toEqual({ kind: 'none' });
  });
});

describe('confirmedResult', () => {
  it('leaves a row still verifying as it is', () => {
    expect(confirmedResult(verifyingResult(), { kind: 'wait' }, 80)).toBeNull();
  });

  it('one opening: sets the SIM code and drops the "not yet confirmed" note, keeping the others', () => {
    // Act
    const confirmed = confirmedResult(verifyingResult(), { kind: 'one', opening: opening('8413919010') }, 80);

    // Assess
    expect(confirmed?.result.sim_code).toBe('8413.91.90.10');
    expect(confirmed?.result.detail).toBe('tariffs not found (no_data)');
    expect(confirmed?.result.check).toBeUndefined();
    expect(confirmed?.reasons).toEqual([]);
    expect(confirmed?.detail).toBe('SIM 8413.91.90.10');
  });

  it('several openings: lists them in the note, and marks the row to check under check_below', () => {
    // Act
    const several = { kind: 'several', openings: [opening('8413919010'), opening('8413919090')] } as const;
    const checked = confirmedResult(verifyingResult(), several, 80);
    const unchecked = confirmedResult(verifyingResult(), several, undefined);

    // Assess
    expect(checked?.result.sim_code).toBeUndefined();
    expect(checked?.result.detail).toBe(
      'SIM opening to be chosen among 8413.91.90.10, 8413.91.90.90; tariffs not found (no_data)',
    );
    expect(checked?.result.check).toBe('to_check');
    expect(checked?.reasons).toEqual(['sim_pending_choice']);
    expect(checked?.detail).toBe('SIM to choose: 8413.91.90.10, 8413.91.90.90');
    expect(unchecked?.result.check).toBeUndefined();
    expect(unchecked?.reasons).toEqual([]);
  });

  it('several openings under check_below on a low confidence: both reasons; on a verdict approved: none', () => {
    const several = { kind: 'several', openings: [opening('8413919010'), opening('8413919090')] } as const;
    expect(confirmedResult(verifyingResult({ confidence: '61' }), several, 80)?.reasons).toEqual([
      'low_confidence',
      'sim_pending_choice',
    ]);
    const approved = confirmedResult(
      verifyingResult({ check: 'approved', approved_ncm: '8413.91.90' }),
      several,
      80,
    );
    expect(approved?.result.check).toBe('approved');
    expect(approved?.reasons).toEqual([]);
  });

  it('none: the note says the registry confirmed there is none, in every language', () => {
    // Act
    const confirmed = confirmedResult(verifyingResult(), { kind: 'none' }, 80);

    // Assess
    expect(confirmed?.result.detail).toBe(
      'the official registry confirmed there is no SIM opening under this NCM; tariffs not found (no_data)',
    );
    expect(confirmed && wordDetail(confirmed.result, 'pt')).toBe(
      'o registro oficial confirmou que não há abertura SIM para este NCM; tarifas não encontradas (no_data)',
    );
    expect(confirmed && wordDetail(confirmed.result, 'es')).toBe(
      'el registro oficial confirmó que no hay apertura SIM para este NCM; aranceles no encontrados (no_data)',
    );
    expect(confirmed?.result.detail_messages).toEqual([
      message('verdict_notes', { tariffs_reason: 'no_data', sim_none: true }),
    ]);
    expect(confirmed?.detail).toBe('no SIM opening');
  });

  it('adds the note to a reused row, whose detail names the earlier verdict', () => {
    // Prepare
    const reused = verifyingResult({
      status: 'reused',
      cost_usd: '0.00',
      ...detailOf([message('reused', { date: '2026-11-20', batch: 'nightly-abc' })]),
    });

    // Act
    const confirmed = confirmedResult(reused, { kind: 'none' }, undefined);

    // Assess
    expect(confirmed?.result.detail_messages?.map((said) => said.code)).toEqual(['reused', 'verdict_notes']);
    expect(confirmed?.result.status).toBe('reused');
  });

  it('changes nothing on a row that already shows a confirmation: the sweep run again', () => {
    const once = confirmedResult(verifyingResult(), { kind: 'none' }, 80);
    expect(once && showsSimConfirmed(once.result)).toBe(true);
    expect(
      once && confirmedResult(once.result, { kind: 'one', opening: opening('8413919010') }, 80),
    ).toBeNull();
    const coded = confirmedResult(verifyingResult(), { kind: 'one', opening: opening('8413919010') }, 80);
    expect(coded && confirmedResult(coded.result, { kind: 'none' }, 80)).toBeNull();
  });
});
