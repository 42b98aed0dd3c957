/**
 * Decisions on verdicts to check: planned line by line (plan-decisions.ts), applied (the item
 * decided, the row moved `decided`, the cached verdict approved, one audit event; idempotent under
 * retry), and a whole answers round of decisions only over a batch whose verdicts came from the
 * sandbox: a results revision with the approved columns, nothing posted, nothing billed.
 */
import Papa from 'papaparse';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../../local/sandbox/sandbox.js';
import { carriedNcmTable } from '../../../../shared/ncm-table/carried-table.js';
import { applyDecisions } from '../../../../shared/pipeline/answers/apply-decisions.js';
import type { DecisionLine } from '../../../../shared/pipeline/answers/decisions-file.js';
import { finalizeAnswers } from '../../../../shared/pipeline/answers/finalize-answers.js';
import { planDecisions } from '../../../../shared/pipeline/answers/plan-decisions.js';
import { prepareAnswers } from '../../../../shared/pipeline/answers/prepare-answers.js';
import { CheckItem } from '../../../../shared/pipeline/core/check-records.js';
import { cliPerson } from '../../../../shared/pipeline/core/people.js';
import { changeOf, reuseKeysOf } from '../../../../shared/pipeline/core/row-life.js';
import { wordMessage } from '../../../../shared/wording/index.js';
import {
  type AnswersWorld,
  byCli,
  drop,
  makeAnswersWorld,
  rowOf,
  BATCH as SEEDED,
  seedFinishedBatch,
} from '../../../helpers/answers-batch.js';
import { checkItem } from '../../../helpers/check-items.js';
import {
  memoryAuditLog,
  memoryBatchStore,
  memoryCheckStore,
  memoryObjectStore,
  memoryProductCache,
} from '../../../helpers/memory-ports.js';
import { BATCH, batchRecord, cachedVerdict, classificationId, rowRecord } from '../../../helpers/records.js';

const TABLE = carriedNcmTable();
const ROUND = `${BATCH}~r0und00001`;

const line = (row: number | null, overrides: Partial<DecisionLine> = {}): DecisionLine => ({
  line: (row ?? 90) + 1,
  row,
  classification_id: row === null ? '' : classificationId(row),
  ncm: '',
  sim: '',
  note: '',
  ...overrides,
});

const SIM_ITEM = checkItem(9, {
  reasons: ['sim_pending_choice'],
  sim_options: [
    { code: '8471301200', description: 'Com tela sensível ao toque' },
    { code: '8471301201', description: 'Outros' },
  ],
});
const DECIDED = checkItem(11, {
  state: 'decided',
  decision: {
    ncm: '84713012',
    sim: null,
    note: '',
    by: 'bia',
    at: '2026-11-20T09:00:00.000Z',
    round_id: `${BATCH}~earlier001`,
  },
});
const ITEMS = [checkItem(4), checkItem(5, { followers: 2 }), checkItem(6), checkItem(7), SIM_ITEM, DECIDED];

const plan = (lines: DecisionLine[], items = ITEMS) =>
  planDecisions({ lines, items, table: TABLE, tableDate: '2026-07-05', roundId: ROUND, by: 'ana.revisora' });

