/**
 * Where the tests keep synthesized assemblies between runs (local/runtime/assembly.ts caches by a
 * hash of the code): a folder per checkout, since the cache keeps only the newest few assemblies
 * and two checkouts tested side by side would otherwise delete each other's while they run.
 */
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CHECKOUT = fileURLToPath(new URL('../..', import.meta.url));

/** The assembly cache folder of `kind` ('e2e', 'workflow') for this checkout. */
export const assemblyCacheDir = (kind: string): string =>
  join(
    tmpdir(),
    `ncm-batch-classifier-${kind}`,
    createHash('sha256').update(CHECKOUT).digest('hex').slice(0, 12),
    'cdk.out',
  );
