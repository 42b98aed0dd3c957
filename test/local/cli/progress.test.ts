/** `classify`'s progress line names statuses in the words and the order every reader shares. */
import { describe, expect, it } from 'vitest';
import { formatProgressLine } from '../../../local/cli/progress.js';
import type { BatchProgress } from '../../../local/runtime/progress.js';
import { STATUS_WORDS } from '../../../shared/pipeline/core/row-statuses.js';

const progress = (byStatus: Record<string, number>): BatchProgress => ({
  batchId: 'products-abc',
  state: 'running',
  rowsTotal: Object.values(byStatus).reduce((sum, count) => sum + count, 0),
  byStatus,
  stage: 'waiting_on_service',
  leasesHeld: 1,
  cap: 10,
  billedUsd: 4,
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
});