describe('planDecisions', () => {
  it('takes a candidate, a typed NCM in force and a SIM among the openings; refuses the rest naming the row and why', () => {
    expect(TABLE.inForce('84713099')).toBe(false);
    const planned = plan([
      line(4, { ncm: '8471.30.19', note: 'Outros portáteis' }),
      line(5, { ncm: '84714900' }),
      line(6, { ncm: '8471.30.99' }),
      line(7, { ncm: '8471.30' }),
      line(9, { ncm: '84713012', sim: '8471.30.12.05' }),
      line(11, { ncm: '84713019' }),
      line(12, { ncm: '84713012' }),
      line(4, { ncm: '84713012' }),
      line(9, { ncm: '', sim: '8471301200' }),
    ]);
    expect(planned.report.map((entry) => [entry.row, entry.outcome])).toEqual([
      [4, 'decided'],
      [5, 'decided'],
      [6, 'ncm_not_in_force'],
      [7, 'ncm_not_a_code'],
      [9, 'sim_not_an_option'],
      [11, 'already_decided'],
      [12, 'not_to_check'],
      [4, 'duplicate'],
      [9, 'undecided'],
    ]);
    expect(planned.decide.map((d) => [d.item.row, d.ncm, d.sim, d.note])).toEqual([
      [4, '84713019', null, 'Outros portáteis'],
      [5, '84714900', null, ''],
    ]);
    const said = (row: number, outcome: string) =>
      wordMessage(planned.report.find((e) => e.row === row && e.outcome === outcome)!.said, 'en');
    expect(said(6, 'ncm_not_in_force')).toBe(
      'Row 6: NCM 8471.30.99 is not in force in the NCM table of 2026-07-05; choose one of the candidates or ' +
        'type a code in force. Nothing was decided.',
    );
    expect(wordMessage(planned.report[2]!.said, 'pt')).toMatch(
      /^Linha 6: a NCM 8471\.30\.99 não está em vigor/,
    );
    expect(said(9, 'sim_not_an_option')).toContain('"8471.30.12.00" and "8471.30.12.01"');
    expect(said(11, 'already_decided')).toBe(
      'Row 11: this verdict was already decided by bia on 2026-11-20T09:00:00.000Z (NCM 8471.30.12); it is not decided again.',
    );
    expect(said(4, 'decided')).toBe(
      'Row 4: NCM 8471.30.19 approved by ana.revisora. Nothing was sent to the service or billed.',
    );
    expect(said(5, 'decided')).toBe(
      'Row 5: NCM 8471.49.00 approved by ana.revisora; it holds for 2 rows of the same product too. ' +
        'Nothing was sent to the service or billed.',
    );
  });

  it('takes a SIM opening of the NCM decided, and refuses one of another NCM or one that is no code', () => {
    const planned = plan([
      line(9, { ncm: '84713012', sim: '8471301201' }),
      line(4, { ncm: '84713019', sim: '8471301200' }),
      line(5, { ncm: '84713019', sim: '12-34' }),
      line(6, { ncm: '84713012', classification_id: classificationId(60) }),
    ]);
    expect(planned.report.map((entry) => entry.outcome)).toEqual([
      'decided',
      'sim_not_of_ncm',
      'sim_not_a_code',
      'wrong_classification',
    ]);
    expect(planned.decide[0]).toMatchObject({ ncm: '84713012', sim: '8471301201' });
  });
});

/** A resolved row marked to check, its check item, and its verdict in the product cache. */
const decidingWorld = async () => {
  const ports = {
    objects: memoryObjectStore(),
    batches: memoryBatchStore(),
    checks: memoryCheckStore(),
    cache: memoryProductCache(),
    audit: memoryAuditLog(),
  };
  await ports.batches.createBatch(batchRecord({ state: 'completed' }));
  const result = {
    status: 'resolved' as const,
    classification_id: classificationId(4),
    ncm: '8471.30.12',
    confidence: '72',
    cost_usd: '2.00',
    check: 'to_check',
  };
  await ports.batches.putRows([
    rowRecord(4, {
      status: 'resolved',
      result,
      classification_id: classificationId(4),
      product_key: 'sku:SKU-4',
      fingerprint: 'fp-4',
    }),
  ]);
  await ports.checks.create(checkItem(4));
  for (const key of reuseKeysOf({ product_key: 'sku:SKU-4', fingerprint: 'fp-4' }))
    await ports.cache.put(cachedVerdict(key, { classification_id: classificationId(4), result }));
  // Another product's verdict under a key of its own: untouched.
  await ports.cache.put(cachedVerdict('sku:OTHER'));
  return ports;
};

const ROUND_OF = {
  batchId: BATCH,
  roundId: ROUND,
  person: cliPerson('ana.revisora'),
  statedBy: null,
  at: '2026-11-21T12:10:00.000Z',
  fileName: 'to-check.csv',
};

