/**
 * The console's "To check" list and its decisions, through the console functions' handlers as API
 * Gateway calls them: identical products across batches grouped into one entry, a decision
 * written as one decisions file per batch into answers/<batch-id>/ carrying the signed-in person
 * as `answered-by` metadata and recorded as who wrote it (sub, name, email), refusals that write nothing; answers carry the person too; a
 * batch's audit read a page at a time.
 */
import Papa from 'papaparse';
import { beforeAll, describe, expect, it } from 'vitest';
import { logger, userOfClaims } from '../../../functions/console-runtime.js';
import type { AuditEvent } from '../../../shared/pipeline/core/audit-records.js';
import type { CheckItem } from '../../../shared/pipeline/core/check-records.js';
import { personOfPrincipal } from '../../../shared/pipeline/core/people.js';
import { COGNITO_CLAIMS, consoleWorld } from '../../helpers/console-world.js';
import { seedCountedBatch } from '../../helpers/counted-batch.js';
import { batchRecord, classificationId, reviewItem, rowRecord } from '../../helpers/records.js';

beforeAll(() => logger.setLogLevel('SILENT'));

const LAPTOP_FP = 'fp-notebook-14';

const item = (batchId: string, row: number, patch: Partial<CheckItem> = {}): CheckItem => ({
  batch_id: batchId,
  row,
  classification_id: 'cls_NTBK23456789',
  product_key: 'pk-notebook-14',
  fingerprint: LAPTOP_FP,
  sku: 'NB-14',
  description: 'Notebook 14 polegadas, 1,4 kg',
  title: null,
  operation: 'import',
  country: 'CN',
  reasons: ['low_confidence'],
  check_below: 80,
  ncm: '84713012',
  confidence: 67,
  candidates: [
    {
      rank: 1,
      ncm: '84713012',
      description: 'De peso inferior a 3,5 kg',
      confidence: 67,
      rationale: 'Portable machine under 3.5 kg.',
      chosen: true,
    },
    {
      rank: 2,
      ncm: '84713019',
      description: 'Outras',
      confidence: 21,
      rationale: 'Other portable machines.',
      chosen: false,
    },
  ],
  sim_options: [],
  verdict_pdf: 'pdfs/row-1.pdf',
  followers: 0,
  state: 'to_check',
  created_at: '2026-11-26T10:00:00.000Z',
  ...patch,
});

/** Two batches of the same catalogue: the second reused the first's verdict; one other product. */
const seed = async () => {
  const world = consoleWorld();
  for (const [batch_id, name] of [
    ['nightly-1', 'nightly'],
    ['nightly-2', 'nightly'],
  ] as const)
    await world.ports.batches.createBatch(batchRecord({ batch_id, name, state: 'completed' }));
  await world.ports.checks.create(item('nightly-1', 3, { followers: 1 }));
  await world.ports.checks.create(
    item('nightly-2', 3, { created_at: '2026-11-27T10:00:00.000Z', verdict_pdf: null }),
  );
  await world.ports.checks.create(
    item('nightly-1', 7, {
      classification_id: 'cls_CAFE23456789',
      product_key: 'pk-cafe',
      fingerprint: 'fp-cafe',
      sku: 'CF-1',
      description: 'Café torrado em grãos',
      reasons: ['sim_pending_choice'],
      ncm: '09012100',
      confidence: 92,
      candidates: [],
      sim_options: [
        { code: '0901210001', description: 'Em grãos' },
        { code: '0901210002', description: 'Moído' },
      ],
      created_at: '2026-11-26T11:00:00.000Z',
    }),
  );
  return world;
};

const csvOf = (world: ReturnType<typeof consoleWorld>, key: string) =>
  Papa.parse<Record<string, string>>((world.ports.objects.text(key) ?? '').replace(/^\uFEFF/, ''), {
    header: true,
    skipEmptyLines: true,
  });

const answersKeys = (world: ReturnType<typeof consoleWorld>) =>
  [...world.ports.objects.objects.keys()].filter((key) => key.startsWith('answers/'));

