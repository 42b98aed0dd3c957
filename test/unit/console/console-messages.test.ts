/**
 * The console's API gives the page messages, not sentences: a batch's problems and warnings and a
 * row's detail come as codes with what they name, for the page to word in its viewer's language
 * from the shared table (shared/wording/); a batch recorded before messages had codes still reads.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../../functions/console-runtime.js';
import { message, wordDetail, wordMessage } from '../../../shared/wording/index.js';
import { textMessage } from '../../../shared/wording/message.js';
import { consoleWorld } from '../../helpers/console-world.js';
import { seedCountedBatch } from '../../helpers/counted-batch.js';
import { batchRecord, rowRecord } from '../../helpers/records.js';

beforeAll(() => logger.setLogLevel('SILENT'));

const LOST_ZERO = message('leading_zero_lost', {
  header: 'NCM',
  letter: 'F',
  count: 2,
  first_row: 4,
  example: '9012100',
});
const TOO_SHORT = message('description_too_short', { header: 'Descripción', length: 4, limit: 10 });

const seed = async (world: ReturnType<typeof consoleWorld>) =>
  seedCountedBatch(
    world.ports.batches,
    batchRecord({
      state: 'running',
      rows_total: 1,
      header: ['SKU', 'Descripción'],
      warnings: [LOST_ZERO, textMessage('A sentence from before messages had codes.')],
      problems: [message('budget_exceeded', { max_usd: 10, covered: 5, over: 3 })],
    }),
    [
      rowRecord(1, {
        status: 'rejected',
        cells: ['B-1', 'Café'],
        result: {
          status: 'rejected',
          reason: 'description_too_short',
          detail: 'Column "Descripción" has 4 characters; a description needs at least 10.',
          detail_messages: [TOO_SHORT],
        },
      }),
    ],
  );

describe("the console's messages", () => {
  it("returns a batch's warnings and problems as codes with their parameters", async () => {
    const world = consoleWorld();
    await seed(world);
    const response = await world.call('console-read', 'GET /batches/{batchId}', {
      params: { batchId: 'nightly-abc' },
    });
    expect(response.status).toBe(200);
    expect(response.body.warnings).toEqual([
      LOST_ZERO,
      { code: 'text', params: { text: 'A sentence from before messages had codes.' } },
    ]);
    expect(response.body.problems).toEqual([
      { code: 'budget_exceeded', params: { max_usd: 10, covered: 5, over: 3 } },
    ]);
    // What the page makes of them, in each language.
    expect(wordMessage(response.body.warnings[0], 'es')).toMatch(/^2 filas declaran una NCM de 7 dígitos/);
    expect(wordMessage(response.body.problems[0], 'pt')).toMatch(
      /^O orçamento de USD 10 \(max_usd do batch.json\) cobre 5/,
    );
  });

  it("returns a row's detail as messages beside its English sentence", async () => {
    const world = consoleWorld();
    await seed(world);
    const response = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: 'nightly-abc' },
    });
    const [row] = response.body.rows;
    expect(row).toMatchObject({
      reason: 'description_too_short',
      detail: 'Column "Descripción" has 4 characters; a description needs at least 10.',
      detail_messages: [TOO_SHORT],
    });
    expect(wordDetail(row, 'es')).toBe(
      'La columna "Descripción" tiene 4 caracteres; una descripción necesita al menos 10.',
    );
  });

  it('names what a batch saved by where it came from: a verdict reused and a row of the same product', async () => {
    const world = consoleWorld();
    const resolved = { status: 'resolved' as const, ncm: '7318.15.00', cost_usd: '2.00' };
    await seedCountedBatch(world.ports.batches, batchRecord({ state: 'running', rows_total: 3 }), [
      rowRecord(1, { status: 'resolved', result: resolved }),
      rowRecord(2, { status: 'following', follows: 1 }),
      rowRecord(3, { status: 'reused', result: { ...resolved, status: 'reused', cost_usd: '0.00' } }),
    ]);
    const response = await world.call('console-read', 'GET /batches/{batchId}', {
      params: { batchId: 'nightly-abc' },
    });
    expect(response.body.saved_usd).toBe(4);
    expect(response.body.saving).toEqual({
      code: 'saving_sources',
      params: { reused_usd: 2, identical_usd: 2 },
    });
    expect(wordMessage(response.body.saving, 'en')).toBe(
      '$2.00 by reusing earlier verdicts and $2.00 by classifying identical rows once',
    );
  });
});
