/**
 * Prepare under check_below: a reused verdict under the threshold, or whose SIM opening waits for
 * a choice, is marked `to_check` and gets its check item, one per product on its first row; an
 * approved one keeps its approval. A decision on that item settles every row of the product.
 */
import Papa from 'papaparse';
import { describe, expect, it, vi } from 'vitest';
import { printPlan } from '../../../../local/cli/plan.js';
import { carriedNcmTable } from '../../../../shared/ncm-table/carried-table.js';
import { decideRow } from '../../../../shared/pipeline/answers/apply-decisions.js';
import {
  FINALIZE_ANSWERS_SETTINGS,
  finalizeAnswers,
} from '../../../../shared/pipeline/answers/finalize-answers.js';
import { prepareAnswers } from '../../../../shared/pipeline/answers/prepare-answers.js';
import { decideReusedRows } from '../../../../shared/pipeline/answers/reused-product-rows.js';
import { CheckItem } from '../../../../shared/pipeline/core/check-records.js';
import type { CachedVerdict } from '../../../../shared/pipeline/core/records.js';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { finalizeBatch } from '../../../../shared/pipeline/finalize/finalize-batch.js';
import { tableDescription } from '../../../../shared/pipeline/outbox/divergence-sheet.js';
import { BatchPlan } from '../../../../shared/pipeline/prepare/batch-plan.js';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import {
  PREPARE_SETTINGS,
  type PrepareSettings,
} from '../../../../shared/pipeline/prepare/prepare-passes.js';
import { productFingerprint } from '../../../../shared/pipeline/reuse/reuse.js';
import { TcsNetworkError } from '../../../../shared/tcs/errors.js';
import { message } from '../../../../shared/wording/index.js';
import { byCli } from '../../../helpers/answers-batch.js';
import { memoryPipelinePorts } from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { ACCEPTED_COUNTRIES, crlf, utf8 } from '../../spreadsheet/fixtures.js';

const BUCKET = 'catalogue-bucket';
const FILE_KEY = 'inbox/noite/produtos.csv';
const OPTIONS_KEY = 'inbox/noite/batch.json';
const event = objectCreatedEvent(BUCKET, FILE_KEY, 'etag-1');
const batchId = batchSourceFromEvent(event)!.batchId;

const PRODUCTS = [
  'Rolamento de esferas de aço, diâmetro 22 mm, modelo A',
  'Rolamento de esferas de aço, diâmetro 22 mm, modelo B',
  'Rolamento de esferas de aço, diâmetro 22 mm, modelo C',
  'Rolamento de esferas de aço, diâmetro 22 mm, modelo D',
  'Rolamento de esferas de aço, diâmetro 22 mm, modelo E',
];

/** Each product's cached verdict, as Store and a decision left it. */
const RESULTS: RowResult[] = [
  // 1: sure, nothing open
  {
    status: 'resolved',
    ncm: '8482.10.10',
    confidence: '92',
    alternatives: '8482.10.90 (5%)',
    cost_usd: '2.00',
  },
  // 2: under the threshold
  {
    status: 'resolved',
    ncm: '8482.10.10',
    ncm_description: 'De carga radial',
    confidence: '70',
    alternatives: '8482.10.90 (35%); 8482.80.00 (12%)',
    cost_usd: '2.00',
  },
  // 3: sure, but its SIM opening waits for a choice
  {
    status: 'resolved',
    ncm: '8482.10.10',
    confidence: '90',
    detail_messages: [message('verdict_notes', { sim_options: ['8482.10.10.01', '8482.10.10.02'] })],
    cost_usd: '2.00',
  },
  // 4: under the threshold, but a person approved it
  {
    status: 'resolved',
    ncm: '8482.10.10',
    confidence: '60',
    check: 'approved',
    approved_ncm: '8482.10.90',
    decided_by: 'ana.souza',
    decided_at: '2026-11-10T09:00:00.000Z',
    decision_note: 'Carga axial, conforme a ficha',
    cost_usd: '2.00',
  },
  // 5: marked by the earlier batch, sure enough for this one
  { status: 'resolved', ncm: '8482.10.10', confidence: '95', check: 'to_check', cost_usd: '2.00' },
];

/**
 * `products`: how many of PRODUCTS, a row each; or the file's rows as indexes into PRODUCTS (a
 * product on several rows).
 */
