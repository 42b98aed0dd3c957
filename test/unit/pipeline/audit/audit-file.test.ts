/** audit.csv: written in legs from the rows and the audit log, then only ever added to. */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { chainedHash, checkAuditChain } from '../../../../shared/pipeline/audit/audit-chain.js';
import {
  AUDIT_COLUMNS,
  AUDIT_LOOKBACK_MS,
  type AuditWriting,
  writeAuditFile,
} from '../../../../shared/pipeline/audit/audit-file.js';
import type { AuditEvent } from '../../../../shared/pipeline/core/audit-records.js';
import { AUDIT_FILE } from '../../../../shared/pipeline/core/bucket-layout.js';
import type { BatchRecord, RowRecord } from '../../../../shared/pipeline/core/records.js';
import { bornRow } from '../../../../shared/pipeline/core/row-life.js';
import { bytesSource } from '../../../../shared/spreadsheet/byte-source.js';
import { holdNextAuditClaim } from '../../../helpers/held-claim.js';
import { memoryPipelinePorts } from '../../../helpers/memory-ports.js';

const BATCH = 'lote-2026-11-21-audit';
const KEY = `outbox/${BATCH}/${AUDIT_FILE}`;
/** The memory bucket's least part size here, so a file of a few hundred lines is sent in many parts. */
const PART = 2048;
const T0 = Date.parse('2026-11-21T10:00:00.000Z');
const iso = (ms: number) => new Date(T0 + ms).toISOString();

const batchRecord: BatchRecord = {
  batch_id: BATCH,
  name: 'lote',
  source: {
    bucket: 'b',
    key: 'inbox/lote/p.csv',
    version_or_etag: 'v1',
    folder: 'inbox/lote/',
    file_name: 'p.csv',
  },
  execution_id: 'exec-1',
  state: 'completed',
  header: ['SKU', 'Descrição'],
  delimiter: ';',
  rows_total: 0,
  rows_dispatched: 0,
  shard_count: 0,
  complete_shards: [],
  problems: [],
  started_at: iso(0),
};

const product = (sku: string) => ({
  sku,
  description: `Produto ${sku}`,
  operation: 'import' as const,
  country: 'BR',
  external_reference: null,
  current_ncm: null,
  title: null,
  sheet: null,
});

/** Row n: every third a follower of the row before, every seventh reused, the rest classified. */
const rowOf = (n: number): RowRecord => {
  const base = {
    batch_id: BATCH,
    row: n,
    line: n + 1,
    cells: [`SKU-${n}`, `Produto ${n}`],
    product: product(`SKU-${n}`),
    attempt: 1,
    dispatch: 1,
    updated_at: iso(n),
  } as unknown as Omit<RowRecord, 'status'>;
  if (n % 3 === 0) return bornRow({ ...base, follows: n - 1 }, { as: 'following' });
  if (n % 7 === 0)
    return bornRow(
      { ...base, classification_id: `cls_REUSED${String(n).padStart(6, '0')}` },
      {
        as: 'final',
        result: {
          status: 'reused',
          classification_id: `cls_REUSED${String(n).padStart(6, '0')}`,
          ncm: '84713012',
          confidence: '91',
        },
      },
    );
  return { ...bornRow(base, { as: 'queued' }), submitted_at: iso(1000 + n), classification_id: `cls_${n}` };
};

/** The classified rows' events: submitted, then resolved a minute later; no SKU on one in five. */
const loggedEvents = (rows: readonly RowRecord[]): AuditEvent[] =>
  rows
    .filter((row) => row.submitted_at !== undefined)
    .flatMap((row) => [
      {
        at: row.submitted_at!,
        batch_id: BATCH,
        row: row.row,
        event: 'submitted' as const,
        who: 'ana@example.com',
        classification_id: row.classification_id!,
        detail: '',
        ...(row.row % 5 === 0 ? {} : { sku: `SKU-${row.row}` }),
      },
      {
        at: iso(61_000 + row.row),
        batch_id: BATCH,
        row: row.row,
        event: 'resolved' as const,
        who: '',
        classification_id: row.classification_id!,
        detail: 'NCM 8471.30.12, 86 %',
      },
    ]);

