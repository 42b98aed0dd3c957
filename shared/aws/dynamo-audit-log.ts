/**
 * A batch's audit log (`AuditLog` port) in the batch table, beside its rows: one item per event,
 * `pk` = `batch#<batch-id>`, `sk` = `audit#<auditEventKey>` (time, row, kind), so a Query in key
 * order reads the events as they happened and the same event recorded twice is one item.
 *
 * An event recorded late (`RECORDED_LATE_AFTER_MS` after its time) is also put on the batch's late
 * list: a marker item `auditlate#<recorded at>#<event key>`, put first, then the event's own item,
 * only if the log does not hold it already, naming that marker (`late`). A marker is pending until
 * audit.csv holds its event (`settleLate` marks the event `late_written` and deletes the marker):
 * pending means present, not "recorded after some time", so no marker recorded while a write reads
 * the list is passed over. A second marker for one event (a step retried) is dropped when read.
 */
import { DeleteCommand, GetCommand, PutCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import {
  AuditEvent,
  auditEventKey,
  eventKeyOfMarker,
  type LateEvent,
  type LoggedEvent,
  RECORDED_LATE_AFTER_MS,
} from '../pipeline/core/audit-records.js';
import { forEachLimited, mapLimited } from '../pipeline/core/calls-in-parallel.js';
import type { AuditLog } from '../pipeline/core/ports.js';
import { batchPk } from './dynamo-batch-store.js';
import {
  type DynamoAdapterConfig,
  documentClient,
  isConditionFailure,
  putAll,
  withoutKeys,
} from './dynamo-items.js';

const AUDIT_SK_PREFIX = 'audit#';
const LATE_SK_PREFIX = 'auditlate#';
/** What an event's item holds besides the event: the marker it was recorded late under, and whether that was written. */
const LATE_FIELDS = ['late', 'late_written'] as const;

type Table = { doc: ReturnType<typeof documentClient>; TableName: string };

const eventSk = (key: string) => `${AUDIT_SK_PREFIX}${key}`;

/** The event's item, put only if the log does not hold the event yet, naming its marker; false when it did. */
const putLateEvent = async (
  { doc, TableName }: Table,
  event: AuditEvent,
  marker: string,
): Promise<boolean> => {
  try {
    await doc.send(
      new PutCommand({
        TableName,
        Item: { ...event, pk: batchPk(event.batch_id), sk: eventSk(auditEventKey(event)), late: marker },
        ConditionExpression: 'attribute_not_exists(sk)',
      }),
    );
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
};

/** An event recorded late: its marker on the late list first, then the event's item if the log lacks it. */
const recordLate = async (table: Table, event: AuditEvent, recordedAt: Date): Promise<void> => {
  const marker = `${recordedAt.toISOString()}#${auditEventKey(event)}`;
  // The marker first: a step that stops between the two puts leaves a marker the next write
  // completes (`pendingLate`), never an event nobody will list.
  await table.doc.send(
    new PutCommand({
      TableName: table.TableName,
      Item: { ...event, pk: batchPk(event.batch_id), sk: `${LATE_SK_PREFIX}${marker}`, marker },
    }),
  );
  await putLateEvent(table, event, marker);
};

const dropMarker = ({ doc, TableName }: Table, batchId: string, marker: string) =>
  doc.send(new DeleteCommand({ TableName, Key: { pk: batchPk(batchId), sk: `${LATE_SK_PREFIX}${marker}` } }));

/** Whether the marker is its event's own and not yet written; a copy is dropped. */
const stillPending = async (table: Table, batchId: string, late: LateEvent): Promise<boolean> => {
  const { doc, TableName } = table;
  const Key = { pk: batchPk(batchId), sk: eventSk(eventKeyOfMarker(late.marker)) };
  let { Item } = await doc.send(new GetCommand({ TableName, Key, ConsistentRead: true }));
  // The step that put the marker stopped before the event's item (or is putting it now).
  if (!Item && (await putLateEvent(table, late.event, late.marker))) return true;
  Item ??= (await doc.send(new GetCommand({ TableName, Key, ConsistentRead: true }))).Item;
  if (Item?.late === late.marker && Item.late_written !== true) return true;
  await dropMarker(table, batchId, late.marker);
  return false;
};

/** The batch's pending late events, oldest recorded first, at most `limit`, each its event's own. */
const pendingLateEvents = async (table: Table, batchId: string, limit: number): Promise<LateEvent[]> => {
  const pending: LateEvent[] = [];
  let ExclusiveStartKey: Record<string, unknown> | undefined;
  do {
    const found = await table.doc.send(
      new QueryCommand({
        TableName: table.TableName,
        KeyConditionExpression: 'pk = :pk AND begins_with(sk, :late)',
        ExpressionAttributeValues: { ':pk': batchPk(batchId), ':late': LATE_SK_PREFIX },
        ConsistentRead: true,
        Limit: limit,
        ExclusiveStartKey,
      }),
    );
    const markers = (found.Items ?? []).map((item) => ({
      marker: String(item.marker),
      event: AuditEvent.parse(withoutKeys(item, ['pk', 'sk', 'marker'])),
    }));
    const kept = await mapLimited(markers, 16, async (late) =>
      (await stillPending(table, batchId, late)) ? late : null,
    );
    for (const late of kept) if (late && pending.length < limit) pending.push(late);
    ExclusiveStartKey = found.LastEvaluatedKey;
  } while (ExclusiveStartKey && pending.length < limit);
  return pending;
};

/** Each late event written: marked so on its item (if the marker is still its own), its marker deleted. */
const settleLateEvents = (table: Table, batchId: string, markers: readonly string[]) =>
  forEachLimited(markers, 8, async (marker) => {
    await table.doc
      .send(
        new UpdateCommand({
          TableName: table.TableName,
          Key: { pk: batchPk(batchId), sk: eventSk(eventKeyOfMarker(marker)) },
          UpdateExpression: 'SET late_written = :yes',
          ConditionExpression: 'late = :marker',
          ExpressionAttributeValues: { ':yes': true, ':marker': marker },
        }),
      )
      .catch((error: unknown) => {
        if (!isConditionFailure(error)) throw error;
      });
    await dropMarker(table, batchId, marker);
  });

export const createDynamoAuditLog = (config: DynamoAdapterConfig & { now?: () => Date }): AuditLog => {
  const table: Table = { doc: documentClient(config.client), TableName: config.tableName };
  const { doc, TableName } = table;
  const now = config.now ?? (() => new Date());

  const record: AuditLog['record'] = async (events) => {
    const parsed = events.map((event) => AuditEvent.parse(event));
    const lateBefore = now().getTime() - RECORDED_LATE_AFTER_MS;
    const isLate = (event: AuditEvent) => Date.parse(event.at) < lateBefore;
    await putAll(
      doc,
      TableName,
      `audit events into ${TableName}`,
      parsed
        .filter((event) => !isLate(event))
        .map((event) => ({ ...event, pk: batchPk(event.batch_id), sk: eventSk(auditEventKey(event)) })),
      (item) => `${item.pk} ${item.sk}`,
      config.sleep,
    );
    await forEachLimited(parsed.filter(isLate), 8, (event) => recordLate(table, event, now()));
  };

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
    return Items.map((item): LoggedEvent => {
      const event = AuditEvent.parse(withoutKeys(item, ['pk', 'sk', ...LATE_FIELDS]));
      return typeof item.late === 'string' ? { ...event, late: true } : event;
    });
  };

  return {
    record,
    page,
    pendingLate: (batchId, limit) => pendingLateEvents(table, batchId, limit),
    settleLate: (batchId, markers) => settleLateEvents(table, batchId, markers),
  };
};
