/**
 * The Batch workflow from the synthesized definition (aws-local-stepfunctions): it waits for
 * its last row, rejected rows included, and every input row ends in exactly one output row.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { readSpreadsheet } from '../../shared/spreadsheet/read-spreadsheet.js';
import { type Harness, startHarness, synthesizedDefinitions } from './harness.js';

beforeAll(async () => {
  await synthesizedDefinitions();
}, 120_000);
let harness: Harness | undefined;
afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

const MIXED = [
  'sku,description,operation,country,notes',
  'A-1,"Café torrado em grãos, embalagem de 1 kg",import,BR,first',
  'A-2,curto,import,BR,too short',
  'A-3,"Rodamientos de bolas 6204",export,AR,',
  'A-4,"Vinho tinto Malbec 750 ml",import,XX,unknown country',
  'A-5,"Camiseta 100% algodão manga curta [sandbox:ask]",import,BR,',
  'A-6,"Smartphone 128 GB",import,,no country',
].join('\n');

const resultsOf = async (h: Harness, batchId: string) => {
  const bytes = h.objects.objects.get(`outbox/${batchId}/results.csv`)?.bytes;
  if (!bytes) throw new Error('no results.csv');
  return readSpreadsheet(bytes, 'results.csv');
};

describe('Batch workflow, from the synthesized definition', () => {
  it('finishes when its last row finishes, rejected rows included, one output row per input row', async () => {
    harness = await startHarness();
    const output = await harness.runBatch(harness.drop('mixed', 'products.csv', MIXED));
    const batchId = (output.prepare as { batch_id: string }).batch_id;

    const statuses = (await harness.rowsOf(batchId)).map((row) => [row.row, row.status]);
    expect(statuses).toEqual([
      [1, 'resolved'],
      [2, 'rejected'],
      [3, 'resolved'],
      [4, 'rejected'],
      [5, 'pending_data'],
      [6, 'rejected'],
    ]);
    const results = await resultsOf(harness, batchId);
    expect(results.rows.map((row) => row.cells[results.header.indexOf('row')])).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(results.rows.map((row) => row.cells[results.header.indexOf('notes')])).toEqual([
      'first',
      'too short',
      '',
      'unknown country',
      '',
      'no country',
    ]);
    expect(output.finalized).toMatchObject({
      state: 'completed',
      rows_total: 6,
      by_status: expect.objectContaining({ resolved: 2, rejected: 3, pending_data: 1 }),
    });
    const summary = JSON.parse(harness.objects.text(`outbox/${batchId}/summary.json`) ?? '{}');
    expect(summary.billed_usd).toBe(harness.sandbox.stats().billed_usd);
    expect(harness.waiters.woken).toEqual([batchId]);
    expect(harness.events.published).toHaveLength(1);
    expect([...harness.leases.holders.keys()]).toEqual([]);
  });

  it('a batch whose rows are all rejected finishes without waiting', async () => {
    harness = await startHarness();
    const output = await harness.runBatch(
      harness.drop(
        'all-bad',
        'products.csv',
        'description,operation,country\ncurto,import,BR\nok?,sell,BR\n',
      ),
    );
    const batchId = (output.prepare as { batch_id: string; next: string }).batch_id;

    expect(output.prepare).toMatchObject({ next: 'finalize' });
    expect(output).not.toHaveProperty('rows');
    expect((await harness.rowsOf(batchId)).map((row) => row.status)).toEqual(['rejected', 'rejected']);
    expect(harness.workflows.started).toEqual([]);
    expect((await resultsOf(harness, batchId)).rows).toHaveLength(2);
  });

  it('the same object delivered twice is one batch', async () => {
    harness = await startHarness();
    const event = harness.drop(
      'twice',
      'products.csv',
      'description,operation,country\nSmartphone 128 GB,import,BR\n',
    );
    const first = await harness.runBatch(event);
    const second = await harness.runBatch({ ...event, id: 'redelivered' });

    expect(second.prepare).toMatchObject({
      next: 'skip',
      batch_id: (first.prepare as { batch_id: string }).batch_id,
    });
    expect(harness.workflows.started).toHaveLength(1);
    expect(harness.sandbox.stats().billed_usd).toBe(2);
  });

  it('invalid batch.json fails the batch before anything is billed, saying which field', async () => {
    harness = await startHarness();
    const output = await harness.runBatch(
      harness.drop(
        'bad-options',
        'products.csv',
        'description,operation,country\nSmartphone 128 GB,import,BR\n',
        {
          'batch.json': JSON.stringify({ reclassify: 'sometimes', max_usd: 10 }),
        },
      ),
    );
    const batchId = (output.prepare as { batch_id: string }).batch_id;
    const summary = JSON.parse(harness.objects.text(`outbox/${batchId}/summary.json`) ?? '{}');

    expect(summary.state).toBe('failed');
    expect(JSON.stringify(summary.problems)).toContain('reclassify');
    expect((await harness.rowsOf(batchId)).map((row) => row.result?.reason)).toEqual(['invalid_options']);
    expect(harness.workflows.started).toEqual([]);
    expect(harness.sandbox.stats().billed_usd).toBe(0);
  });

  it('a Row execution that fails outright (Complete keeps failing) frees its lease, and its row follows the classification it created to its verdict, billed once', async () => {
    harness = await startHarness();
    // Complete cannot write the row's outcome: its Retry gives up and the execution FAILS.
    const moveRow = harness.batches.moveRow.bind(harness.batches);
    let broken = true;
    harness.batches.moveRow = async (batchId, row, move) => {
      if (broken && 'result' in move) throw new Error('ProvisionedThroughputExceededException');
      return moveRow(batchId, row, move);
    };
    // From the EventBridge rule's run on, the table accepts writes again.
    harness.hooks.rowExecutionFailed = () => {
      broken = false;
    };
    const output = await harness.runBatch(
      harness.drop('crash', 'products.csv', 'description,operation,country\nSmartphone 128 GB,import,BR\n'),
    );
    const batchId = (output.prepare as { batch_id: string }).batch_id;
    const [row] = await harness.rowsOf(batchId);

    expect([...harness.executions.values()].map((execution) => execution.status)).toEqual([
      'FAILED',
      'SUCCEEDED',
    ]);
    expect(row).toMatchObject({ status: 'resolved', dispatch: 2 });
    expect(harness.sandbox.stats()).toMatchObject({ created: 1, billed_usd: 2 });
    expect([...harness.leases.holders.keys()]).toEqual([]);
  });
});
