/**
 * Least privilege, measured: every grant of every function's role was used by some local run of
 * the suite (the permission checks record each statement and action that allowed a call), or its
 * function's words (functions/catalogue-words.ts) say why it is kept: a path no test reaches needs it. Runs after the
 * rest of the suite (vitest.config.ts), on what that run recorded in `.grant-usage/`.
 */
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { functionWords } from '../../functions/catalogue-words.js';
import { describeConsoleFunction } from '../../functions/console-catalogue.js';
import {
  GRANT_USAGE_DIR,
  type Grant,
  readUsageFolder,
  unusedGrants,
} from '../../local/runtime/permissions/grant-usage.js';
import { CONSOLE_HANDLER_NAMES, type ConsoleHandlerName } from '../../shared/console/api.js';
import { HANDLER_NAMES, type HandlerName } from '../../shared/contract.js';

/** Lambda's runtime, not the handler, writes the function's logs with its role. */
const LOG_DELIVERY = /^logs:(CreateLogStream|PutLogEvents)$/;

const keptOf = (name: string): Readonly<Record<string, string>> =>
  (CONSOLE_HANDLER_NAMES as readonly string[]).includes(name)
    ? (describeConsoleFunction(name as ConsoleHandlerName).kept ?? {})
    : (functionWords(name as HandlerName).kept ?? {});

/** A statement's Sid names its port and what for (`ObjectsWriteOutbox`): the catalogue's `kept` keys. */
const keyOf = (grant: Grant) => `${grant.sid ?? '(no Sid)'} ${grant.actionPattern}`;

describe('grants the suite used', () => {
  it('every grant of every role was used by a run, or its catalogue entry says why it is kept', () => {
    // Prepare: what the suite's local runs recorded.
    expect(
      existsSync(GRANT_USAGE_DIR),
      `no grant usage in ${GRANT_USAGE_DIR}/: run the whole suite (npm test)`,
    ).toBe(true);
    const { runs, grants, used } = readUsageFolder(GRANT_USAGE_DIR);
    expect(runs).toBeGreaterThan(0);

    // Act
    const unexplained = unusedGrants(grants, used)
      .filter((grant) => !LOG_DELIVERY.test(grant.actionPattern))
      .filter((grant) => keptOf(grant.function)[keyOf(grant)] === undefined)
      .map((grant) => `${grant.function}: ${keyOf(grant)} on ${grant.resources.join(', ')}`);

    // Assess
    expect(unexplained).toEqual([]);
  });

  it('every reason to keep a grant names a grant the role holds', () => {
    const { grants } = readUsageFolder(GRANT_USAGE_DIR);
    const held = new Set(grants.map((grant) => `${grant.function} ${keyOf(grant)}`));
    const reasons = [...HANDLER_NAMES, ...CONSOLE_HANDLER_NAMES].flatMap((name) =>
      Object.keys(keptOf(name)).map((key) => `${name} ${key}`),
    );
    expect(reasons.filter((reason) => !held.has(reason))).toEqual([]);
  });
});