const world = (options: Record<string, unknown>, products: number | number[] = PRODUCTS.length) => {
  const order = typeof products === 'number' ? PRODUCTS.slice(0, products).map((_, i) => i) : products;
  const lines = order.map((i) => `SKU-${i + 1};${PRODUCTS[i]};BR;importação`);
  const ports = memoryPipelinePorts(
    {
      [FILE_KEY]: utf8(crlf('SKU;Descrição;País;Operação', ...lines)),
      [OPTIONS_KEY]: JSON.stringify(options),
    },
    ACCEPTED_COUNTRIES,
  );
  const seed = async () => {
    for (const i of new Set(order)) {
      const result = RESULTS[i]!;
      const product = { operation: 'import' as const, country: 'BR', description: PRODUCTS[i]! };
      const verdict: CachedVerdict = {
        product_key: `sku:SKU-${i + 1}`,
        fingerprint: productFingerprint(product, null),
        classification_id: `cls_7KQ2M9XW4RT${'ABCDE'[i]}`,
        resolved_at: '2026-11-11T12:00:00.000Z',
        result: { ...result, classification_id: `cls_7KQ2M9XW4RT${'ABCDE'[i]}` },
        pdf_key: `outbox/earlier-x/pdfs/0000${i + 1}-SKU-${i + 1}.pdf`,
        batch_id: 'earlier-x',
      };
      await ports.cache.put(verdict);
    }
  };
  const run = (settings: PrepareSettings = PREPARE_SETTINGS, prepare?: unknown) =>
    prepareBatch(ports, { event: prepare ? { ...event, prepare } : event, execution_id: 'exec-1' }, settings);
  const rows = () =>
    [...ports.batches.rows.values()].filter((r) => r.batch_id === batchId).sort((a, b) => a.row - b.row);
  return { ports, seed, run, rows };
};

