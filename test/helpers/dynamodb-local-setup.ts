/**
 * One DynamoDB Local for every contract suite of a run: a JVM takes seconds of CPU to start and
 * more to warm up, and six suites each started their own. The suites reach it through
 * `startDynamoDbLocal` (dynamodb-local.ts), each with an access key, and so a database, of its own.
 */
import type { TestProject } from 'vitest/node';
import { startDynamoDbLocalServer } from './dynamodb-local.js';

export default async function startSharedDynamoDbLocal(project: TestProject): Promise<() => Promise<void>> {
  const server = await startDynamoDbLocalServer();
  project.provide('dynamoDbLocalEndpoint', server.endpoint);
  return () => server.stop();
}
