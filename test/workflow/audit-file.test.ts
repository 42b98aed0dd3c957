/**
 * audit.csv on the sample catalogue (sample-data/products.csv), from the synthesized workflows:
 * Finalize lists every event of every row, each row's in the order they happened, with who sent,
 * answered and when; a later answers round only adds to the file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Papa from 'papaparse';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { checkAuditChain } from '../../shared/pipeline/audit/audit-chain.js';
import { AUDIT_COLUMNS } from '../../shared/pipeline/audit/audit-file.js';
import { ANSWERED_BY_METADATA } from '../../shared/pipeline/core/ports.js';
import { buildReviewCsv, type FilledAnswers } from '../../shared/pipeline/outbox/results-files.js';
import { bytesSource } from '../../shared/spreadsheet/byte-source.js';
import { HARNESS_WRITER, type Harness, startHarness, synthesizedDefinitions } from './harness.js';

const SAMPLE = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'sample-data');
const REQUESTED_BY = 'ana.souza@example.com';
const ANSWERED_BY = 'rui.costa@example.com';
/** Verdicts under 85 % wait for a person's check. */
const CHECK_BELOW = 85;

beforeAll(async () => {
  await synthesizedDefinitions();
}, 120_000);

let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

type AuditLine = Record<(typeof AUDIT_COLUMNS)[number], string>;

const auditOf = (bytes: Uint8Array): { header: string[]; lines: AuditLine[] } => {
  const text = Buffer.from(bytes).toString('utf8');
  expect(text.startsWith('\uFEFF')).toBe(true);
  const parsed = Papa.parse<AuditLine>(text.slice(1), { header: true, skipEmptyLines: true });
  return { header: parsed.meta.fields ?? [], lines: parsed.data };
};

/** The sample catalogue as it sits in sample-data/, its sheets and batch.json beside it (who sent it added). */
const dropSample = (h: Harness) => {
  const sheets = Object.fromEntries(
    readdirSync(join(SAMPLE, 'sheets')).map((name) => [
      `sheets/${name}`,
      new Uint8Array(readFileSync(join(SAMPLE, 'sheets', name))),
    ]),
  );
  const options = {
    ...JSON.parse(readFileSync(join(SAMPLE, 'batch.json'), 'utf8')),
    requested_by: REQUESTED_BY,
    check_below: CHECK_BELOW,
  };
  return h.drop('amostra', 'products.csv', new Uint8Array(readFileSync(join(SAMPLE, 'products.csv'))), {
    ...sheets,
    'batch.json': JSON.stringify(options),
  });
};

/** The kinds each final status must show, at least, in a first run on empty state. */
const KINDS_BY_STATUS: Record<string, string[]> = {
  resolved: ['submitted', 'resolved'],
  pending_data: ['submitted', 'questions'],
  failed: ['submitted', 'failed'],
  rejected: ['not_sent'],
  not_submitted: ['not_sent'],
};