/** A person's decision on row `row`, `minutes` after the batch began. */
const decided = (row: number, minutes: number): AuditEvent => ({
  at: iso(minutes * 60_000),
  batch_id: BATCH,
  row,
  event: 'decided',
  who: 'rui@example.com',
  who_id: 'sub-rui',
  known_by: 'console',
  classification_id: `cls_${row}`,
  detail: 'NCM 8471.30.12',
});

const world = async (rowCount: number) => {
  const ports = memoryPipelinePorts({}, ['BR'], { minPartBytes: PART });
  // A quarter of an hour after the batch began: every event below is recorded on time.
  ports.clock.set(iso(15 * 60_000));
  const rows = Array.from({ length: rowCount }, (_, i) => rowOf(i + 1));
  await ports.batches.createBatch({ ...batchRecord, rows_total: rowCount });
  await ports.batches.putRows(rows);
  await ports.audit.record(loggedEvents(rows));
  const bytes = () => ports.objects.objects.get(KEY)?.bytes;
  const lines = () =>
    Papa.parse<string[]>(Buffer.from(bytes()!).toString('utf8').slice(1), {
      delimiter: ';',
      newline: '\r\n',
      skipEmptyLines: true,
    }).data;
  /** Legs until done, each a page at most (its time is spent at once); what each hands on. */
  const writeInLegs = async () => {
    const handed: AuditWriting[] = [];
    let from: AuditWriting | null = null;
    for (let leg = 0; leg < 10_000; leg += 1) {
      const batch = (await ports.batches.getBatch(BATCH))!;
      const outcome = await writeAuditFile(ports, batch, from, {
        until: ports.clock.now().getTime(),
        pageSize: 25,
        partBytes: PART,
        copyAtLeast: PART,
      });
      if (outcome.next === 'done') return { handed, added: outcome.added };
      handed.push(outcome.writing);
      // Through JSON, as the workflow's state carries it.
      from = JSON.parse(JSON.stringify(outcome.writing)) as AuditWriting;
    }
    throw new Error('the write never finished');
  };
  return { ...ports, rows, bytes, lines, writeInLegs };
};

