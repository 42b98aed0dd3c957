/**
 * dynalite, the DynamoDB stand-in, in-process on loopback: tests talk to it with the real
 * AWS SDK over the real wire protocol. The table makers below use only CreateTable and
 * DescribeTable, so they serve DynamoDB Local (dynamodb-local.ts) too.
 */
import type { AddressInfo } from 'node:net';
import { CreateTableCommand, DynamoDBClient } from '@aws-sdk/client-dynamodb';
// @ts-expect-error dynalite ships no type declarations
import dynalite from 'dynalite';
import { waitForActiveTable } from '../../local/runtime/stand-ins.js';

export type LocalDynamo = { client: DynamoDBClient; endpoint: string; close(): Promise<void> };

export const startLocalDynamo = async (): Promise<LocalDynamo> => {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = new DynamoDBClient({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  });
  return {
    client,
    endpoint,
    close: async () => {
      client.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
};

/** A table with a string partition key `pk` (and optional sort key `sk`). */
export const createTable = async (client: DynamoDBClient, name: string, withSortKey = false) => {
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [
        { AttributeName: 'pk', AttributeType: 'S' },
        ...(withSortKey ? [{ AttributeName: 'sk', AttributeType: 'S' as const }] : []),
      ],
      KeySchema: [
        { AttributeName: 'pk', KeyType: 'HASH' },
        ...(withSortKey ? [{ AttributeName: 'sk', KeyType: 'RANGE' as const }] : []),
      ],
    }),
  );
  await waitForActiveTable(client, name);
};

export type KeyAttribute = { name: string; type: 'S' | 'N' };

/**
 * A table with any key schema and global secondary indexes (all attributes projected):
 * the review table (`classification_id`, GSI `by-batch` on `batch_id` + `row`), the cache.
 */
export const createTableWithKeys = async (
  client: DynamoDBClient,
  name: string,
  schema: {
    partitionKey: KeyAttribute;
    sortKey?: KeyAttribute;
    indexes?: {
      name: string;
      partitionKey: KeyAttribute;
      sortKey?: KeyAttribute;
      /** The attributes the index projects beside the keys; absent: all of them. */
      include?: readonly string[];
    }[];
  },
) => {
  const keyOf = (partitionKey: KeyAttribute, sortKey?: KeyAttribute) => [
    { AttributeName: partitionKey.name, KeyType: 'HASH' as const },
    ...(sortKey ? [{ AttributeName: sortKey.name, KeyType: 'RANGE' as const }] : []),
  ];
  const attributes = new Map<string, 'S' | 'N'>();
  for (const attribute of [
    schema.partitionKey,
    schema.sortKey,
    ...(schema.indexes ?? []).flatMap((index) => [index.partitionKey, index.sortKey]),
  ])
    if (attribute) attributes.set(attribute.name, attribute.type);
  await client.send(
    new CreateTableCommand({
      TableName: name,
      BillingMode: 'PAY_PER_REQUEST',
      AttributeDefinitions: [...attributes].map(([AttributeName, AttributeType]) => ({
        AttributeName,
        AttributeType,
      })),
      KeySchema: keyOf(schema.partitionKey, schema.sortKey),
      GlobalSecondaryIndexes: schema.indexes?.map((index) => ({
        IndexName: index.name,
        KeySchema: keyOf(index.partitionKey, index.sortKey),
        Projection: index.include
          ? { ProjectionType: 'INCLUDE' as const, NonKeyAttributes: [...index.include] }
          : { ProjectionType: 'ALL' as const },
      })),
    }),
  );
  await waitForActiveTable(client, name);
};

/** The review table as the stack makes it: `classification_id`, and its index of a batch's items in row order. */
export const REVIEW_TABLE_KEYS = {
  partitionKey: { name: 'classification_id', type: 'S' },
  indexes: [
    {
      name: 'by-batch',
      partitionKey: { name: 'batch_id', type: 'S' },
      sortKey: { name: 'row', type: 'N' },
    },
  ],
} as const satisfies Parameters<typeof createTableWithKeys>[2];

/** The batch table as the stack makes it: `pk`, `sk`, its index of batches by start and of rows in send order. */
export const BATCH_TABLE_KEYS = {
  partitionKey: { name: 'pk', type: 'S' },
  sortKey: { name: 'sk', type: 'S' },
  indexes: [
    {
      name: 'by-start',
      partitionKey: { name: 'listed', type: 'S' },
      sortKey: { name: 'started_at', type: 'S' },
    },
    {
      name: 'by-send-order',
      partitionKey: { name: 'pk', type: 'S' },
      sortKey: { name: 'send_order', type: 'N' },
      include: ['row', 'status', 'round', 'attempt', 'dispatch'],
    },
  ],
} as const satisfies Parameters<typeof createTableWithKeys>[2];