describe('the "To check" list', () => {
  it('groups identical products across batches into one entry, counting its rows (followers too) and batches', async () => {
    const world = await seed();

    const response = await world.call('console-read', 'GET /checks');

    expect(response.status).toBe(200);
    const [laptop, coffee] = response.body.entries;
    expect(response.body.entries).toHaveLength(2);
    expect(laptop).toMatchObject({
      row_count: 3,
      batch_count: 2,
      sku: 'NB-14',
      reasons: ['low_confidence'],
      check_below: 80,
      ncm: '84713012',
      confidence: 67,
      verdict: { batch_id: 'nightly-1', row: 3 },
      rows: [
        { batch_id: 'nightly-1', batch_name: 'nightly', row: 3, followers: 1 },
        { batch_id: 'nightly-2', batch_name: 'nightly', row: 3, followers: 0 },
      ],
    });
    expect(laptop.candidates.map((c: { ncm: string }) => c.ncm)).toEqual(['84713012', '84713019']);
    expect(coffee).toMatchObject({ row_count: 1, reasons: ['sim_pending_choice'], sim_options: [{}, {}] });
    expect(response.body.rows).toBe(4);
  });

  it('groups by fingerprint when the classifications differ, and leaves a decided item out', async () => {
    const world = await seed();
    await world.ports.checks.create(item('nightly-2', 9, { classification_id: 'cls_NTBK2345678A' }));
    await world.ports.checks.create(
      item('nightly-2', 11, { classification_id: 'cls_NTBK2345678B', fingerprint: 'fp-other' }),
    );
    await world.ports.checks.decide('nightly-2', 11, {
      ncm: '84713012',
      sim: null,
      note: '',
      by: 'ana@example.com',
      at: '2026-11-27T12:00:00.000Z',
      round_id: 'nightly-2~abc',
    });

    const response = await world.call('console-read', 'GET /checks');

    expect(response.body.entries.map((entry: { row_count: number }) => entry.row_count)).toEqual([4, 1]);
  });
});

