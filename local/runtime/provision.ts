/**
 * The template's stateful resources, created in the stand-ins: its tables in dynalite (or an
 * earlier run's checked against it), its queues in local/aws, and the API key under the secret
 * the functions read it from.
 */
import type { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { ENV } from '../../functions/catalogue.js';
import type { LocalAws } from '../aws/local-aws.js';
import { type LocalResources, queuesInCreationOrder } from './resources.js';
import { ensureTables } from './stand-ins.js';

/** The variable naming the API key's secret (shared/pipeline/README.md, "Environment of the handlers"). */

export const createTemplateResources = async (deps: {
  dynamo: DynamoDBClient;
  localAws: LocalAws;
  resources: LocalResources;
  apiKey: string;
}): Promise<void> => {
  const { localAws, resources } = deps;
  await ensureTables(deps.dynamo, resources.tables);
  for (const queue of queuesInCreationOrder(resources.queues))
    localAws.createQueue(queue.name, queue.attributes);
  for (const topic of resources.topics) localAws.createTopic(topic);
  // The key goes where the template says the functions read it, never into an environment.
  const secretArns = new Set(
    resources.functions.flatMap((fn) => fn.environment[ENV.tcsApiKeySecretArn] ?? []),
  );
  for (const arn of secretArns) localAws.putSecret(arn, deps.apiKey);
};
