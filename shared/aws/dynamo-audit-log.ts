/**
 * A batch's audit log (`AuditLog` port) in the batch table, beside its rows: one item per event,
 * `pk` = `batch#<batch-id>`, `sk` = `audit#<auditEventKey>` (time, row, kind), so a Query in key
 * order reads the events as they happened and the same event recorded twice is one item.
 */
import { BatchWriteCommand, type BatchWriteCommandInput, QueryCommand } from '@aws-sdk/lib-dynamodb';
import { chunksOf, forEachLimited } from '../pipeline/core/calls-in-parallel.js';
import type { AuditLog } from '../pipeline/core/index.js';
import { AuditEvent, auditEventKey } from '../pipeline/core/index.js';
import { type DynamoAdapterConfig, documentClient, retryUnprocessed, withoutKeys } from './dynamo-items.js';

type WriteRequest = NonNullable<BatchWriteCommandInput['RequestItems']>[string][number];

const AUDIT_SK_PREFIX = 'audit#';
const pkOf = (batchId: string) => `batch#${batchId}`;

export const createDynamoAuditLog = (config: DynamoAdapterConfig): AuditLog => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;

  const record: AuditLog['record'] = async (events) => {
    // One request per key: BatchWriteItem refuses a call naming the same item twice.
    const byKey = new Map<string, WriteRequest>();
    for (const event of events) {
      const parsed = AuditEvent.parse(event);
      const Item = { ...parsed, pk: pkOf(parsed.batch_id), sk: `${AUDIT_SK_PREFIX}${auditEventKey(parsed)}` };
      byKey.set(`${Item.pk} ${Item.sk}`, { PutRequest: { Item } });
    }
    await forEachLimited(chunksOf([...byKey.values()], 25), 4, (chunk) =>
      retryUnprocessed(
        `audit events into ${TableName}`,
        chunk,
        async (requests) => {
          const { UnprocessedItems } = await doc.send(
            new BatchWriteCommand({ RequestItems: { [TableName]: requests } }),
          );
          const left = UnprocessedItems?.[TableName] ?? [];
          return { leftover: left.length > 0 ? left : null, count: left.length };
        },
        config.sleep,
      ),
    );
  };

  const page: AuditLog['page'] = async (batchId, from) => {
    const { Items = [] } = await doc.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': pkOf(batchId),
          // `#` sorts before every digit: past `after` itself, up to the end of the audit keys.
          ':from': `${AUDIT_SK_PREFIX}${from.after === null ? '' : `${from.after}~`}`,
          ':to': `${AUDIT_SK_PREFIX}~`,
        },
        ScanIndexForward: true,
        ConsistentRead: true,
        Limit: from.limit,
      }),
    );
    return Items.map((item) => AuditEvent.parse(withoutKeys(item, ['pk', 'sk'])));
  };

  return { record, page };
};