describe('a decision from the console', () => {
  it('writes one decisions file per batch into answers/<batch-id>/, named by its content, with the signed-in person as answered-by', async () => {
    const world = await seed();

    const response = await world.call('console-answers', 'POST /decisions', {
      body: {
        rows: [
          { batch_id: 'nightly-1', row: 3 },
          { batch_id: 'nightly-2', row: 3 },
        ],
        ncm: '84713019',
        note: 'Pesa 1,4 kg; tela de 14"; = conferido',
      },
      claims: { ...COGNITO_CLAIMS, name: 'José Álvares' },
    });

    expect(response.status).toBe(201);
    expect(response.body).toMatchObject({ ncm: '84713019', sim: null });
    const keys = answersKeys(world);
    expect(keys).toHaveLength(2);
    expect(response.body.files.map((file: { key: string }) => file.key).sort()).toEqual(keys.sort());
    for (const batchId of ['nightly-1', 'nightly-2']) {
      const key = keys.find((k) => k.startsWith(`answers/${batchId}/`))!;
      expect(key).toMatch(new RegExp(`^answers/${batchId}/console-[0-9a-f]{16}\\.csv$`));
      const csv = csvOf(world, key);
      expect(csv.meta.fields).toEqual([
        'row',
        'classification_id',
        'decision_ncm',
        'decision_sim',
        'decision_note',
      ]);
      // A note beginning like a formula is kept as text (the round takes the quote back off).
      expect(csv.data).toEqual([
        {
          row: '3',
          classification_id: 'cls_NTBK23456789',
          decision_ncm: '8471.30.19',
          decision_sim: '',
          decision_note: 'Pesa 1,4 kg; tela de 14"; = conferido',
        },
      ]);
      const head = await world.ports.objects.head(key);
      expect(head?.metadata).toEqual({ 'answered-by': encodeURIComponent('José Álvares') });
      expect(decodeURIComponent(head?.metadata?.['answered-by'] ?? '')).toBe('José Álvares');
      // Who wrote it is the console's own record, under the file's ETag: the token's sub, name and email.
      const found = await world.ports.writers.find({
        key,
        etag: head!.etag.replace(/"/g, ''),
        versionId: null,
      });
      expect(found.map((record) => record.person)).toEqual([
        { name: 'José Álvares', id: COGNITO_CLAIMS.sub, known_by: 'console', email: 'ana@example.com' },
      ]);
    }
  });

  it("takes a SIM opening among the verdict's, dotted or not", async () => {
    const world = await seed();

    const response = await world.call('console-answers', 'POST /decisions', {
      body: { rows: [{ batch_id: 'nightly-1', row: 7 }], ncm: '0901.21.00', sim: '0901.21.00.02' },
    });

    expect(response.status).toBe(201);
    const [key] = answersKeys(world);
    expect(csvOf(world, key!).data[0]).toMatchObject({
      row: '7',
      decision_ncm: '0901.21.00',
      decision_sim: '0901210002',
    });
    expect((await world.ports.objects.head(key!))?.metadata?.['answered-by']).toBe(
      encodeURIComponent(COGNITO_CLAIMS.email),
    );
  });

  it.each([
    [
      'an NCM not in the NCM table in force',
      { ncm: '9999.99.99' },
      400,
      'ncm_not_in_force',
      { ncm: '9999.99.99', as_of: '2026-07-05', act: 'Resolução Gecex nº 812/2025' },
    ],
    ['an NCM that is not 8 digits', { ncm: '8471.30' }, 400, 'invalid_ncm', { ncm: '8471.30' }],
    [
      'a SIM opening the verdict does not offer',
      { ncm: '84713012', sim: '8471301299' },
      400,
      'sim_not_offered',
      { sim: '8471301299', ncm: '8471.30.12' },
    ],
  ])('refuses %s and writes nothing', async (_what, decision, status, code, params) => {
    const world = await seed();

    const response = await world.call('console-answers', 'POST /decisions', {
      body: { rows: [{ batch_id: 'nightly-1', row: 3 }], ...decision },
    });

    expect(response.status).toBe(status);
    expect(response.body).toMatchObject({ code, params });
    expect(answersKeys(world)).toEqual([]);
  });

  it('refuses the whole entry when one of its rows was decided meanwhile, naming who, and writes nothing', async () => {
    const world = await seed();
    await world.ports.checks.decide('nightly-2', 3, {
      ncm: '84713012',
      sim: null,
      note: '',
      by: 'ana@example.com',
      at: '2026-11-27T12:00:00.000Z',
      round_id: 'nightly-2~abc',
    });

    const response = await world.call('console-answers', 'POST /decisions', {
      body: {
        rows: [
          { batch_id: 'nightly-1', row: 3 },
          { batch_id: 'nightly-2', row: 3 },
        ],
        ncm: '84713012',
      },
    });

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      code: 'already_decided',
      params: { row: 3, batch_name: 'nightly', by: 'ana@example.com' },
    });
    expect(answersKeys(world)).toEqual([]);
    const missing = await world.call('console-answers', 'POST /decisions', {
      body: { rows: [{ batch_id: 'nightly-1', row: 4 }], ncm: '84713012' },
    });
    expect(missing).toMatchObject({ status: 404, body: { code: 'check_not_found', params: { row: 4 } } });
  });
});

