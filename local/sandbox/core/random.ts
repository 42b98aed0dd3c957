/**
 * Seeded determinism for the sandbox's own choices (ids, keys, run lengths, faults). Every
 * value is a slice of sha256 over the seed and a label, so a seed fixes them all and no
 * choice depends on the order other choices were made in — except the fault stream, which
 * is a sequence by nature and is drawn from a seeded PRNG.
 */
import { createHash } from 'node:crypto';
import { ID_ALPHABET } from '../../../shared/tcs/schemas.js';

const digestOf = (parts: readonly (string | number)[]): Buffer =>
  createHash('sha256').update(parts.join('\u0000')).digest();

/** A number in [0, 1) fixed by `parts`. */
export const hashUnit = (...parts: (string | number)[]): number => digestOf(parts).readUInt32BE(0) / 2 ** 32;

/** Hex digest of `parts`, `length` characters long (at most 64). */
export const hashHex = (length: number, ...parts: (string | number)[]): string =>
  digestOf(parts).toString('hex').slice(0, length);

/** `prefix` followed by 12 characters of the public-id alphabet, fixed by `parts`. */
export const publicId = (prefix: 'cls_' | 'upl_', ...parts: (string | number)[]): string => {
  const digest = digestOf(parts);
  let out = prefix;
  for (let i = 0; i < 12; i++) out += ID_ALPHABET[digest[i]! % ID_ALPHABET.length];
  return out;
};

/** sfc32 seeded from sha256(seed): a small, fast, reproducible stream of numbers in [0, 1). */
export const seededStream = (seed: string): (() => number) => {
  const digest = createHash('sha256').update(seed).digest();
  let a = digest.readUInt32BE(0);
  let b = digest.readUInt32BE(4);
  let c = digest.readUInt32BE(8);
  let d = digest.readUInt32BE(12);
  return () => {
    a |= 0;
    b |= 0;
    c |= 0;
    d |= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 2 ** 32;
  };
};
