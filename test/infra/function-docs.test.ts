import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeFunction, ENV, environmentOf } from '../../functions/catalogue.js';
import { README_PATH, renderFunctionTables, tablesIn } from '../../infra/function-docs.js';
import { HANDLER_NAMES, type HandlerName } from '../../shared/contract.js';
import { type CfnTemplate, functionLogicalIds, synthesize } from './synth.js';

const fromRoot = (path: string) => fileURLToPath(new URL(`../../${path}`, import.meta.url));

describe('functions/README.md', () => {
  it('has the tables the functions’ descriptions give (npm run docs:functions writes them)', () => {
    const { text } = tablesIn(readFileSync(README_PATH, 'utf8'));
    expect(text).toBe(renderFunctionTables());
  });
});

describe('functions/catalogue.ts', () => {
  let json: CfnTemplate;
  let functionIds: Record<HandlerName, string>;

  beforeAll(() => {
    json = synthesize().pipelineJson;
    functionIds = functionLogicalIds(json);
  });

  it('names a handler that exists for every function', () => {
    for (const name of HANDLER_NAMES) {
      expect(existsSync(fromRoot(describeFunction(name).entry)), name).toBe(true);
    }
  });

  it('is what the stack deploys: each environment, in order, as the description gives it', () => {
    for (const name of HANDLER_NAMES) {
      const variables = json.Resources[functionIds[name]]?.Properties?.Environment as {
        Variables: Record<string, unknown>;
      };
      // The test context sets capOverride and batchTimeoutHours: dispatch-rows gets CAP_OVERRIDE,
      // prepare-batch both.
      expect(Object.keys(variables.Variables), name).toEqual([
        ENV.serviceName,
        ENV.nodeOptions,
        ...environmentOf(name, {
          capOverride: true,
          batchTimeoutHours: true,
          auditLockDays: true,
          questionReminderDay: true,
        }),
      ]);
    }
  });

  it('imports no CDK and no SDK: every handler bundle carries it', () => {
    const source = readFileSync(fromRoot('functions/catalogue.ts'), 'utf8');
    const imports = [...source.matchAll(/^import .* from '([^']+)';$/gm)].map((match) => match[1]);
    // Names only: the handler names, and the bucket's prefixes its grants are written in.
    expect(imports.sort()).toEqual(['../shared/contract.js', '../shared/pipeline/core/bucket-layout.js']);
  });
});