describe('Prepare under check_below', () => {
  it('marks exactly the reused verdicts under the threshold or with a SIM choice; an approved one keeps its approval', async () => {
    // Prepare
    const w = world({ check_below: 80 });
    await w.seed();

    // Act
    await w.run();

    // Assess
    const rows = w.rows();
    expect(rows.map((row) => row.status)).toEqual(['reused', 'reused', 'reused', 'reused', 'reused']);
    expect(rows.map((row) => row.result?.check)).toEqual([
      undefined,
      'to_check',
      'to_check',
      'approved',
      undefined,
    ]);
    expect(rows[3]?.result).toMatchObject({
      approved_ncm: '8482.10.90',
      decided_by: 'ana.souza',
      decided_at: '2026-11-10T09:00:00.000Z',
      decision_note: 'Carga axial, conforme a ficha',
      cost_usd: '0.00',
    });
    const items = await w.ports.checks.listByBatch(batchId);
    expect(items.map((item) => [item.row, item.reasons])).toEqual([
      [2, ['low_confidence']],
      [3, ['sim_pending_choice']],
    ]);
    const table = carriedNcmTable();
    expect(CheckItem.parse(items[0])).toMatchObject({
      classification_id: 'cls_7KQ2M9XW4RTB',
      product_key: 'sku:SKU-2',
      sku: 'SKU-2',
      description: PRODUCTS[1],
      operation: 'import',
      country: 'BR',
      check_below: 80,
      ncm: '84821010',
      confidence: 70,
      candidates: [
        {
          rank: 1,
          ncm: '84821010',
          description: 'De carga radial',
          confidence: 70,
          rationale: '',
          chosen: true,
        },
        {
          rank: 2,
          ncm: '84821090',
          description: tableDescription(table, '84821090'),
          confidence: 35,
          rationale: '',
          chosen: false,
        },
        {
          rank: 3,
          ncm: '84828000',
          description: tableDescription(table, '84828000'),
          confidence: 12,
          rationale: '',
          chosen: false,
        },
      ],
      sim_options: [],
      verdict_pdf: 'pdfs/earlier-x/00002-SKU-2.pdf',
      followers: 0,
      state: 'to_check',
    });
    expect(items[0]?.candidates[1]?.description).not.toBe('');
    // The cached verdict keeps the openings' codes; the registry describes them (GET /sim-openings).
    expect(items[1]?.sim_options).toEqual([
      { code: '8482101001', description: 'Destaque 01' },
      { code: '8482101002', description: 'Destaque 02' },
    ]);
  });

  it("asks the registry once per NCM for the openings' words, and keeps the codes alone when it cannot answer", async () => {
    // Prepare: products 3 (the SIM opening to choose) on three rows; the registry's lookups fail
    const w = world({ check_below: 80 }, [2, 2, 2]);
    await w.seed();
    const asked: string[] = [];
    w.ports.service.getSimOpenings = async ({ ncm }) => {
      asked.push(ncm);
      throw new TcsNetworkError('GET /sim-openings', 'ECONNRESET', 'socket hang up');
    };

    // Act
    const prepared = await w.run();

    // Assess: one item, its openings by code, and the batch prepared all the same
    expect(prepared.next).toBe('finalize');
    expect(asked).toEqual(['84821010']);
    const [item] = await w.ports.checks.listByBatch(batchId);
    expect(item?.sim_options).toEqual([
      { code: '8482101001', description: '' },
      { code: '8482101002', description: '' },
    ]);
  });

  it('marks nothing without check_below, and drops a mark the earlier batch left', async () => {
    // Prepare
    const w = world({});
    await w.seed();

    // Act
    await w.run();

    // Assess
    expect(w.rows().map((row) => row.result?.check)).toEqual([
      undefined,
      undefined,
      undefined,
      'approved',
      undefined,
    ]);
    expect(await w.ports.checks.listByBatch(batchId)).toEqual([]);
  });

  it('writes each item once across legs, and a leg run again keeps a decision made meanwhile', async () => {
    // Prepare: one row a chunk, and a leg's time spent at once: a leg writes one chunk, then hands on
    const w = world({ check_below: 80 });
    await w.seed();
    const settings = { ...PREPARE_SETTINGS, rowsPerChunk: 1, legMs: 0 };
    const created: number[] = [];
    const { create } = w.ports.checks;
    w.ports.checks.create = async (item) => {
      created.push(item.row);
      return create(item);
    };
    // Row 2's write fails once, after its check item was written: its leg is run again.
    const { putRows } = w.ports.batches;
    let failed = false;
    w.ports.batches.putRows = async (rows) => {
      if (!failed && rows.some((row) => row.row === 2)) {
        failed = true;
        throw new Error('ProvisionedThroughputExceededException');
      }
      return putRows(rows);
    };
    const decision = {
      ncm: '84821090',
      sim: null,
      note: '',
      by: 'ana',
      at: '2026-11-21T13:00:00.000Z',
      round_id: 'x~1',
    };

    // Act
    const legs = [await w.run(settings)];
    while (legs.at(-1)!.next === 'again') {
      const last = legs.at(-1);
      const leg = await w.run(settings, last).catch(async () => {
        // Someone decides row 2 before the workflow retries the leg.
        expect(await w.ports.checks.decide(batchId, 2, decision)).toBe(true);
        return w.run(settings, last);
      });
      legs.push(leg);
    }

    // Assess
    expect(failed).toBe(true);
    expect(legs.at(-1)?.next).toBe('finalize');
    expect(created).toEqual([2, 2, 3]);
    expect((await w.ports.checks.listByBatch(batchId)).map((item) => [item.row, item.state])).toEqual([
      [2, 'decided'],
      [3, 'to_check'],
    ]);
    expect(await w.ports.checks.get(batchId, 2)).toMatchObject({ decision });
    expect(w.rows().map((row) => row.result?.check)).toEqual([
      undefined,
      'to_check',
      'to_check',
      'approved',
      undefined,
    ]);
  });

  it('keeps one item per reused product, on its first row, and one decision settles all its rows', async () => {
    // Prepare: product 2 on rows 1, 3, 5 and 6, read one row a chunk; product 3 on row 4
    const w = world({ check_below: 80 }, [1, 0, 1, 2, 1, 1]);
    await w.seed();
    const settings = { ...PREPARE_SETTINGS, rowsPerChunk: 1 };

    // Act
    const prepared = await w.run(settings);
    await finalizeBatch(w.ports, { ...event, prepare: prepared });

    // Assess: every row of product 2 waits, under one item that counts the other three
    expect(w.rows().map((row) => row.result?.check)).toEqual([
      'to_check',
      undefined,
      'to_check',
      'to_check',
      'to_check',
      'to_check',
    ]);
    const items = await w.ports.checks.listByBatch(batchId);
    expect(items.map((item) => [item.row, item.followers, item.followers_reuse ?? false])).toEqual([
      [1, 3, true],
      [4, 0, false],
    ]);
    // to-check.csv lists the product once, its other rows beside it
    const listed = Papa.parse<Record<string, string>>(
      w.ports.objects.text(`outbox/${batchId}/to-check.csv`)!.replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(listed.map((line) => [line.row, line.same_product_rows])).toEqual([
      ['1', '3 5 6'],
      ['4', ''],
    ]);

    // Act: the round decides the item and its first row (apply-decisions.ts), then FinalizeAnswers
    // writes the decision on the product's other rows
    const roundId = `${batchId}~r0und00001`;
    const decision = {
      ncm: '84821090',
      sim: null,
      note: 'Carga axial',
      by: 'ana',
      at: '2026-11-21T13:00:00.000Z',
      round_id: roundId,
    };
    expect(await w.ports.checks.decide(batchId, 1, decision)).toBe(true);
    await decideRow(w.ports.batches, batchId, 1, decision);
    const { moved } = await decideReusedRows(w.ports, batchId, roundId);

    // Assess
    expect(moved).toBe(3);
    expect(w.rows().map((row) => [row.row, row.status, row.result?.check, row.result?.approved_ncm])).toEqual(
      [
        [1, 'reused', 'approved', '8482.10.90'],
        [2, 'reused', undefined, undefined],
        [3, 'reused', 'approved', '8482.10.90'],
        [4, 'reused', 'to_check', undefined],
        [5, 'reused', 'approved', '8482.10.90'],
        [6, 'reused', 'approved', '8482.10.90'],
      ],
    );
    expect(w.rows()[4]?.result).toMatchObject({ decided_by: 'ana', decision_note: 'Carga axial' });
    // Run again (a retried FinalizeAnswers), and by another round: nothing left to move.
    expect(await decideReusedRows(w.ports, batchId, roundId)).toEqual({ moved: 0, after: null });
    expect(await decideReusedRows(w.ports, batchId, `${batchId}~r0und00002`)).toEqual({
      moved: 0,
      after: null,
    });
  });

  it('applies one decision to a product of 1,200 rows through an answers round, its rows written in legs', async () => {
    // Prepare: product 2 on every row; Prepare and Finalize as the Batch workflow runs them
    const w = world({ check_below: 80 }, Array(1_200).fill(1));
    await w.seed();
    const prepared = await w.run();
    await finalizeBatch(w.ports, { ...event, prepare: prepared });
    const [item] = await w.ports.checks.listByBatch(batchId);
    expect(item).toMatchObject({ row: 1, followers: 1_199, followers_reuse: true });
    const key = `answers/${batchId}/decisoes.csv`;
    w.ports.objects.set(
      key,
      `row,classification_id,decision_ncm,decision_sim,decision_note\r\n1,${item!.classification_id},84821090,,\r\n`,
    );
    const answers = objectCreatedEvent(BUCKET, key, 'etag-d1');

    // Act: a round of decisions only; each FinalizeAnswers leg's time is spent at once
    const prepare = await prepareAnswers(w.ports, {
      event: byCli(answers, 'ana'),
      execution_id: 'exec-d1',
    });
    const settings = { ...FINALIZE_ANSWERS_SETTINGS, legMs: 0 };
    const legs = [await finalizeAnswers(w.ports, { ...answers, prepare }, settings)];
    while ('next' in legs.at(-1)!) {
      const finalized = JSON.parse(JSON.stringify(legs.at(-1)));
      legs.push(await finalizeAnswers(w.ports, { ...answers, prepare, finalized }, settings));
    }

    // Assess: the rows were written a page at a time (500), in legs, before the revision
    const deciding = legs.flatMap((leg) =>
      'next' in leg && leg.run.deciding ? [leg.run.deciding.after] : [],
    );
    expect(deciding).toEqual([500, 1_000]);
    const results = Papa.parse<Record<string, string>>(
      w.ports.objects.text(`outbox/${batchId}/results.csv`)!.replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
    expect(new Set(results.map((line) => `${line.check} ${line.approved_ncm} ${line.decided_by}`))).toEqual(
      new Set(['approved 8482.10.90 ana']),
    );
    expect(results).toHaveLength(1_200);
  });

  it('plans how many reused verdicts will wait for a check, writing no check item', async () => {
    // Prepare
    const w = world({ check_below: 80, plan_only: true });
    await w.seed();

    // Act
    const result = await w.run();

    // Assess
    expect(result.next).toBe('planned');
    const plan = BatchPlan.parse(JSON.parse(w.ports.objects.text(`outbox/${batchId}/plan.json`)!));
    expect(plan.options.check_below).toBe(80);
    expect(plan.rows).toMatchObject({ total: 5, reuse: 5, reuse_to_check: 2 });
    const lines = w.ports.objects
      .text(`outbox/${batchId}/plan.csv`)!
      .replace(/^\uFEFF/, '')
      .trim()
      .split('\r\n')
      .map((line) => line.split(';'));
    expect(lines[0]?.at(-1)).toBe('check');
    expect(lines.slice(1).map((line) => line.at(-1))).toEqual(['', 'to_check', 'to_check', '', '']);
    expect(await w.ports.checks.listByBatch(batchId)).toEqual([]);
    // The command prints the threshold and what it will ask, beside the counts.
    const printed: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((text: string) => {
      printed.push(text);
    });
    printPlan(plan, 'produtos.csv', 'out/noite');
    log.mockRestore();
    expect(printed.join('\n').split('\n')).toContain(
      "check_below 80%: every verdict under that confidence, or with a SIM opening to choose, will wait for a person's check; of the reused verdicts, 2 will.",
    );
  });
});
