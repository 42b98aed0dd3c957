/**
 * Each run of the suite starts the grant usage record afresh: every local pipeline a test starts
 * adds the grants its functions used (local/runtime/permissions/grant-usage.ts) to this folder,
 * and `npm run grants` reports, per role, the grants no run used.
 */
import { rmSync } from 'node:fs';
import { GRANT_USAGE_DIR } from '../local/runtime/permissions/grant-usage.js';

export default function clearGrantUsage(): void {
  rmSync(GRANT_USAGE_DIR, { recursive: true, force: true });
}
