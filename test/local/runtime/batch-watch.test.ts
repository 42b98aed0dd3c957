/** How often the local runtime looks at a batch it waits for: each look lists every row. */
import { describe, expect, it } from 'vitest';
import { lookAgainAfterMs } from '../../../local/runtime/batch-watch.js';

describe('lookAgainAfterMs', () => {
  it('waits the shortest wait for a small batch and a millisecond per row for a large one', () => {
    expect(lookAgainAfterMs(500, 30)).toBe(500);
    expect(lookAgainAfterMs(1_000, 2_000)).toBe(2_000);
    expect(lookAgainAfterMs(500, 400_000)).toBe(400_000);
  });
});
