/**
 * End to end: who decided is the one who wrote the file, as S3 reports it, never what the file
 * says. A catalogue dropped with an S3 client into the local bucket (through the permission gate, as
 * a person at this machine reaches it) waits for a check under `check_below`; a decisions file is
 * then dropped straight into answers/<batch-id>/ by the same client with
 * `x-amz-meta-answered-by: Someone Else`. The gate's record of the write (CloudTrail's data event on
 * AWS) names this machine's user: the round's `decided` line in audit.csv carries that principal as
 * the person, known by `iam`, and "Someone Else" only as `stated_by`; results.csv's `decided_by` is
 * the principal's name; the audit's chain holds.
 */
import { readFileSync } from 'node:fs';
import { userInfo } from 'node:os';
import { join } from 'node:path';
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import Papa from 'papaparse';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../local/runtime/loopback.js';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { LOCAL_ACCOUNT, LOCAL_REGION } from '../../local/runtime/template.js';
import { checkAuditChain } from '../../shared/pipeline/audit/audit-chain.js';
import type { CheckItem } from '../../shared/pipeline/core/check-records.js';
import { bytesSource } from '../../shared/spreadsheet/byte-source.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, writeCsv } from './helpers.js';

const temp = makeTempDir('who-decided');
const ME = userInfo().username;
const MY_PRINCIPAL = `arn:aws:iam::${LOCAL_ACCOUNT}:user/${ME}`;
let pipeline: LocalPipeline;
let s3: S3Client;
let bucket = '';

const within = (timeout: number) => ({ timeout, interval: 250 });

const put = (key: string, body: Uint8Array | string, metadata?: Record<string, string>) =>
  s3.send(
    new PutObjectCommand({
      Bucket: bucket,
      Key: key,
      Body: body,
      ContentType: key.endsWith('.json') ? 'application/json' : 'text/csv',
      ...(metadata ? { Metadata: metadata } : {}),
    }),
  );

const csvRecords = (bytes: Uint8Array | null): Record<string, string>[] =>
  Papa.parse<Record<string, string>>(
    Buffer.from(bytes ?? new Uint8Array())
      .toString('utf8')
      .replace(/^\uFEFF/, ''),
    {
      header: true,
      skipEmptyLines: true,
    },
  ).data;

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-who-decided' },
    bucketNotifications: true,
  });
  // The data bucket, as the stateful stack's outputs name it.
  const stateful = pipeline.describeStack('NcmBatchClassifier-Stateful');
  bucket = stateful?.Outputs.find((output) => output.ExportName?.endsWith(':BucketName'))?.OutputValue ?? '';
  s3 = new S3Client({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: pipeline.endpoints.s3ForPeople,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}, 300_000);

afterAll(async () => {
  s3?.destroy();
  await pipeline?.close();
  temp.remove();
}, 60_000);

describe('a decisions file dropped straight into answers/', () => {
  it('is decided by the principal that wrote it; the name in its metadata is only stated', async () => {
    // Arrange: a catalogue whose coffee waits for a check, dropped by this machine's user.
    const catalogue = join(temp.dir, 'catalogo.csv');
    writeCsv(
      catalogue,
      ['SKU', 'Descrição', 'Operação', 'País'],
      [
        ['CAF-0101', 'Café torrado em grãos, pacote 1 kg [sandbox:confidence=medium]', 'export', 'US'],
        ['VIN-MAL', 'Vinho tinto Malbec 750 ml [sandbox:confidence=high]', 'import', 'AR'],
      ],
    );
    await put('inbox/quem-decide/batch.json', JSON.stringify({ check_below: 90 }));
    await put('inbox/quem-decide/catalogo.csv', readFileSync(catalogue));
    let item: CheckItem | undefined;
    await vi.waitFor(async () => {
      item = (await pipeline.tables.openChecks()).find((open) => open.row === 1);
      expect(item).toBeDefined();
    }, within(120_000));
    const batchId = item!.batch_id;
    await vi.waitFor(
      async () => expect((await pipeline.tables.batches.getBatch(batchId))?.state).toBe('completed'),
      within(120_000),
    );
    const ncm = item!.candidates[0]!.ncm;
    // People were told, in the file's language: it finished, and two verdicts wait to be checked (the coffee, the wine's SIM opening).
    const told = Buffer.from((await pipeline.outboxFile(batchId, 'notifications.log')) ?? '').toString(
      'utf8',
    );
    expect(told).toMatch(
      / batch_finished\nLote quem-decide terminado\nO lote quem-decide terminou: 2 linhas/,
    );
    expect(told).toMatch(/ verdicts_to_check\nLote quem-decide: 2 pareceres a conferir\n/);

    // Act: the decision dropped by the same user, claiming to be someone else.
    await put(
      `answers/${batchId}/decisoes.csv`,
      `row,classification_id,decision_ncm,decision_sim,decision_note\r\n1,${item!.classification_id},${ncm},,conferido\r\n`,
      { 'answered-by': 'Someone Else' },
    );

    // Assert: the round applied it under the principal; the metadata's name is only stated.
    let audit: Uint8Array | null = null;
    await vi.waitFor(async () => {
      audit = await pipeline.outboxFile(batchId, 'audit.csv');
      expect(csvRecords(audit).some((line) => line.event === 'decided')).toBe(true);
    }, within(120_000));
    const decided = csvRecords(audit).filter((line) => line.event === 'decided');
    expect(decided).toEqual([
      expect.objectContaining({
        row: '1',
        who: ME,
        who_id: MY_PRINCIPAL,
        known_by: 'iam',
        stated_by: 'Someone Else',
      }),
    ]);
    let results: Record<string, string>[] = [];
    await vi.waitFor(async () => {
      results = csvRecords(await pipeline.outboxFile(batchId, 'results.csv'));
      expect(results.find((line) => line.row === '1')).toMatchObject({ check: 'approved', decided_by: ME });
    }, within(120_000));
    expect(results.map((line) => line.decided_by)).not.toContain('Someone Else');
    // The file as written holds: every line follows from the one before.
    expect(await checkAuditChain(bytesSource(audit!), 'audit.csv')).toMatchObject({ holds: true });
  }, 360_000);
});
