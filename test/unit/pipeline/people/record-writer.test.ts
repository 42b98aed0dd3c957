import { describe, expect, it } from 'vitest';
import { cliPerson, personOfPrincipal, writerOf } from '../../../../shared/pipeline/core/people.js';
import { batchSender } from '../../../../shared/pipeline/people/batch-sender.js';
import { recordWriter } from '../../../../shared/pipeline/people/record-writer.js';
import { memoryWriterRecords } from '../../../helpers/memory-ports.js';

/** CloudTrail's data event of a PutObject, as EventBridge delivers it ("AWS API Call via CloudTrail"). */
const cloudTrailPut = (detail: Record<string, unknown> = {}) => ({
  version: '0',
  'detail-type': 'AWS API Call via CloudTrail',
  source: 'aws.s3',
  time: '2026-12-03T10:00:02Z',
  detail: {
    eventSource: 's3.amazonaws.com',
    eventName: 'PutObject',
    eventTime: '2026-12-03T10:00:01Z',
    userIdentity: {
      type: 'AssumedRole',
      principalId: 'AROAEXAMPLE:jose@acme',
      arn: 'arn:aws:sts::111122223333:assumed-role/Operations/jose@acme',
    },
    requestParameters: {
      bucketName: 'bucket',
      key: 'answers/lote-1/decisoes.csv',
      Host: 'bucket.s3.amazonaws.com',
    },
    responseElements: { 'x-amz-version-id': 'v-3', 'x-amz-server-side-encryption': 'AES256' },
    ...detail,
  },
});

describe('recordWriter', () => {
  it("keeps the principal S3 authenticated under the object's key and version", async () => {
    const writers = memoryWriterRecords();
    const result = await recordWriter({ writers }, cloudTrailPut());
    expect(result).toEqual({
      recorded: {
        key: 'answers/lote-1/decisoes.csv',
        version_id: 'v-3',
        etag: null,
        person: {
          name: 'jose@acme (Operations)',
          id: 'arn:aws:sts::111122223333:assumed-role/Operations/jose@acme',
          known_by: 'iam',
        },
        at: '2026-12-03T10:00:01Z',
      },
    });
    const found = await writers.find({ key: 'answers/lote-1/decisoes.csv', etag: null, versionId: 'v-3' });
    expect(writerOf(found)?.name).toBe('jose@acme (Operations)');
  });

  it('keys by the ETag the local S3 names when it keeps no versions', async () => {
    const writers = memoryWriterRecords();
    await recordWriter(
      { writers },
      cloudTrailPut({ responseElements: { ETag: '"9b2cf535f27731c974343645a3985328"' } }),
    );
    expect(writers.records[0]).toMatchObject({ version_id: null, etag: '9b2cf535f27731c974343645a3985328' });
  });

  it('skips a failed call, a record without a principal or a version, and anything else, saying why', async () => {
    const writers = memoryWriterRecords();
    const skipped = await Promise.all([
      recordWriter({ writers }, cloudTrailPut({ errorCode: 'AccessDenied' })),
      recordWriter({ writers }, cloudTrailPut({ userIdentity: {} })),
      recordWriter({ writers }, cloudTrailPut({ responseElements: null })),
      recordWriter({ writers }, { detail: { object: { key: 'x' } } }),
    ]);
    expect(skipped).toEqual([
      { skipped: 'the PutObject failed (AccessDenied)' },
      { skipped: 'the record names no principal' },
      { skipped: 'the record names no version of the object' },
      { skipped: 'not a CloudTrail record of a write to S3' },
    ]);
    expect(writers.records).toEqual([]);
  });
});

describe('personOfPrincipal', () => {
  it("names an assumed role's session with its role, a user by name, anything else by its ARN; the ARN is the id", () => {
    expect(personOfPrincipal('arn:aws:sts::111122223333:assumed-role/Ops/jose@acme')).toEqual({
      name: 'jose@acme (Ops)',
      id: 'arn:aws:sts::111122223333:assumed-role/Ops/jose@acme',
      known_by: 'iam',
    });
    expect(personOfPrincipal('arn:aws:iam::000000000000:user/division/ana').name).toBe('ana');
    expect(personOfPrincipal('arn:aws:iam::111122223333:root').name).toBe('arn:aws:iam::111122223333:root');
  });
});

describe('batchSender', () => {
  const KEY = 'inbox/nightly/p.csv';
  const event = (requester: string) => ({
    'detail-type': 'Object Created',
    detail: { bucket: { name: 'b' }, object: { key: KEY, etag: 'e1' }, requester },
  });

  it("is this machine's CLI user, else who S3 recorded for the file; never a console function's role", async () => {
    const writers = memoryWriterRecords();
    expect(await batchSender({ writers }, event('cli:ana'), KEY)).toEqual(cliPerson('ana'));
    expect(await batchSender({ writers }, event('111122223333'), KEY)).toBeNull();

    const jose = 'arn:aws:sts::111122223333:assumed-role/Operations/jose@acme';
    await writers.record({
      key: KEY,
      version_id: null,
      etag: 'e1',
      person: personOfPrincipal(jose),
      at: 'x',
    });
    expect((await batchSender({ writers }, event('111122223333'), KEY))?.id).toBe(jose);

    const consoleRole =
      'arn:aws:sts::1:assumed-role/NcmBatchClassifier-Console-FunctionsConsoleFilesRole1/console-files';
    const viaConsole = memoryWriterRecords();
    await viaConsole.record({
      key: KEY,
      version_id: null,
      etag: 'e1',
      person: personOfPrincipal(consoleRole),
      at: 'x',
    });
    expect(await batchSender({ writers: viaConsole }, event('111122223333'), KEY)).toBeNull();
    // Through the console's form: the person it gave the form for the key.
    const maria = { name: 'Maria', id: 'sub-m', known_by: 'console' as const };
    await viaConsole.record({ key: KEY, version_id: null, etag: null, person: maria, at: 'x' });
    expect(await batchSender({ writers: viaConsole }, event('111122223333'), KEY)).toEqual(maria);
    // Without the records (a test's Prepare), the CLI's user still counts.
    expect(await batchSender({}, event('cli:bia'), KEY)).toEqual(cliPerson('bia'));
  });
});
