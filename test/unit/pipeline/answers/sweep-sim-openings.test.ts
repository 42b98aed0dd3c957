/**
 * The daily SIM sweep's own decisions, over memory ports and a scripted service: what waits for
 * a later day (the registry still verifying, a lookup that failed, a batch still running, a batch
 * not begun before its time ran out), and that the service is asked once per NCM and operation.
 * The confirmed path, through FinalizeAnswers, is test/workflow/sim-sweep.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { sweepSimOpenings } from '../../../../shared/pipeline/answers/sweep-sim-openings.js';
import type { ClassificationService } from '../../../../shared/pipeline/core/ports.js';
import type { SimWatch } from '../../../../shared/pipeline/core/sim-watch.js';
import { TcsNetworkError } from '../../../../shared/tcs/errors.js';
import type { SimOpenings } from '../../../../shared/tcs/schemas.js';
import { memoryPipelinePorts } from '../../../helpers/memory-ports.js';
import { AT, BATCH, batchRecord, classificationId } from '../../../helpers/records.js';

const watch = (row: number, overrides: Partial<SimWatch> = {}): SimWatch => ({
  batch_id: BATCH,
  row,
  classification_id: classificationId(row),
  ncm: '84139190',
  operation: 'import',
  product_key: `sku:R-${row}`,
  fingerprint: 'f'.repeat(64),
  state: 'open',
  created_at: AT,
  ...overrides,
});

/** Memory ports whose service answers GET /sim-openings by `answer`, recording each query. */
const world = (answer: (ncm: string) => SimOpenings | Error) => {
  const ports = memoryPipelinePorts({}, []);
  const asked: string[] = [];
  const service = {
    ...ports.service,
    getSimOpenings: async (query: { ncm: string; operation: 'import' | 'export' }) => {
      asked.push(`${query.ncm}:${query.operation}`);
      const answered = answer(query.ncm);
      if (answered instanceof Error) throw answered;
      return answered;
    },
  } as ClassificationService;
  return { ports: { ...ports, service }, asked };
};

const verifying = (ncm: string): SimOpenings => ({
  ncm,
  operation: 'import',
  status: 'verifying',
  openings: [],
  verified_at: null,
});
const available = (ncm: string): SimOpenings => ({
  ncm,
  operation: 'import',
  status: 'available',
  openings: [{ code: `${ncm}10`, description: 'Rotores' }],
  verified_at: AT,
});
const FAR = Date.parse('2100-01-01T00:00:00.000Z');

describe('sweepSimOpenings', () => {
  it('does nothing, and asks nothing, without an open watch', async () => {
    const w = world(verifying);
    expect(await sweepSimOpenings(w.ports, { until: FAR, parallel: 4 })).toEqual({
      open: 0,
      asked: 0,
      failed_lookups: 0,
      confirmed: 0,
      waiting: 0,
      left: 0,
      batches: [],
    });
    expect(w.asked).toEqual([]);
  });

  it('asks once per NCM and operation, and leaves every watch open while the registry is verifying', async () => {
    // Prepare: four rows over three distinct lookups
    const w = world(verifying);
    await w.ports.simWatches.put(watch(1));
    await w.ports.simWatches.put(watch(2));
    await w.ports.simWatches.put(watch(3, { operation: 'export' }));
    await w.ports.simWatches.put(watch(4, { ncm: '03043100' }));

    // Act
    const report = await sweepSimOpenings(w.ports, { until: FAR, parallel: 2 });

    // Assess
    expect(w.asked.sort()).toEqual(['03043100:import', '84139190:export', '84139190:import']);
    expect(report).toMatchObject({ open: 4, asked: 3, waiting: 4, confirmed: 0, batches: [] });
    expect(await w.ports.simWatches.listOpen()).toHaveLength(4);
  });

  it('takes a failed lookup for "still verifying": its rows wait for tomorrow', async () => {
    // Prepare
    const w = world(() => new TcsNetworkError('GET /sim-openings', 'ECONNRESET', 'socket hang up'));
    await w.ports.simWatches.put(watch(1));

    // Act
    const report = await sweepSimOpenings(w.ports, { until: FAR, parallel: 4 });

    // Assess
    expect(report).toMatchObject({ asked: 1, failed_lookups: 1, waiting: 1, confirmed: 0 });
    expect(await w.ports.simWatches.listOpen()).toHaveLength(1);
  });

  it('leaves a confirmed row of a batch still running for a later day: its own Finalize shows the row then', async () => {
    // Prepare
    const w = world(available);
    await w.ports.batches.createBatch(batchRecord({ state: 'running' }));
    await w.ports.simWatches.put(watch(1));

    // Act
    const report = await sweepSimOpenings(w.ports, { until: FAR, parallel: 4 });

    // Assess
    expect(report).toMatchObject({ asked: 1, waiting: 1, confirmed: 0, left: 0, batches: [] });
    expect(await w.ports.simWatches.listOpen()).toHaveLength(1);
  });

  it('begins no batch once its time has run out: the rows are left, their watches open, for the next run', async () => {
    // Prepare
    const w = world(available);
    await w.ports.batches.createBatch(batchRecord({ state: 'completed' }));
    await w.ports.simWatches.put(watch(1));
    await w.ports.simWatches.put(watch(2));

    // Act
    const report = await sweepSimOpenings(w.ports, { until: w.ports.clock.now().getTime(), parallel: 4 });

    // Assess
    expect(report).toMatchObject({ asked: 1, waiting: 0, confirmed: 0, left: 2, batches: [] });
    expect(await w.ports.simWatches.listOpen()).toHaveLength(2);
  });
});
