/**
 * POST /batches/{batchId}/run, as API Gateway calls console-files: a planned batch's catalogue,
 * sheets and options copied into a folder of their own, the catalogue last (its arrival starts
 * the batch); and each refusal (not a plan, not finished, run already, its catalogue gone or
 * replaced, an unknown batch) with nothing written.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { logger } from '../../../functions/console-runtime.js';
import { PlanRun } from '../../../shared/console/api.js';
import { BatchOptions } from '../../../shared/pipeline/core/batch-options-schema.js';
import { consoleWorld } from '../../helpers/console-world.js';
import { batchRecord } from '../../helpers/records.js';

beforeAll(() => logger.setLogLevel('SILENT'));

const PLANNED = 'products-x0jbnFClR6';
const CATALOGUE = 'SKU,Descrição,Ficha técnica\nBOM-1,Bomba submersível,sheets/bomba.pdf\n';

/** A plan of inbox/products/ as Prepare leaves it, the folder's files still there. */
const plannedWorld = async (overrides: Parameters<typeof batchRecord>[0] = {}) => {
  const world = consoleWorld();
  await world.ports.batches.createBatch(
    batchRecord({
      batch_id: PLANNED,
      name: 'products',
      source: {
        bucket: 'in',
        key: 'inbox/products/products.csv',
        version_or_etag: 'v1',
        folder: 'inbox/products/',
        file_name: 'products.csv',
      },
      state: 'completed',
      options: BatchOptions.parse({ plan_only: true, country: 'BR', max_usd: 54, language: 'es' }),
      ...overrides,
    }),
  );
  const objects = world.ports.objects;
  objects.set('inbox/products/products.csv', CATALOGUE);
  objects.set('inbox/products/batch.json', '{"plan_only":true,"country":"BR","max_usd":54,"language":"es"}');
  objects.set('inbox/products/sheets/bomba.pdf', '%PDF-1.4 bomba');
  objects.set('inbox/products/sheets/Motor Trifásico.PDF', '%PDF-1.4 motor');
  objects.set('inbox/products/leia-me.txt', 'not a sheet');
  // Another folder whose name starts the same: none of its files belong to the plan.
  objects.set('inbox/products-2/sheets/outra.pdf', '%PDF-1.4 outra');
  return world;
};

const run = (world: ReturnType<typeof consoleWorld>, batchId = PLANNED) =>
  world.call('console-files', 'POST /batches/{batchId}/run', { params: { batchId } });

const keysUnder = (world: ReturnType<typeof consoleWorld>, prefix: string) =>
  [...world.ports.objects.objects.keys()].filter((key) => key.startsWith(prefix)).sort();

describe('running a plan', () => {
  it("copies the plan's catalogue, its folder's sheets and its options with plan_only off into inbox/<planned id>/, the catalogue last", async () => {
    const world = await plannedWorld();
    const order: string[] = [];
    const copy = world.ports.objects.copy;
    world.ports.objects.copy = async (from, to) => {
      order.push(to);
      await copy(from, to);
    };
    const response = await run(world);
    expect(response.status).toBe(201);
    const answer = PlanRun.parse(response.body);
    expect(answer).toEqual({
      batch_name: PLANNED,
      folder: `inbox/${PLANNED}/`,
      file_name: 'products.csv',
      sheets: 2,
      requested_at: '2026-11-21T12:00:00.000Z',
    });
    expect(keysUnder(world, `inbox/${PLANNED}/`)).toEqual([
      `inbox/${PLANNED}/batch.json`,
      `inbox/${PLANNED}/products.csv`,
      `inbox/${PLANNED}/sheets/Motor Trifásico.PDF`,
      `inbox/${PLANNED}/sheets/bomba.pdf`,
    ]);
    expect(order.at(-1)).toBe(`inbox/${PLANNED}/products.csv`);
    expect(world.ports.objects.text(`inbox/${PLANNED}/products.csv`)).toBe(CATALOGUE);
    expect(world.ports.objects.text(`inbox/${PLANNED}/sheets/bomba.pdf`)).toBe('%PDF-1.4 bomba');
    const options = JSON.parse(world.ports.objects.text(`inbox/${PLANNED}/batch.json`) ?? '');
    expect(BatchOptions.parse(options)).toMatchObject({
      plan_only: false,
      country: 'BR',
      max_usd: 54,
      language: 'es',
    });
    // The plan's own folder is left as it was.
    expect(world.ports.objects.text('inbox/products/batch.json')).toContain('"plan_only":true');
  });

  it('runs a plan once: a second request is refused with 409 naming the batch it started, nothing copied again', async () => {
    const world = await plannedWorld();
    expect((await run(world)).status).toBe(201);
    const before = keysUnder(world, 'inbox/').map((key) => [
      key,
      world.ports.objects.objects.get(key)?.version,
    ]);
    const again = await run(world);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'plan_already_run', params: { batch_name: PLANNED } });
    expect(
      keysUnder(world, 'inbox/').map((key) => [key, world.ports.objects.objects.get(key)?.version]),
    ).toEqual(before);
  });

  it.each([
    ['a batch that ran, not planned', { options: BatchOptions.parse({}) }, 'not_a_plan'],
    ['a plan still being prepared', { state: 'preparing' as const }, 'plan_not_ready'],
    ['a plan that failed', { state: 'failed' as const }, 'plan_not_ready'],
  ])('refuses %s with 409 and copies nothing', async (_, overrides, code) => {
    const world = await plannedWorld(overrides);
    const response = await run(world);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code, params: { batch_name: 'products' } });
    expect(keysUnder(world, `inbox/${PLANNED}/`)).toEqual([]);
  });

  it('refuses a plan whose catalogue is gone, or replaced since (a versioned bucket names another version)', async () => {
    const gone = await plannedWorld();
    gone.ports.objects.objects.delete('inbox/products/products.csv');
    const response = await run(gone);
    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({ code: 'plan_input_gone', params: { file: 'products.csv' } });

    const replaced = await plannedWorld();
    const head = replaced.ports.objects.head;
    replaced.ports.objects.head = async (key) => {
      const found = await head(key);
      return found && key === 'inbox/products/products.csv' ? { ...found, versionId: 'v2' } : found;
    };
    const changed = await run(replaced);
    expect(changed.status).toBe(409);
    expect(changed.body).toMatchObject({ code: 'plan_input_changed' });
    expect(keysUnder(replaced, `inbox/${PLANNED}/`)).toEqual([]);

    const same = await plannedWorld();
    const sameHead = same.ports.objects.head;
    same.ports.objects.head = async (key) => {
      const found = await sameHead(key);
      return found && key === 'inbox/products/products.csv' ? { ...found, versionId: 'v1' } : found;
    };
    expect((await run(same)).status).toBe(201);
  });

  it('answers 404 for a batch it does not know', async () => {
    const response = await run(await plannedWorld(), 'nope');
    expect(response.status).toBe(404);
    expect(response.body).toMatchObject({ code: 'batch_not_found', params: { batch_id: 'nope' } });
  });
});
