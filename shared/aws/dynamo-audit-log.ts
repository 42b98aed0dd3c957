/**
 * A batch's audit log (`AuditLog` port) in the batch table, beside its rows: one item per event,
 * `pk` = `batch#<batch-id>`, `sk` = `audit#<auditEventKey>` (time, row, kind), so a Query in key
 * order reads the events as they happened and the same event recorded twice is one item.
 */
import { QueryCommand } from '@aws-sdk/lib-dynamodb';
import { AuditEvent, auditEventKey } from '../pipeline/core/audit-records.js';
import type { AuditLog } from '../pipeline/core/ports.js';
import { batchPk } from './dynamo-batch-store.js';
import { type DynamoAdapterConfig, documentClient, putAll, withoutKeys } from './dynamo-items.js';

const AUDIT_SK_PREFIX = 'audit#';

export const createDynamoAuditLog = (config: DynamoAdapterConfig): AuditLog => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;

  const record: AuditLog['record'] = (events) =>
    putAll(
      doc,
      TableName,
      `audit events into ${TableName}`,
      events.map((event) => {
        const parsed = AuditEvent.parse(event);
        return { ...parsed, pk: batchPk(parsed.batch_id), sk: `${AUDIT_SK_PREFIX}${auditEventKey(parsed)}` };
      }),
      (item) => `${item.pk} ${item.sk}`,
      config.sleep,
    );

  const page: AuditLog['page'] = async (batchId, from) => {
    const { Items = [] } = await doc.send(
      new QueryCommand({
        TableName,
        KeyConditionExpression: 'pk = :pk AND sk BETWEEN :from AND :to',
        ExpressionAttributeValues: {
          ':pk': batchPk(batchId),
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