describe('applyDecisions', () => {
  it('decides the item, moves the row `decided`, approves the cached verdict and records one event, once under retry', async () => {
    const ports = await decidingWorld();
    const lines = [line(4, { ncm: '8471.30.19', note: 'Sem tela tátil' })];
    const first = await applyDecisions(ports, ROUND_OF, lines);
    expect(first.report).toEqual([
      expect.objectContaining({ row: 4, outcome: 'decided', classification_id: classificationId(4) }),
    ]);
    expect(first.decided).toBe(1);
    const approved = {
      check: 'approved',
      approved_ncm: '8471.30.19',
      approved_sim: '',
      decided_by: 'ana.revisora',
      decided_at: '2026-11-21T12:10:00.000Z',
      decision_note: 'Sem tela tátil',
    };
    const row = await ports.batches.getRow(BATCH, 4);
    // Status, cost and the service's own NCM unchanged.
    expect(row).toMatchObject({
      status: 'resolved',
      result: { ...approved, ncm: '8471.30.12', cost_usd: '2.00' },
    });
    expect((await ports.checks.get(BATCH, 4))?.state).toBe('decided');
    for (const key of reuseKeysOf({ product_key: 'sku:SKU-4', fingerprint: 'fp-4' }))
      expect(ports.cache.entries.get(key)?.result, key).toMatchObject(approved);
    expect(ports.cache.entries.get('sku:OTHER')?.result.check).toBeUndefined();
    const events = ports.audit.all(BATCH);
    expect(events).toEqual([
      expect.objectContaining({ row: 4, event: 'decided', who: 'ana.revisora', detail: 'NCM 8471.30.19' }),
    ]);

    // The same round retried: the same outcome and state, no second event.
    const again = await applyDecisions(ports, ROUND_OF, lines);
    expect(again.report.map((entry) => entry.outcome)).toEqual(['decided']);
    expect(await ports.batches.getRow(BATCH, 4)).toEqual(row);
    expect(ports.audit.all(BATCH)).toHaveLength(1);

    // Another round with the same file: already decided, nothing changes.
    const later = await applyDecisions(
      ports,
      { ...ROUND_OF, roundId: `${BATCH}~r0und00002`, person: cliPerson('bia') },
      [line(4, { ncm: '84713012' })],
    );
    expect(later.report.map((entry) => entry.outcome)).toEqual(['already_decided']);
    expect(later.problems.map((said) => said.code)).toEqual(['decision_already_made', 'decisions_applied']);
    expect((await ports.batches.getRow(BATCH, 4))?.result?.approved_ncm).toBe('8471.30.19');
  });

  it('keeps what another step wrote on the row between its read and the decision: the row is read again', async () => {
    const ports = await decidingWorld();
    const moveRow = ports.batches.moveRow.bind(ports.batches);
    let sweeps = 0;
    ports.batches.moveRow = async (batchId, row, move) => {
      if (move.move === 'decided' && sweeps === 0) {
        // The daily sweep confirms the SIM opening just before the decision is written.
        sweeps += 1;
        const read = (await ports.batches.getRow(batchId, row))!;
        await moveRow(batchId, row, {
          move: 'sim_confirmed',
          result: { ...read.result!, sim_code: '8471.30.12.00' },
          read_at: read.updated_at,
          at: '2026-11-21T12:05:00.000Z',
        });
      }
      return moveRow(batchId, row, move);
    };
    const applied = await applyDecisions(ports, ROUND_OF, [line(4, { ncm: '84713012' })]);
    expect(applied.report.map((entry) => entry.outcome)).toEqual(['decided']);
    expect((await ports.batches.getRow(BATCH, 4))?.result).toMatchObject({
      sim_code: '8471.30.12.00',
      check: 'approved',
      approved_ncm: '8471.30.12',
    });
  });

  it('refuses a typed NCM not in force in the report and the round messages, and changes nothing', async () => {
    const ports = await decidingWorld();
    const refused = await applyDecisions(ports, ROUND_OF, [line(4, { ncm: '84713099' })]);
    expect(refused.report).toEqual([
      expect.objectContaining({
        row: 4,
        outcome: 'ncm_not_in_force',
        detail: expect.stringMatching(
          /^Row 4: NCM 8471\.30\.99 is not in force in the NCM table of 2026-07-05/,
        ),
      }),
    ]);
    expect(refused.problems.map((said) => said.code)).toEqual([
      'decision_ncm_not_in_force',
      'decisions_applied',
    ]);
    expect((await ports.checks.get(BATCH, 4))?.state).toBe('to_check');
    expect((await ports.batches.getRow(BATCH, 4))?.result?.check).toBe('to_check');
    expect(ports.audit.all(BATCH)).toEqual([]);
  });

  it('moves only a verdict: `decided` is refused by a row of another status', () => {
    expect(() =>
      changeOf({
        move: 'decided',
        result: { status: 'failed' },
        read_at: '2026-11-21T12:00:00.000Z',
        at: '2026-11-21T12:00:00.000Z',
      }),
    ).toThrow(/no verdict to decide/);
    expect(CheckItem.parse(checkItem(4)).state).toBe('to_check');
  });
});

