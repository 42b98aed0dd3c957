/**
 * `npm run grants`: the grants of the functions' roles that no local run used, role by role,
 * from the usage the last `npm test` recorded (`.grant-usage/`). Each is either a grant to take
 * out of infra/ or one a path the tests do not reach needs.
 */
import { existsSync } from 'node:fs';
import { GRANT_USAGE_DIR, readUsageFolder, unusedGrants } from '../runtime/permissions/grant-usage.js';

const main = (): number => {
  if (!existsSync(GRANT_USAGE_DIR)) {
    console.error(`No grant usage recorded in ${GRANT_USAGE_DIR}/: run npm test first.`);
    return 1;
  }
  const { runs, grants, used } = readUsageFolder(GRANT_USAGE_DIR);
  const unused = unusedGrants(grants, used);
  console.log(
    `${runs} local pipeline runs; ${grants.length} grants (role, statement, action); ${grants.length - unused.length} used, ${unused.length} never used.`,
  );
  const byFunction = new Map<string, typeof unused>();
  for (const grant of unused)
    byFunction.set(grant.function, [...(byFunction.get(grant.function) ?? []), grant]);
  for (const [name, list] of [...byFunction].sort(([a], [b]) => a.localeCompare(b))) {
    console.log(`\n${name}:`);
    for (const grant of list)
      console.log(
        `  ${grant.actionPattern.padEnd(34)} ${grant.resources.join(', ')}  (${grant.policy} #${grant.statement})`,
      );
  }
  return 0;
};

process.exitCode = main();
