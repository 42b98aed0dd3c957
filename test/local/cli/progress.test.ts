/** `classify`'s progress line names statuses in the words and the order every reader shares. */
import { describe, expect, it } from 'vitest';
import { formatProgressLine } from '../../../local/cli/progress.js';
import type { BatchProgress } from '../../../local/runtime/progress.js';
import { countedRows, coverageShares, FinishedRows } from '../../../shared/pipeline/core/row-counts.js';
import { STATUS_WORDS } from '../../../shared/pipeline/core/row-statuses.js';

const progress = (byStatus: Record<string, number>): BatchProgress => ({
  batchId: 'products-abc',
  state: 'running',
  rowsTotal: Object.values(byStatus).reduce((sum, count) => sum + count, 0),
  rowsRead: 0,
  byStatus,
  stage: 'waiting_on_service',
  leasesHeld: 1,
  cap: 10,
  billedUsd: 4,
  covered: { rows: 0, value: null, classifications: 0 },
  startedAt: null,
  roundOf: null,
});

describe('formatProgressLine', () => {
  it('words each status as the workbooks and the console do, in their one order', () => {
    const line = formatProgressLine(
      progress({ error: 1, pending_data: 2, in_progress: 1, resolved: 3, following: 4 }),
      {
        startedAtMs: 0,
        nowMs: 0,
        live: false,
      },
    );

    expect(line).toContain('resolved 3 · in progress 1 · following 4 · needs answers 2 · error 1');
    expect(STATUS_WORDS.en.pending_data.toLowerCase()).toBe('needs answers');
    expect(line).toMatch(/^6\/11 rows · waiting on service · /);
  });

  it('says how much of the batch has a verdict after how much of its classifications', () => {
    // Prepare: 100 rows, 10 sent; the 2 that ended cover 60 rows (58 followers), 1 row reused.
    const counted = countedRows(
      {
        rows_total: 100,
        rows_dispatched: 10,
        born: { final: { reused: 1 }, following: 89, billed_cents: 0, value_cents: 0 },
      },
      FinishedRows.parse({ rows: { resolved: 2 }, followers: { resolved: 58 }, billed_cents: 400 }),
      3,
    );

    // Act
    const covered = coverageShares(counted);
    const line = formatProgressLine(
      { ...progress({ resolved: 60 }), covered },
      { startedAtMs: 0, nowMs: 0, live: false },
    );

    // Assess
    expect(covered).toEqual({ rows: 61, value: null, classifications: 20 });
    expect(line).toContain('61 % of rows with a verdict after 20 % of the classifications');
  });

  it('says the share of the value with a verdict where the file gives a value', () => {
    // Prepare: of R$ 10.000,00 in the file, the reused row carries 500,00 and the 2 resolved 6.900,00.
    const counted = countedRows(
      {
        rows_total: 100,
        rows_dispatched: 10,
        born: { final: { reused: 1 }, following: 89, billed_cents: 0, value_cents: 50_000 },
        exposure: { value_total_cents: 1_000_000 },
      },
      FinishedRows.parse({
        rows: { resolved: 2 },
        followers: { resolved: 58 },
        billed_cents: 400,
        value_cents: 690_000,
      }),
      3,
    );

    // Act
    const covered = coverageShares(counted);
    const line = formatProgressLine(
      { ...progress({ resolved: 60 }), covered },
      { startedAtMs: 0, nowMs: 0, live: false },
    );

    // Assess
    expect(covered).toEqual({ rows: 61, value: 74, classifications: 20 });
    expect(line).toContain('61 % of rows, 74 % of value, with a verdict after 20 % of the classifications');
  });

  it('counts the rows read while Prepare reads a large file, before there is a total', () => {
    const line = formatProgressLine(
      { ...progress({}), state: 'preparing', stage: 'preparing', rowsRead: 40_000 },
      { startedAtMs: 0, nowMs: 0, live: false },
    );
    expect(line).toMatch(/^40,000 rows read · preparing · /);
  });
});
