/**
 * Deterministic "randomness": every choice is a slice of sha256(seed, input, label), so the
 * same seed and input always give the same verdict, and changing the seed varies it.
 */
import { createHash } from 'node:crypto';

export type Chooser = {
  /** An integer in [min, max], fixed by the seed, the input and `label`. */
  int(label: string, min: number, max: number): number;
  /** True with probability `chance`. */
  chance(label: string, chance: number): boolean;
};

export const chooser = (seed: string, input: string): Chooser => {
  const unit = (label: string): number => {
    const digest = createHash('sha256').update(`${seed}\u0000${input}\u0000${label}`).digest();
    return digest.readUInt32BE(0) / 2 ** 32;
  };
  return {
    int: (label, min, max) => min + Math.floor(unit(label) * (max - min + 1)),
    chance: (label, chance) => unit(label) < chance,
  };
};
