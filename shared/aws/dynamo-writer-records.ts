/**
 * Who wrote an object into `answers/` or `inbox/` (`WriterRecords` port, core/people.ts), kept in
 * the review table beside the questions and the checks: one item per way the record can be found,
 * keyed `writer#e:<etag>#<key>` and `writer#v:<version>#<key>` in the table's `classification_id`.
 * The console knows the ETag its write returned (and, on AWS, the version); S3's CloudTrail record
 * knows the version; the local S3 keeps no versions, so its records go by ETag.
 *
 * The items carry no `state` and no `batch_id`: the review store's Scan for `pending` questions and
 * the `by-batch` index never see them.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { WriterRecord, type WrittenObject } from '../pipeline/core/people.js';
import type { WriterRecords } from '../pipeline/core/ports.js';
import { type DynamoAdapterConfig, documentClient, withoutUndefined } from './dynamo-items.js';

/** The value of `kind` on a writer item. */
const WRITER_ITEM_KIND = 'writer';

/** The item ids an object version is found by: its ETag, its version, each when known. */
const writerIds = (object: WrittenObject): string[] => [
  ...(object.etag ? [`writer#e:${object.etag}#${object.key}`] : []),
  ...(object.versionId ? [`writer#v:${object.versionId}#${object.key}`] : []),
];

export const createDynamoWriterRecords = (config: DynamoAdapterConfig): WriterRecords => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;

  const record: WriterRecords['record'] = async (writer) => {
    const parsed = WriterRecord.parse(writer);
    const ids = writerIds({ key: parsed.key, etag: parsed.etag, versionId: parsed.version_id });
    await Promise.all(
      ids.map((classification_id) =>
        doc.send(
          new PutCommand({
            TableName,
            Item: withoutUndefined({ ...parsed, classification_id, kind: WRITER_ITEM_KIND }),
          }),
        ),
      ),
    );
  };

  const find: WriterRecords['find'] = async (object) => {
    // Two reads at most (by ETag, by version), consistent: the record may have been put a moment ago.
    const found = await Promise.all(
      writerIds(object).map((classification_id) =>
        doc.send(new GetCommand({ TableName, Key: { classification_id }, ConsistentRead: true })),
      ),
    );
    return found.flatMap(({ Item }) => {
      if (!Item) return [];
      const { classification_id: _id, kind: _kind, ...item } = Item;
      return [WriterRecord.parse(item)];
    });
  };

  return { record, find };
};