describe('an answers round of decisions only', () => {
  let sandbox: Sandbox;
  beforeAll(async () => {
    sandbox = await startSandbox({
      port: 0,
      timeScale: 1,
      seed: 'decisions',
      log: 'silent',
      creationDelayMs: 0,
    });
  });
  afterAll(() => sandbox.close());
  beforeEach(() => sandbox.reset());

  const reportOf = (w: AnswersWorld) =>
    Papa.parse<Record<string, string>>(
      w.objects.text(`outbox/${SEEDED}/answers-report.csv`)!.replace(/^\uFEFF/, ''),
      { header: true, skipEmptyLines: true },
    ).data;
  const resultsOf = (w: AnswersWorld, name = 'results.csv') =>
    Papa.parse<Record<string, string>>(w.objects.text(`outbox/${SEEDED}/${name}`)!.replace(/^\uFEFF/, ''), {
      header: true,
      skipEmptyLines: true,
    }).data;

  it('writes a results revision with the approved columns, posts nothing and bills nothing', async () => {
    const w: AnswersWorld = makeAnswersWorld(sandbox);
    await seedFinishedBatch(w);
    const resolved = rowOf(w, 1);
    const ncm = resolved.result!.ncm!.replace(/\./g, '');
    // Row 1's verdict marked to check, as Store marks one under check_below.
    await w.batches.moveRow(SEEDED, 1, {
      move: 'amended',
      result: { ...resolved.result!, check: 'to_check' },
      at: '2026-11-21T12:01:00.000Z',
    });
    await w.checks.create(
      checkItem(1, {
        batch_id: SEEDED,
        classification_id: resolved.classification_id!,
        ncm,
        candidates: [{ rank: 1, ncm, description: '', confidence: 70, rationale: '', chosen: true }],
      }),
    );
    const before = sandbox.stats();
    const decisions =
      'row;classification_id;decision_ncm;decision_sim;decision_note\r\n' +
      `1;${resolved.classification_id};${ncm};;conferido\r\n`;
    const event = drop(w, decisions, 'd1', 'decisions.csv');
    const prepare = await prepareAnswers(w.ports, {
      event: byCli(event, 'ana.revisora'),
      execution_id: 'exec-d1',
    });
    expect(prepare.next).toBe('finalize');
    expect(reportOf(w)).toEqual([
      expect.objectContaining({
        row: '1',
        outcome: 'decided',
        classification_id: resolved.classification_id,
      }),
    ]);
    const finalized = await finalizeAnswers(w.ports, { ...event, prepare });
    expect(finalized).toMatchObject({ revision: 1 });

    const results = resultsOf(w);
    expect(results[0]).toMatchObject({
      status: 'resolved',
      check: 'approved',
      approved_ncm: resolved.result!.ncm,
      decided_by: 'ana.revisora',
      decision_note: 'conferido',
      cost_usd: '2.00',
    });
    // The revision kept: the results as the batch first wrote them, before the decision.
    expect(resultsOf(w, 'results.rev1.csv')[0]).toMatchObject({
      status: 'resolved',
      approved_ncm: '',
      decided_by: '',
    });
    // Nothing posted, nothing created, nothing billed.
    const after = sandbox.stats();
    expect(after.billed_usd).toBe(before.billed_usd);
    expect(after.requests_by_route['POST /v1/classifications/{id}/answers'] ?? 0).toBe(
      before.requests_by_route['POST /v1/classifications/{id}/answers'] ?? 0,
    );
    expect(after.requests_by_route['POST /v1/classifications'] ?? 0).toBe(
      before.requests_by_route['POST /v1/classifications'] ?? 0,
    );
    // The round says what it did; nothing is left to check, and no file was there to empty.
    const round = await w.batches.getBatch(prepare.round_id!);
    expect(round?.problems.map((said) => said.code)).toEqual(['decisions_applied']);
    expect(w.objects.text(`outbox/${SEEDED}/to-check.csv`)).toBeUndefined();
  }, 60_000);

  it('refuses a decisions file without the classification column in one line naming the file, and decides nothing', async () => {
    const w: AnswersWorld = makeAnswersWorld(sandbox);
    await seedFinishedBatch(w);
    const event = drop(w, 'row,decision_ncm\r\n1,09012100\r\n', 'd2', 'decisoes.csv');
    const prepare = await prepareAnswers(w.ports, { event: byCli(event, 'ana'), execution_id: 'exec-d2' });
    expect(prepare.next).toBe('finalize');
    expect(reportOf(w)).toEqual([
      expect.objectContaining({
        outcome: 'file_unreadable',
        detail: expect.stringMatching(/^decisoes\.csv: the decisions file has no "classification_id" column/),
      }),
    ]);
    expect((await w.batches.getBatch(prepare.round_id!))?.state).toBe('failed');
  }, 60_000);
});