describe('audit.csv', () => {
  it('is written in legs: what Prepare made of each row in row order, then every event in time order', async () => {
    // Prepare: 300 rows, those classified with two events each
    const w = await world(300);

    // Act
    const { handed } = await w.writeInLegs();

    // Assess: the header, the Prepare lines in row order, then the log's in time order
    const [header, ...body] = w.lines();
    expect(header).toEqual([...AUDIT_COLUMNS]);
    expect(Buffer.from(w.bytes()!).subarray(0, 3)).toEqual(Buffer.from([0xef, 0xbb, 0xbf]));
    const prepared = body.filter((line) => ['follows', 'reused', 'not_sent', 'joined'].includes(line[3]!));
    expect(prepared).toHaveLength(100 + w.rows.filter((row) => row.status === 'reused').length);
    expect(body.slice(0, prepared.length)).toEqual(prepared);
    expect(prepared.map((line) => Number(line[1]))).toEqual(
      [...prepared.map((line) => Number(line[1]))].sort((a, b) => a - b),
    );
    // The pipeline's own events name no one: who, their id, how known and the stated name empty.
    expect(prepared.find((line) => line[1] === '3')?.slice(0, 10)).toEqual([
      iso(3),
      '3',
      'SKU-3',
      'follows',
      '',
      '',
      '',
      '',
      '',
      'row 2',
    ]);
    expect(prepared.find((line) => line[1] === '7')?.slice(0, 10)).toEqual([
      iso(7),
      '7',
      'SKU-7',
      'reused',
      '',
      '',
      '',
      '',
      'cls_REUSED000007',
      'NCM 8471.30.12, 91 %',
    ]);
    const logged = body.slice(prepared.length);
    expect(logged).toHaveLength(2 * w.rows.filter((row) => row.submitted_at !== undefined).length);
    const times = logged.map((line) => line[0]!);
    expect(times).toEqual([...times].sort());
    // The SKU a step did not record is read from the row.
    expect(logged.find((line) => line[1] === '10' && line[3] === 'submitted')?.slice(0, 10)).toEqual([
      iso(1010),
      '10',
      'SKU-10',
      'submitted',
      'ana@example.com',
      '',
      '',
      '',
      'cls_10',
      '',
    ]);
    // Bounded: many legs, each handing on a few hundred bytes besides its parts' ETags (one per
    // part: a few for a file of 100,000 rows at 8 MiB a part), and less than a part in `work/`.
    expect(handed.length).toBeGreaterThan(20);
    for (const writing of handed) {
      const withoutParts = JSON.stringify({
        ...writing,
        file: writing.file && { ...writing.file, parts: [] },
        keys: writing.keys && { ...writing.keys, parts: [] },
      });
      expect(withoutParts.length).toBeLessThan(700);
      expect(writing.file?.parts.length ?? 0).toBeLessThanOrEqual(writing.bytes / PART);
    }
    for (const [key, object] of w.objects.objects)
      if (key.startsWith(`work/${BATCH}/`)) expect(object.bytes.byteLength).toBeLessThan(PART);
    const batch = await w.batches.getBatch(BATCH);
    expect(batch?.audit_through).toMatchObject({
      key: `${iso(61_299)}#0000299#resolved`,
      bytes: w.bytes()!.byteLength,
      writes: 1,
    });
    // audit.csv is a copy of the write's own file, kept beside it.
    expect(
      Buffer.from(w.objects.objects.get(batch!.audit_through!.file!)!.bytes).equals(Buffer.from(w.bytes()!)),
    ).toBe(true);
  });

  it("names the batch's sender on a submission recorded before the sender was proven, the stated name beside", async () => {
    const w = await world(40);
    await w.writeInLegs();
    await w.batches.updateBatch(BATCH, { sent_by: { name: 'ana', id: 'cli:ana', known_by: 'cli' } });
    await w.audit.record([
      {
        ...decided(4, 10),
        event: 'submitted',
        who: '',
        who_id: undefined,
        known_by: undefined,
        stated_by: 'Fiscal',
      },
    ]);

    await w.writeInLegs();

    expect(w.lines().at(-1)?.slice(3, 8)).toEqual(['submitted', 'ana', 'cli:ana', 'cli', 'Fiscal']);
  });

  it('only grows: a later write adds the new events and one recorded late, and nothing it already holds', async () => {
    // Prepare: the first write done, large enough that its bytes are copied as the new file's first part
    // (1,500 rows: the keys the first write kept run past one 64 KiB read.)
    const w = await world(1500);
    await w.writeInLegs();
    const first = Buffer.from(w.bytes()!);
    expect(first.byteLength).toBeGreaterThan(PART);
    const late: AuditEvent = {
      at: iso(61_060),
      batch_id: BATCH,
      row: 50,
      event: 'answered',
      who: 'rui',
      who_id: 'arn:aws:iam::111122223333:user/rui',
      known_by: 'iam',
      stated_by: 'Someone Else',
      classification_id: 'cls_50',
      detail: '1 answer, round r1',
      sku: 'SKU-50',
    };
    const later: AuditEvent = {
      ...late,
      at: iso(5 * 60_000),
      row: 52,
      event: 'decided',
      classification_id: 'cls_52',
      sku: 'SKU-52',
    };
    // The late one is older than the last key written (row 1,499's verdict) by less than the lookback.
    const kept = (await w.batches.getBatch(BATCH))!.audit_through!;
    expect(w.objects.objects.get(kept.keys!)!.bytes.byteLength).toBeGreaterThan(64 * 1024);
    const through = kept.key;
    expect(through).toBe(`${iso(62_499)}#0001499#resolved`);
    expect(late.at < through).toBe(true);
    expect(T0 + 62_499 - Date.parse(late.at)).toBeLessThan(AUDIT_LOOKBACK_MS);
    await w.audit.record([late, later]);

    // Act
    const { added } = await w.writeInLegs();

    // Assess: the old bytes exactly, then the two events, once each
    const second = Buffer.from(w.bytes()!);
    expect(added).toBe(2);
    expect(second.subarray(0, first.byteLength).equals(first)).toBe(true);
    const tail = second.subarray(first.byteLength).toString('utf8');
    expect(tail.replace(/;[0-9a-f]{64}\r\n/g, ';<hash>\r\n')).toBe(
      `${iso(61_060)};50;SKU-50;answered;rui;arn:aws:iam::111122223333:user/rui;iam;Someone Else;cls_50;1 answer, round r1;<hash>\r\n` +
        `${iso(300_000)};52;SKU-52;decided;rui;arn:aws:iam::111122223333:user/rui;iam;Someone Else;cls_52;1 answer, round r1;<hash>\r\n`,
    );
    // The chain goes on across writes: the whole file holds, up to the head the batch kept.
    const head = (await w.batches.getBatch(BATCH))!.audit_through!.chain!;
    expect(await checkAuditChain(bytesSource(second), 'audit.csv', { head })).toMatchObject({
      holds: true,
      head,
    });
    expect((await w.batches.getBatch(BATCH))?.audit_through?.writes).toBe(2);

    // Act again: nothing new, nothing written
    const again = await w.writeInLegs();
    expect(again.added).toBe(0);
    expect(Buffer.from(w.bytes()!).equals(second)).toBe(true);
  });

  it('written again after a write stopped before its position was kept: audit.csv gains the event once', async () => {
    // Prepare: the first write done; a decision recorded; the next write stops before its claim
    const w = await world(40);
    await w.writeInLegs();
    const first = Buffer.from(w.bytes()!);
    await w.audit.record([decided(4, 10)]);
    const { claimAuditPosition } = w.batches;
    w.batches.claimAuditPosition = async () => {
      throw new Error('the invocation ended');
    };
    await expect(w.writeInLegs()).rejects.toThrow('the invocation ended');
    expect(Buffer.from(w.bytes()!).equals(first)).toBe(true);
    w.batches.claimAuditPosition = claimAuditPosition;

    // Act
    const { added } = await w.writeInLegs();

    // Assess: the old bytes, then the decision, once
    expect(added).toBe(1);
    const now = Buffer.from(w.bytes()!);
    expect(now.subarray(0, first.byteLength).equals(first)).toBe(true);
    expect(w.lines().filter((line) => line[3] === 'decided')).toHaveLength(1);
  });

  it('two writes at once from the same position: one stands, the other starts again from it and adds only what it lacks', async () => {
    // Prepare: the first write done; a decision recorded; two writes both start from that position
    const w = await world(40);
    await w.writeInLegs();
    const started = (await w.batches.getBatch(BATCH))!;
    await w.audit.record([decided(4, 10)]);
    const atOnce = { until: Number.MAX_SAFE_INTEGER, pageSize: 25, partBytes: PART, copyAtLeast: PART };

    // Act: the first claims; the second (later, another decision read too) finds the position moved
    const one = await writeAuditFile(w, started, null, atOnce);
    const afterOne = Buffer.from(w.bytes()!);
    await w.audit.record([decided(5, 11)]);
    w.clock.advance(1);
    const other = await writeAuditFile(w, started, null, atOnce);
    const next = await w.writeInLegs();

    // Assess: the second added, after the first's bytes, only the decision the first had not read
    expect(one).toEqual({ next: 'done', added: 1 });
    expect(other).toEqual({ next: 'done', added: 1 });
    expect(next.added).toBe(0);
    const last = Buffer.from(w.bytes()!);
    expect(last.subarray(0, afterOne.byteLength).equals(afterOne)).toBe(true);
    expect(
      w
        .lines()
        .filter((line) => line[3] === 'decided')
        .map((line) => line[1]),
    ).toEqual(['4', '5']);
    expect((await w.batches.getBatch(BATCH))?.audit_through?.writes).toBe(3);
  });

  it('two rounds whose writes truly overlap: the first, held between its claim and its copy until the second is done, never shrinks the file', async () => {
    // Prepare: the first write done; a round's decision recorded; its write will stall at its copy
    const w = await world(40);
    await w.writeInLegs();
    await w.audit.record([decided(4, 10)]);
    const hold = holdNextAuditClaim(w.batches);
    const atOnce = { until: Number.MAX_SAFE_INTEGER, pageSize: 25, partBytes: PART, copyAtLeast: PART };

    // Act: the first round's write claims its position and stalls; the second round records its
    // decision and writes from the first's position, to the end; then the first goes on
    const first = writeAuditFile(w, (await w.batches.getBatch(BATCH))!, null, atOnce);
    await hold.claimed;
    await w.audit.record([decided(5, 11)]);
    w.clock.advance(1);
    const second = await w.writeInLegs();
    const afterSecond = Buffer.from(w.bytes()!);
    hold.release();
    const firstDone = await first;

    // Assess: audit.csv is the second's, with every event of both in order, and the chain holds
    expect(firstDone).toEqual({ next: 'done', added: 1 });
    expect(second.added).toBe(1);
    expect(Buffer.from(w.bytes()!).equals(afterSecond)).toBe(true);
    const rounds = w.lines().filter((line) => line[3] === 'decided');
    expect(rounds.map((line) => line[1])).toEqual(['4', '5']);
    expect(w.lines().at(-1)?.[3]).toBe('decided');
    const batch = (await w.batches.getBatch(BATCH))!;
    expect(batch.audit_through).toMatchObject({ writes: 3, bytes: afterSecond.byteLength });
    expect(
      await checkAuditChain(bytesSource(afterSecond), 'audit.csv', { head: batch.audit_through!.chain! }),
    ).toMatchObject({ holds: true });
  });

  describe('its chain', () => {
    const written = async () => {
      const w = await world(40);
      await w.writeInLegs();
      const bytes = Buffer.from(w.bytes()!);
      const head = (await w.batches.getBatch(BATCH))!.audit_through!.chain!;
      const lines = bytes.toString('utf8').split('\r\n');
      const check = (text: string, withHead = true) =>
        checkAuditChain(bytesSource(Buffer.from(text, 'utf8')), 'audit.csv', withHead ? { head } : undefined);
      return { bytes, head, lines, check };
    };

    it('holds on the file as written, and names the first line that does not follow when one byte changes', async () => {
      const { bytes, head, lines, check } = await written();
      expect(await check(bytes.toString('utf8'))).toEqual({ holds: true, lines: lines.length - 2, head });

      // One byte of line 12 (a row's SKU) changed
      const changed = [...lines];
      changed[11] = changed[11]!.replace('SKU-', 'SKV-');
      const result = await check(changed.join('\r\n'));
      expect(result).toMatchObject({ holds: false, line: 12 });
      expect(result.holds === false && result.reason).toMatch(/^line 12 \(row \d+, \w+\) does not follow/);
    });

    it('names the line after one removed, and a missing last line by the head the batch kept', async () => {
      const { lines, check } = await written();
      const withoutTenth = lines.filter((_, i) => i !== 9);
      expect(await check(withoutTenth.join('\r\n'))).toMatchObject({ holds: false, line: 10 });

      // The last line gone: the rest holds on its own, not against the batch's head
      const withoutLast = [...lines.slice(0, -2), ''];
      expect(await check(withoutLast.join('\r\n'), false)).toMatchObject({ holds: true });
      const result = await check(withoutLast.join('\r\n'));
      expect(result).toMatchObject({ holds: false, line: null });
      expect(result.holds === false && result.reason).toMatch(/lines were removed from the end/);
    });

    it('a file begun before lines were chained goes on without hashes, and says so when checked', async () => {
      // Prepare: the first write done, then its position and file as an older version left them
      const w = await world(40);
      await w.writeInLegs();
      const batch = (await w.batches.getBatch(BATCH))!;
      const { chain: _chain, people: _people, ...unchained } = batch.audit_through!;
      // The columns of then: at, row, sku, event, who, classification_id, detail.
      const old = w
        .lines()
        .map((line) => [0, 1, 2, 3, 4, 8, 9].map((at) => line[at]).join(';'))
        .join('\r\n');
      const oldBytes = Buffer.from(`\uFEFF${old}\r\n`, 'utf8');
      w.objects.set(KEY, oldBytes);
      w.objects.set(unchained.file!, oldBytes);
      await w.batches.updateBatch(BATCH, {
        audit_through: { ...unchained, bytes: oldBytes.byteLength },
      });
      await w.audit.record([decided(4, 10)]);

      // Act
      const { added } = await w.writeInLegs();

      // Assess: the new line has the old columns, and the check says the file has no chain
      expect(added).toBe(1);
      expect(w.lines().at(-1)).toHaveLength(7);
      expect((await w.batches.getBatch(BATCH))!.audit_through!.chain).toBeUndefined();
      const result = await checkAuditChain(bytesSource(w.bytes()!), 'audit.csv');
      expect(result).toMatchObject({ holds: false, line: 1 });
      expect(result.holds === false && result.reason).toMatch(/not written with a chain/);
    });

    it("a chained file begun before the person's columns keeps its columns and its chain holds", async () => {
      // Prepare: the first write done, then rewritten as the version before wrote it: chained, no person's columns
      const w = await world(40);
      await w.writeInLegs();
      const batch = (await w.batches.getBatch(BATCH))!;
      const { people: _people, ...before } = batch.audit_through!;
      let chain = '';
      const rows = w.lines().map((line, index) => {
        const cells = [0, 1, 2, 3, 4, 8, 9].map((at) => line[at] ?? '');
        if (index === 0) return [...cells, 'hash'].join(';');
        chain = chainedHash(chain, cells);
        return [...cells, chain].join(';');
      });
      const oldBytes = Buffer.from(`\uFEFF${rows.join('\r\n')}\r\n`, 'utf8');
      w.objects.set(KEY, oldBytes);
      w.objects.set(before.file!, oldBytes);
      await w.batches.updateBatch(BATCH, { audit_through: { ...before, chain, bytes: oldBytes.byteLength } });
      await w.audit.record([decided(4, 10)]);

      // Act
      const { added } = await w.writeInLegs();

      // Assess: the new line has the columns of its file, and the whole file holds to the head kept
      expect(added).toBe(1);
      expect(w.lines().at(-1)).toHaveLength(8);
      const through = (await w.batches.getBatch(BATCH))!.audit_through!;
      expect(through.people).toBeUndefined();
      expect(
        await checkAuditChain(bytesSource(w.bytes()!), 'audit.csv', { head: through.chain! }),
      ).toMatchObject({
        holds: true,
      });
    });
  });

  describe('events recorded late', () => {
    const HOUR = 60 * 60_000;
    const lateAnswer = (row: number, minutes: number): AuditEvent => ({
      at: iso(minutes * 60_000),
      batch_id: BATCH,
      row,
      event: 'answered',
      who: 'rui@example.com',
      classification_id: `cls_${row}`,
      detail: '1 answer, round r1',
      sku: `SKU-${row}`,
    });
    /** A write that stops after its claim stands, before it settles the late events it added. */
    const stopBeforeSettling = async (w: Awaited<ReturnType<typeof world>>) => {
      const { settleLate } = w.audit;
      w.audit.settleLate = async (batchId, markers) => {
        if (markers.length > 0) throw new Error('the invocation ended');
        return settleLate(batchId, markers);
      };
      await expect(w.writeInLegs()).rejects.toThrow('the invocation ended');
      w.audit.settleLate = settleLate;
    };
    const written = (w: Awaited<ReturnType<typeof world>>) =>
      w
        .lines()
        .filter((line) => line[3] === 'answered')
        .map((line) => `${line[1]} ${line[0]}`);

    it('two hours late: written at the next write, after everything before it, in the order they were recorded', async () => {
      // Prepare: the first write done; two hours on, two events of the first minutes are recorded
      // (the second one's time earlier than the first's), and a decision on time
      const w = await world(40);
      await w.writeInLegs();
      w.clock.advance(2 * HOUR);
      await w.audit.record([lateAnswer(4, 3)]);
      w.clock.advance(1);
      await w.audit.record([lateAnswer(5, 2)]);
      await w.audit.record([decided(7, 14 + 120)]);

      // Act
      const { added } = await w.writeInLegs();

      // Assess: the decision, then the late two as recorded; the chain holds; nothing left pending
      expect(added).toBe(3);
      expect(
        w
          .lines()
          .slice(-3)
          .map((line) => `${line[1]} ${line[3]}`),
      ).toEqual(['7 decided', '4 answered', '5 answered']);
      expect(await w.audit.pendingLate(BATCH, 10)).toEqual([]);
      const head = (await w.batches.getBatch(BATCH))!.audit_through!.chain!;
      expect(await checkAuditChain(bytesSource(w.bytes()!), 'audit.csv', { head })).toMatchObject({
        holds: true,
      });
      expect((await w.writeInLegs()).added).toBe(0);
    });

    it('recorded twice by a retried step, or again after it was written, it is written once', async () => {
      const w = await world(40);
      await w.writeInLegs();
      w.clock.advance(2 * HOUR);
      await w.audit.record([lateAnswer(4, 3)]);
      w.clock.advance(1000);
      await w.audit.record([lateAnswer(4, 3)]);
      await w.writeInLegs();
      w.clock.advance(1000);
      await w.audit.record([lateAnswer(4, 3)]);
      // An event recorded on time and recorded again late (a step retried hours later) is not late.
      await w.audit.record([lateAnswer(6, 3)]);

      const { added } = await w.writeInLegs();

      expect(added).toBe(1);
      expect(written(w)).toEqual([`4 ${iso(3 * 60_000)}`, `6 ${iso(3 * 60_000)}`]);
    });

    it('a write that stopped after its claim, before settling what it added late, is not repeated', async () => {
      const w = await world(40);
      await w.writeInLegs();
      w.clock.advance(2 * HOUR);
      await w.audit.record([lateAnswer(4, 3)]);
      await stopBeforeSettling(w);
      expect(written(w)).toHaveLength(1);
      expect(await w.audit.pendingLate(BATCH, 10)).toHaveLength(1);

      // Act: the next write, with a decision to add
      await w.audit.record([decided(7, 14 + 120)]);
      const { added } = await w.writeInLegs();

      // Assess: the decision only; the late event settled
      expect(added).toBe(1);
      expect(written(w)).toHaveLength(1);
      expect(await w.audit.pendingLate(BATCH, 10)).toEqual([]);
    });

    it("with the last write's keys and late list lost, they are rebuilt from its file: nothing written twice", async () => {
      const w = await world(40);
      await w.writeInLegs();
      w.clock.advance(2 * HOUR);
      await w.audit.record([lateAnswer(4, 3)]);
      await stopBeforeSettling(w);
      const kept = (await w.batches.getBatch(BATCH))!.audit_through!;
      w.objects.objects.delete(kept.keys!);
      w.objects.objects.delete(kept.late!);
      // A step recorded on time, retried: the same event again, which the lost keys held.
      await w.audit.record([loggedEvents(w.rows).at(-1)!]);
      await w.audit.record([decided(7, 14 + 120)]);

      const before = w.lines().length;
      const { added } = await w.writeInLegs();

      expect(added).toBe(1);
      expect(w.lines()).toHaveLength(before + 1);
      expect(w.lines().at(-1)?.[3]).toBe('decided');
      expect(written(w)).toHaveLength(1);
    });
  });
});
