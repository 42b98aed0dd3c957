/** The places of exposure order: the queued leaders' ranks among themselves, without a gap. */
import { describe, expect, it } from 'vitest';
import { densePlaces } from '../../../../shared/pipeline/prepare/first-places.js';

describe('densePlaces', () => {
  it('numbers the queued leaders’ ranks 1, 2, 3… in their order, whatever the gaps between them', () => {
    // Ranks 2, 5, 9 and 40: products ranked 1, 3, 4… were reused or joined, not queued.
    const placeOf = densePlaces([40, 5, 2, 9]);
    expect([2, 5, 9, 40].map(placeOf)).toEqual([1, 2, 3, 4]);
    expect([1, 7, 41, undefined].map(placeOf)).toEqual([undefined, undefined, undefined, undefined]);
  });
});
