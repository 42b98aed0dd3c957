import type { Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import type { NodejsFunction } from 'aws-cdk-lib/aws-lambda-nodejs';
import type { LogGroup } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { ENV, type EnvName } from '../functions/catalogue.js';
import {
  CONSOLE_FUNCTIONS,
  type ConsolePortName,
  type ConsolePortUses,
  consoleEnvironmentOf,
} from '../functions/console-catalogue.js';
import { CONSOLE_HANDLER_NAMES, type ConsoleHandlerName } from '../shared/console/api.js';
import type { PipelineConfig } from './config.js';
import { grantObjects, grantTable } from './function-reach.js';
import type { PipelineData } from './pipeline-data.js';
import { buildAppFunction } from './pipeline-functions.js';
import { BATCHES_BY_START_INDEX } from './stateful-stack.js';

export type ConsoleFunctionsProps = { config: PipelineConfig; data: PipelineData };

export class ConsoleFunctions extends Construct {
  readonly functions: Readonly<Record<ConsoleHandlerName, NodejsFunction>>;
  readonly logGroups: Readonly<Record<ConsoleHandlerName, LogGroup>>;

  constructor(scope: Stack, id: string, props: ConsoleFunctionsProps) {
    super(scope, id);
    const functions = {} as Record<ConsoleHandlerName, NodejsFunction>;
    const logGroups = {} as Record<ConsoleHandlerName, LogGroup>;
    const values = environmentValues(props);
    for (const name of CONSOLE_HANDLER_NAMES) {
      const { fn, logGroup } = buildAppFunction(this, name, CONSOLE_FUNCTIONS[name], props.config);
      for (const variable of consoleEnvironmentOf(name, {
        capOverride: props.config.capOverride !== undefined,
      })) {
        const value = values[variable];
        if (value === undefined) throw new Error(`${name}: no value for ${variable}`);
        fn.addEnvironment(variable, value);
      }
      grantConsoleReach(scope, props.data, fn, CONSOLE_FUNCTIONS[name].ports);
      functions[name] = fn;
      logGroups[name] = logGroup;
    }
    this.functions = functions;
    this.logGroups = logGroups;
  }
}

/** The values the pipeline stack gives the same variables (function-reach.ts, environmentValues). */
const environmentValues = ({ data, config }: ConsoleFunctionsProps): Partial<Record<EnvName, string>> => ({
  [ENV.bucketName]: data.bucket.bucketName,
  [ENV.batchTable]: data.batchTable.tableName,
  [ENV.reviewTable]: data.reviewTable.tableName,
  [ENV.leaseTable]: data.leaseTable.tableName,
  [ENV.leaseScope]: config.leaseScope,
  ...(config.capOverride !== undefined ? { [ENV.capOverride]: String(config.capOverride) } : {}),
});

/**
 * One grant per port, read-only for the tables. `links` adds nothing: a presigned request can do
 * what the role's object grants allow, no more. The batch table's by-start index gets its own
 * statement, on that index only: declaring the index on the imported table would grant index/*.
 */
const grantConsoleReach = (scope: Stack, data: PipelineData, fn: NodejsFunction, ports: ConsolePortUses) => {
  const grants: { [P in ConsolePortName]-?: (use: NonNullable<ConsolePortUses[P]>) => void } = {
    clock: () => undefined,
    batches: ({ operations, listByStart }) => {
      grantTable(scope, data, data.batchTable, fn, operations, 'Batches');
      if (!listByStart) return;
      fn.addToRolePolicy(
        new PolicyStatement({
          sid: 'BatchesByStart',
          actions: ['dynamodb:Query'],
          resources: [`${data.batchTable.tableArn}/index/${BATCHES_BY_START_INDEX}`],
        }),
      );
    },
    reviews: (use) => grantTable(scope, data, data.reviewTable, fn, use, 'Reviews'),
    checks: (use) => grantTable(scope, data, data.reviewTable, fn, use, 'Checks'),
    audit: (use) => grantTable(scope, data, data.batchTable, fn, use, 'Audit'),
    writers: (use) => grantTable(scope, data, data.reviewTable, fn, use, 'Writers'),
    leases: (use) => grantTable(scope, data, data.leaseTable, fn, use, 'Leases'),
    objects: (use) => grantObjects(scope, data, fn, use),
    links: () => undefined,
  };
  for (const [port, use] of Object.entries(ports)) {
    (grants[port as ConsolePortName] as (use: unknown) => void)(use);
  }
};
