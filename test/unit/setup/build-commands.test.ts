/**
 * The commands' build is reused only for the checkout it was made in: a build names its source
 * files by absolute URL, so the same files in another folder (a checkout moved, or copied with its
 * node_modules) must build again rather than run against the first folder's data.
 */
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { inputsHash } from '../../../local/cli/build-commands.mjs';

const temp = mkdtempSync(join(tmpdir(), 'ncm-build-commands-'));
afterAll(() => rmSync(temp, { recursive: true, force: true }));

const INPUTS = ['local/cli/classify.ts', 'shared/contract.ts'];
const checkout = (name: string) => {
  const root = join(temp, name);
  mkdirSync(join(root, 'local', 'cli'), { recursive: true });
  mkdirSync(join(root, 'shared'), { recursive: true });
  writeFileSync(join(root, INPUTS[0]!), 'export const classify = 1;\n');
  writeFileSync(join(root, INPUTS[1]!), 'export const contract = 2;\n');
  return root;
};

describe("the commands' build key", () => {
  it('is the same for the same files in the same folder, and changes with a file', () => {
    const root = checkout('first');
    const before = inputsHash(root, INPUTS, '0.25.0');
    expect(inputsHash(root, [...INPUTS].reverse(), '0.25.0')).toBe(before);
    writeFileSync(join(root, INPUTS[1]!), 'export const contract = 3;\n');
    expect(inputsHash(root, INPUTS, '0.25.0')).not.toBe(before);
    expect(inputsHash(root, [...INPUTS, 'gone.ts'], '0.25.0')).toBeNull();
  });

  it('changes when the same files are in another folder', () => {
    const root = checkout('original');
    const copy = join(temp, 'copy');
    cpSync(root, copy, { recursive: true });
    expect(inputsHash(copy, INPUTS, '0.25.0')).not.toBe(inputsHash(root, INPUTS, '0.25.0'));
  });
});