describe('many entries approved at once', () => {
  const entries = [
    {
      rows: [
        { batch_id: 'nightly-1', row: 3 },
        { batch_id: 'nightly-2', row: 3 },
      ],
      ncm: '8471.30.12',
    },
    { rows: [{ batch_id: 'nightly-1', row: 7 }], ncm: '09012100' },
  ];

  it("writes one decisions file per batch holding every approved row at the service's own NCM, under one note", async () => {
    const world = await seed();

    const response = await world.call('console-answers', 'POST /approvals', {
      body: { entries, note: 'Conferido em lote' },
    });

    expect(response.status).toBe(201);
    expect(response.body.entries).toBe(2);
    const keys = answersKeys(world);
    expect(keys).toHaveLength(2);
    const first = csvOf(world, keys.find((key) => key.startsWith('answers/nightly-1/'))!);
    expect(first.data).toEqual([
      {
        row: '3',
        classification_id: 'cls_NTBK23456789',
        decision_ncm: '8471.30.12',
        decision_sim: '',
        decision_note: 'Conferido em lote',
      },
      {
        row: '7',
        classification_id: 'cls_CAFE23456789',
        decision_ncm: '0901.21.00',
        decision_sim: '',
        decision_note: 'Conferido em lote',
      },
    ]);
    const second = csvOf(world, keys.find((key) => key.startsWith('answers/nightly-2/'))!);
    expect(second.data.map((line) => line.row)).toEqual(['3']);
    expect(response.body.files.map((file: { rows: number[] }) => file.rows).sort()).toEqual([[3], [3, 7]]);
    // Each file names the person who approved, as a single decision's does.
    for (const key of keys) {
      const head = await world.ports.objects.head(key);
      const found = await world.ports.writers.find({
        key,
        etag: head!.etag.replace(/"/g, ''),
        versionId: null,
      });
      expect(found.map((record) => record.person.id)).toEqual([COGNITO_CLAIMS.sub]);
    }
  });

  it("refuses every entry when one's NCM is no longer the service's, and writes nothing", async () => {
    const world = await seed();

    const response = await world.call('console-answers', 'POST /approvals', {
      body: { entries: [entries[1], { ...entries[0], ncm: '84713019' }] },
    });

    expect(response.status).toBe(409);
    expect(response.body).toMatchObject({
      code: 'not_services_choice',
      params: { row: 3, ncm: '8471.30.19', services: '8471.30.12' },
    });
    expect(answersKeys(world)).toEqual([]);
  });

  it('refuses a row given in two entries, and an entry decided meanwhile, writing nothing', async () => {
    const world = await seed();
    const twice = await world.call('console-answers', 'POST /approvals', {
      body: { entries: [entries[0], entries[0]] },
    });
    expect(twice).toMatchObject({ status: 400, body: { code: 'invalid_request' } });

    await world.ports.checks.decide('nightly-1', 7, {
      ncm: '09012100',
      sim: null,
      note: '',
      by: 'ana@example.com',
      at: '2026-11-27T12:00:00.000Z',
      round_id: 'nightly-1~abc',
    });
    const decided = await world.call('console-answers', 'POST /approvals', { body: { entries } });
    expect(decided).toMatchObject({ status: 409, body: { code: 'already_decided', params: { row: 7 } } });
    expect(answersKeys(world)).toEqual([]);
  });
});

describe('the person the console names', () => {
  it("is the token's name, else its email, else its Cognito username", () => {
    const base = { sub: 's-1', iss: COGNITO_CLAIMS.iss, token_use: 'id' };
    expect(
      userOfClaims({ ...base, name: 'Ana Souza', email: 'ana@example.com', 'cognito:username': 'ana' })?.name,
    ).toBe('Ana Souza');
    expect(userOfClaims({ ...base, email: 'ana@example.com', 'cognito:username': 'ana' })?.name).toBe(
      'ana@example.com',
    );
    expect(userOfClaims({ ...base, 'cognito:username': 'ana' })?.name).toBe('ana');
  });
});

describe("a batch's audit", () => {
  const event = (row: number, kind: AuditEvent['event'], at: string, who = ''): AuditEvent => ({
    at,
    batch_id: 'nightly-1',
    row,
    event: kind,
    who,
    classification_id: 'cls_NTBK23456789',
    detail: '',
  });

  it('is read in the order events happened, a page at a time, naming who decided', async () => {
    const world = await seed();
    await world.ports.audit.record([
      event(3, 'submitted', '2026-11-26T10:00:00.000Z'),
      event(3, 'to_check', '2026-11-26T10:01:00.000Z'),
      event(3, 'decided', '2026-11-27T09:00:00.000Z', 'José Álvares'),
    ]);

    const first = await world.call('console-read', 'GET /batches/{batchId}/audit', {
      params: { batchId: 'nightly-1' },
      query: { limit: '2' },
    });
    const second = await world.call('console-read', 'GET /batches/{batchId}/audit', {
      params: { batchId: 'nightly-1' },
      query: { limit: '2', after: first.body.next },
    });

    expect(first.body.events.map((e: AuditEvent) => e.event)).toEqual(['submitted', 'to_check']);
    expect(first.body.next).toEqual(expect.any(String));
    expect(second.body).toMatchObject({
      events: [{ event: 'decided', who: 'José Álvares', row: 3 }],
      next: null,
    });
    const unknown = await world.call('console-read', 'GET /batches/{batchId}/audit', {
      params: { batchId: 'nope' },
    });
    expect(unknown).toMatchObject({ status: 404, body: { code: 'batch_not_found' } });
  });
});

describe("an audit's late sender", () => {
  it('names on the submissions the sender S3 proved after the batch finished, reading nothing when none is unnamed', async () => {
    const world = await seed();
    const principal = 'arn:aws:sts::111122223333:assumed-role/Operations/jose@acme';
    // batchRecord's source: the drop S3's record names (its ETag stands for the version).
    await world.ports.writers.record({
      key: 'inbox/nightly/products.csv',
      version_id: null,
      etag: '"e1"',
      person: personOfPrincipal(principal),
      at: '2026-11-26T10:00:05.000Z',
    });
    await world.ports.audit.record([
      {
        at: '2026-11-26T10:00:00.000Z',
        batch_id: 'nightly-1',
        row: 3,
        event: 'submitted',
        who: '',
        classification_id: null,
        detail: '',
      },
    ]);

    const page = await world.call('console-read', 'GET /batches/{batchId}/audit', {
      params: { batchId: 'nightly-1' },
    });

    expect(page.body.events).toEqual([
      expect.objectContaining({
        event: 'submitted',
        who: 'jose@acme (Operations)',
        who_id: principal,
        known_by: 'iam',
      }),
    ]);
  });
});

describe("an audit's answers and notes", () => {
  it('shows the answers a person gave and the note written with a decision, as they wrote them', async () => {
    const world = await seed();
    await world.ports.reviews.put(
      reviewItem(5, {
        batch_id: 'nightly-1',
        row: 5,
        questions: [
          { id: 'q1', text: 'Qual o material?', options: ['aço', 'latão'] },
          { id: 'q2', text: 'Para que serve?', options: [] },
        ],
        state: 'answered',
        answers: [
          { question_id: 'q1', answer: 'latão' },
          { question_id: 'q2', answer: 'Registro de água, 1/2"' },
        ],
      }),
    );
    await world.ports.checks.decide('nightly-1', 7, {
      ncm: '09012100',
      sim: null,
      note: 'Conferido com a ficha do fornecedor',
      by: 'ana@example.com',
      at: '2026-11-27T12:00:00.000Z',
      round_id: 'nightly-1~abc',
    });
    const at = '2026-11-27T12:00:00.000Z';
    await world.ports.audit.record([
      {
        at,
        batch_id: 'nightly-1',
        row: 5,
        event: 'answered',
        who: 'Ana',
        classification_id: classificationId(5),
        detail: '2 answers, round nightly-1~q',
      },
      {
        at,
        batch_id: 'nightly-1',
        row: 7,
        event: 'decided',
        who: 'Ana',
        classification_id: 'cls_CAFE23456789',
        detail: 'NCM 0901.21.00',
      },
      { at, batch_id: 'nightly-1', row: 3, event: 'submitted', who: '', classification_id: null, detail: '' },
    ]);

    const page = await world.call('console-read', 'GET /batches/{batchId}/audit', {
      params: { batchId: 'nightly-1' },
    });

    const byRow = new Map(
      (page.body.events as { row: number; answers: unknown; note: unknown }[]).map((e) => [e.row, e]),
    );
    expect(byRow.get(5)).toMatchObject({
      answers: [
        { question: 'Qual o material?', answer: 'latão' },
        { question: 'Para que serve?', answer: 'Registro de água, 1/2"' },
      ],
      note: null,
    });
    expect(byRow.get(7)).toMatchObject({ answers: null, note: 'Conferido com a ficha do fornecedor' });
    expect(byRow.get(3)).toMatchObject({ answers: null, note: null });
  });
});

describe("a batch's rows", () => {
  it('say which verdict waits for a check and which a person approved, naming them', async () => {
    const world = consoleWorld();
    await seedCountedBatch(world.ports.batches, batchRecord({ state: 'completed', rows_total: 2 }), [
      rowRecord(1, {
        status: 'resolved',
        result: { status: 'resolved', ncm: '84713012', confidence: '67', check: 'to_check' },
      }),
      rowRecord(2, {
        status: 'resolved',
        result: {
          status: 'resolved',
          ncm: '84713012',
          confidence: '67',
          check: 'approved',
          approved_ncm: '8471.30.19',
          decided_by: 'José Álvares',
        },
      }),
    ]);

    const response = await world.call('console-read', 'GET /batches/{batchId}/rows', {
      params: { batchId: 'nightly-abc' },
    });

    expect(
      response.body.rows.map((row: Record<string, unknown>) => [row.check, row.approved_ncm, row.decided_by]),
    ).toEqual([
      ['to_check', null, null],
      ['approved', '8471.30.19', 'José Álvares'],
    ]);
  });
});