describe('audit.csv of the sample catalogue', () => {
  it('lists every event of every row in order, and a later answers round only adds to it', async () => {
    // Arrange and act: the sample batch run to its end
    harness = await startHarness();
    const output = await harness.runBatch(dropSample(harness));
    const batchId = (output.prepare as { batch_id: string }).batch_id;
    const auditKey = `outbox/${batchId}/audit.csv`;
    const first = new Uint8Array(harness.objects.objects.get(auditKey)!.bytes);
    const { header, lines } = auditOf(first);
    const rows = await harness.rowsOf(batchId);

    // Assert: the columns, by their machine names
    expect(header).toEqual([...AUDIT_COLUMNS]);
    // Every row is there with what happened to it, and the times of each row's events never go back.
    for (const row of rows) {
      const own = lines.filter((line) => Number(line.row) === row.row);
      const kinds = own.map((line) => line.event);
      if (row.follows !== undefined) expect(kinds, `row ${row.row}`).toEqual(['follows']);
      else
        expect(kinds, `row ${row.row} (${row.status})`).toEqual(
          expect.arrayContaining(KINDS_BY_STATUS[row.status]!),
        );
      const times = own.map((line) => line.at);
      expect(times, `row ${row.row}`).toEqual([...times].sort());
      // A rejected row's SKU read from its cells (the first column of the sample).
      for (const line of own) expect(line.sku).toBe(row.product?.sku ?? row.cells[0]);
      // A verdict marked to check says so right after it, at the same time.
      const toCheck = own.filter((line) => line.event === 'to_check');
      expect(toCheck.length, `row ${row.row}`).toBe(row.result?.check === 'to_check' ? 1 : 0);
      for (const line of toCheck)
        expect(own[own.indexOf(line) - 1]).toMatchObject({ event: 'resolved', at: line.at });
      // A row retried as a new attempt was submitted twice: its last submission is the verdict's.
      const classified = own.filter((line) => !['follows', 'not_sent', 'submitted'].includes(line.event));
      for (const line of classified)
        expect(line.classification_id, `row ${row.row}`).toBe(row.classification_id);
      const submitted = own.filter((line) => line.event === 'submitted');
      if (submitted.length > 0) expect(submitted.at(-1)!.classification_id).toBe(row.classification_id);
    }
    expect(lines.length).toBeGreaterThan(rows.length);
    // What Prepare made of the rows first, in row order; then the events as they happened.
    const prepared = lines.findIndex(
      (line) => !['follows', 'not_sent', 'reused', 'joined'].includes(line.event),
    );
    const preparedRows = lines.slice(0, prepared).map((line) => Number(line.row));
    expect(preparedRows).toEqual([...preparedRows].sort((a, b) => a - b));
    const logged = lines.slice(prepared).map((line) => line.at);
    expect(logged).toEqual([...logged].sort());
    // Who: the sender on each submission, the pipeline elsewhere; a verdict with its NCM and confidence.
    // The batch was dropped with nothing that proves who sent it: batch.json's name is only stated.
    for (const line of lines.filter((l) => l.event === 'submitted'))
      expect([line.who, line.known_by, line.stated_by]).toEqual(['', '', REQUESTED_BY]);
    for (const line of lines.filter((l) => l.event !== 'submitted')) expect(line.who).toBe('');
    const cafe = lines.find((line) => line.sku === 'CAF-0101' && line.event === 'resolved');
    expect(cafe?.detail).toMatch(/^NCM 0901\.21\.00, \d+ %$/);
    expect(lines.filter((line) => line.event === 'to_check').length).toBeGreaterThan(0);

    // Act: the questions of the rows waiting for them answered, the file sent in a person's name
    const items = await harness.reviews.listByBatch(batchId);
    expect(items.length).toBeGreaterThan(0);
    const filled = new Map(
      items.map((item) => [
        item.classification_id,
        {
          answers: new Map(
            item.questions.map((q) => [q.id, q.options[0] ?? 'Rolamento de esferas'] as const),
          ),
        },
      ]),
    );
    const event = harness.dropAnswers(
      batchId,
      'review.csv',
      buildReviewCsv(items, ',', { filled: filled satisfies FilledAnswers }),
    );
    const answersKey = `answers/${batchId}/review.csv`;
    await harness.objects.put(answersKey, harness.objects.objects.get(answersKey)!.bytes, 'text/csv', {
      [ANSWERED_BY_METADATA]: encodeURIComponent(ANSWERED_BY),
    });
    await harness.runAnswers(event);

    // Assert: the old bytes, exactly, then the round's events only
    const second = harness.objects.objects.get(auditKey)!.bytes;
    expect(second.byteLength).toBeGreaterThan(first.byteLength);
    expect(Buffer.from(second.subarray(0, first.byteLength)).equals(Buffer.from(first))).toBe(true);
    const added = auditOf(second).lines.slice(lines.length);
    const answeredRows = new Set(items.map((item) => item.row));
    for (const line of added) expect(answeredRows.has(Number(line.row)), `row ${line.row}`).toBe(true);
    for (const row of answeredRows) {
      const own = added.filter((line) => Number(line.row) === row);
      // The person is the principal S3 recorded for the write; the metadata's name only stated.
      const person = ['ana.revisora (Operations)', HARNESS_WRITER, 'iam', ANSWERED_BY];
      expect(
        own.slice(0, 2).map((line) => [line.event, line.who, line.who_id, line.known_by, line.stated_by]),
      ).toEqual([
        ['answered', ...person],
        ['submitted', ...person],
      ]);
      expect(own.slice(2).map((line) => line.event).length).toBeGreaterThan(0);
      expect(own.map((line) => line.at)).toEqual(own.map((line) => line.at).sort());
    }
    // The sample's audit.csv holds across both writes, up to the head its batch kept.
    const head = (await harness.batches.getBatch(batchId))?.audit_through?.chain;
    expect(head).toMatch(/^[0-9a-f]{64}$/);
    expect(await checkAuditChain(bytesSource(second), 'audit.csv', { head: head! })).toEqual({
      holds: true,
      lines: auditOf(second).lines.length,
      head,
    });
  });
});
