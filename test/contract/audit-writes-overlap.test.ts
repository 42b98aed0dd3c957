/**
 * Two rounds' writes of audit.csv that truly overlap, on the real adapters: the bucket on s3rver (the
 * local S3, its conditional writes over HTTP) and the batch table and audit log on dynalite. The
 * first write is held between its claim on the batch record and its copy into audit.csv until the
 * second has written; the file ends with every event of both, in order, its chain whole. Then an
 * event recorded two hours late comes in at the next write.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type RunningServer, startS3 } from '../../local/runtime/stand-ins.js';
import { createDynamoAuditLog } from '../../shared/aws/dynamo-audit-log.js';
import { createDynamoBatchStore } from '../../shared/aws/dynamo-batch-store.js';
import { createS3ObjectStore } from '../../shared/aws/s3-object-store.js';
import { checkAuditChain } from '../../shared/pipeline/audit/audit-chain.js';
import { type AuditOptions, writeAuditFile } from '../../shared/pipeline/audit/audit-file.js';
import type { AuditEvent } from '../../shared/pipeline/core/audit-records.js';
import { AUDIT_FILE, outboxKey } from '../../shared/pipeline/core/bucket-layout.js';
import { bytesSource } from '../../shared/spreadsheet/byte-source.js';
import {
  BATCH_TABLE_KEYS,
  createTableWithKeys,
  type LocalDynamo,
  startLocalDynamo,
} from '../helpers/dynalite.js';
import { holdNextAuditClaim } from '../helpers/held-claim.js';
import { fixedClock } from '../helpers/memory-ports.js';
import { BATCH, batchRecord, rowRecord } from '../helpers/records.js';

const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const AUDIT_KEY = outboxKey(BATCH, AUDIT_FILE);
/** A whole write in one leg; parts of S3's least size, so the old file is read back, not part-copied. */
const AT_ONCE: AuditOptions = { until: Number.MAX_SAFE_INTEGER, pageSize: 50, partBytes: 5 * 1024 * 1024 };

let dataDir = '';
let s3: RunningServer;
let client: S3Client;
let dynamo: LocalDynamo;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'audit-overlap-'));
  s3 = await startS3(dataDir, []);
  client = new S3Client({
    endpoint: s3.endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  dynamo = await startLocalDynamo();
}, 60_000);

afterAll(async () => {
  client?.destroy();
  await s3?.close();
  await dynamo?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const answered = (row: number, minutes: number): AuditEvent => ({
  at: iso(minutes * 60_000),
  batch_id: BATCH,
  row,
  event: 'answered',
  who: 'rui@example.com',
  classification_id: `cls_${row}`,
  detail: '1 answer, round r1',
  sku: `SKU-${row}`,
});

const world = async () => {
  const clock = fixedClock(iso(15 * 60_000));
  await client.send(new CreateBucketCommand({ Bucket: 'audit' }));
  const tableName = 'batches-audit';
  await createTableWithKeys(dynamo.client, tableName, BATCH_TABLE_KEYS);
  const ports = {
    clock,
    objects: createS3ObjectStore({ client, bucket: 'audit' }),
    batches: createDynamoBatchStore({ client: dynamo.client, tableName }),
    audit: createDynamoAuditLog({ client: dynamo.client, tableName, now: () => clock.now() }),
  };
  await ports.batches.createBatch(batchRecord({ rows_total: 20, state: 'completed' }));
  await ports.batches.putRows(Array.from({ length: 20 }, (_, i) => rowRecord(i + 1)));
  await ports.audit.record(Array.from({ length: 20 }, (_, i) => answered(i + 1, 1)));
  const text = async () => Buffer.from((await ports.objects.getBytes(AUDIT_KEY))!).toString('utf8');
  const lines = async () =>
    Papa.parse<string[]>((await text()).slice(1), { skipEmptyLines: true }).data.slice(1) as string[][];
  return { ...ports, text, lines };
};

describe('audit.csv written by two rounds at once, on s3rver and dynalite', () => {
  it('ends with every event of both, in order, however the first write is held; a late event comes at the next write', async () => {
    // Prepare: Finalize's write; then round one's event, and its write held after its claim
    const w = await world();
    await writeAuditFile(w, (await w.batches.getBatch(BATCH))!, null, AT_ONCE);
    const finalized = (await w.lines()).length;
    await w.audit.record([{ ...answered(3, 10), event: 'decided', detail: 'NCM 7318.15.00' }]);
    const hold = holdNextAuditClaim(w.batches);

    // Act: round one claims and is held; round two records and writes, whole; round one goes on
    const first = writeAuditFile(w, (await w.batches.getBatch(BATCH))!, null, AT_ONCE);
    await hold.claimed;
    w.clock.advance(60_000);
    await w.audit.record([{ ...answered(5, 11), event: 'decided', detail: 'NCM 7318.15.00' }]);
    const second = await writeAuditFile(w, (await w.batches.getBatch(BATCH))!, null, AT_ONCE);
    const afterSecond = await w.text();
    hold.release();
    expect(await first).toEqual({ next: 'done', added: 1 });

    // Assess: the second's file stands, every event of both once, in order, the chain whole
    expect(second).toEqual({ next: 'done', added: 1 });
    expect(await w.text()).toBe(afterSecond);
    const decided = (await w.lines()).slice(finalized);
    expect(decided.map((line) => `${line[1]} ${line[3]}`)).toEqual(['3 decided', '5 decided']);
    const head = (await w.batches.getBatch(BATCH))!.audit_through!.chain!;
    const bytes = new Uint8Array(Buffer.from(afterSecond, 'utf8'));
    expect(await checkAuditChain(bytesSource(bytes), AUDIT_FILE, { head })).toMatchObject({ holds: true });

    // Act again: two hours on, an event of the first minute recorded now, then the next write
    w.clock.advance(2 * 60 * 60_000);
    await w.audit.record([{ ...answered(7, 2), event: 'submitted', detail: 'answers posted' }]);
    const next = await writeAuditFile(w, (await w.batches.getBatch(BATCH))!, null, AT_ONCE);

    // Assess: added once, at the end, and the list of late events is empty
    expect(next).toEqual({ next: 'done', added: 1 });
    expect((await w.lines()).at(-1)?.slice(0, 4)).toEqual([iso(2 * 60_000), '7', 'SKU-7', 'submitted']);
    expect(await w.audit.pendingLate(BATCH, 10)).toEqual([]);
    expect(await writeAuditFile(w, (await w.batches.getBatch(BATCH))!, null, AT_ONCE)).toEqual({
      next: 'done',
      added: 0,
    });
  });
});
