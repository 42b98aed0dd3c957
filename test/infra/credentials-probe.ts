/**
 * A handler for bundle-credentials.test.ts: resolves the credentials a DynamoDB client of the
 * bundles signs with, and gives their access key id.
 */
import { createDynamoClient } from '../../shared/aws/clients.js';

export const handler = async (): Promise<{ accessKeyId: string }> => {
  const credentials = await createDynamoClient({ AWS_REGION: 'sa-east-1' }).config.credentials();
  return { accessKeyId: credentials.accessKeyId };
};
