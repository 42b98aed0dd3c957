/**
 * Who wrote an object into `answers/` or `inbox/` (`WriterRecords` port, core/people.ts), kept in
 * the review table beside the questions and the checks: one item per source and way the record can
 * be found, keyed `writer#<source>#e:<etag>#<key>` and `writer#<source>#v:<version>#<key>` in the
 * table's `classification_id` (the console's record and S3's of the same version both stand).
 * The console knows the ETag its write returned (and, on AWS, the version); S3's CloudTrail record
 * knows the version; the local S3 keeps no versions, so its records go by ETag.
 *
 * The items carry no `state` and no `batch_id`: the review store's Scan for `pending` questions and
 * the `by-batch` index never see them.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import { type KnownBy, WriterRecord, type WrittenObject } from '../pipeline/core/people.js';
import type { WriterRecords } from '../pipeline/core/ports.js';
import { type DynamoAdapterConfig, documentClient, withoutUndefined } from './dynamo-items.js';

/** The value of `kind` on a writer item. */
const WRITER_ITEM_KIND = 'writer';

/** The sources a record comes from, each kept apart: the console's record and S3's of one version both stand. */
const SOURCES = ['console', 'iam'] as const satisfies readonly KnownBy[];

/** The item ids one source's record of an object version is kept under: by its ETag, by its version, each when known. */
const writerIds = (source: KnownBy, object: WrittenObject): string[] => [
  ...(object.etag ? [`writer#${source}#e:${object.etag}#${object.key}`] : []),
  ...(object.versionId ? [`writer#${source}#v:${object.versionId}#${object.key}`] : []),
];

/** The id of the console's record of an upload form it gave for a key (no ETag or version yet). */
const uploadGrantId = (key: string): string => `writer#console#k:${key}`;

export const createDynamoWriterRecords = (config: DynamoAdapterConfig): WriterRecords => {
  const doc = documentClient(config.client);
  const TableName = config.tableName;

  const record: WriterRecords['record'] = async (writer) => {
    const parsed = WriterRecord.parse(writer);
    const named = writerIds(parsed.person.known_by, {
      key: parsed.key,
      etag: parsed.etag,
      versionId: parsed.version_id,
    });
    // The console's upload form for a key: no ETag or version is known, the key alone names it.
    const ids =
      named.length > 0 || parsed.person.known_by !== 'console' ? named : [uploadGrantId(parsed.key)];
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
    // Five reads at most (each source by ETag and by version, the console's upload form for the
    // key), consistent: a record may be a moment old.
    const found = await Promise.all(
      [...SOURCES.flatMap((source) => writerIds(source, object)), uploadGrantId(object.key)].map(
        (classification_id) =>
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
