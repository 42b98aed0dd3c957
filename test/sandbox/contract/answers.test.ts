/**
 * Contract: questions and answers — pending_data with questions (and a provisional
 * proposal), POST /classifications/{id}/answers, its validation and 409 conflict, one round
 * only, and abandonment after 30 days of sandbox time, unbilled.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type Sandbox, startSandbox } from '../../../local/sandbox/sandbox.js';
import {
  admin,
  api,
  creation,
  expectFieldError,
  expectProblem,
  newKey,
  PAST_ANY_RUN_SECONDS,
} from '../helpers/http.js';

let sb: Sandbox;
let client: ReturnType<typeof api>;

const DAY = 86_400;

/** Creates a classification that asks `count` questions and waits (on the clock) for them. */
const pending = async (description = 'Peças diversas para manutenção [sandbox:ask=2]') => {
  const created = await client.post('/classifications', creation({ description }), {
    idempotencyKey: newKey(),
  });
  await admin(sb).advance(PAST_ANY_RUN_SECONDS);
  const { body } = await client.get(`/classifications/${created.body.id}`);
  expect(body.status).toBe('pending_data');
  return body;
};

const answer = (id: string, answers: unknown, key = newKey('answers'), extra: Record<string, unknown> = {}) =>
  client.post(`/classifications/${id}/answers`, { answers, ...extra }, { idempotencyKey: key });

const answersFor = (questions: { id: string }[], text = 'Café torrado em grãos, não descafeinado') =>
  questions.map((q) => ({ question_id: q.id, answer: text }));

beforeAll(async () => {
  sb = await startSandbox({ log: 'silent', seed: 'contract-answers' });
  client = api(sb);
});
afterAll(() => sb.close());
beforeEach(() => admin(sb).reset());

describe('pending_data', () => {
  it('holds 1 to 5 questions, no stage, no verdict', async () => {
    const body = await pending();
    expect(body.stage).toBeNull();
    expect(body.questions).toHaveLength(2);
    for (const question of body.questions) {
      expect(Object.keys(question).sort()).toEqual(['id', 'options', 'text']);
      expect(question.id).toBeTypeOf('string');
      expect(question.text.length).toBeGreaterThan(0);
      expect(Array.isArray(question.options)).toBe(true);
    }
    expect(body.chosen_ncm).toBeNull();
    expect(body.tariffs).toBeNull();
    expect(body.answers).toEqual([]);
    expect(body.pdf_url ?? null).toBeNull();
    expectProblem(await client.get(`/classifications/${body.id}/pdf`), 'conflict', 409);
  });

  it('may carry a provisional proposal: candidates_are_provisional and is_provisional true', async () => {
    const body = await pending('Café torrado [sandbox:ask-provisional]');
    expect(body.candidates_are_provisional).toBe(true);
    expect(body.candidates.length).toBeGreaterThanOrEqual(1);
    for (const candidate of body.candidates) expect(candidate.is_provisional).toBe(true);
  });
});

describe('POST /classifications/{id}/answers', () => {
  it('202 ClassificationAccepted starting at answers_intake; the answers are kept with their question text', async () => {
    const body = await pending();
    const response = await answer(body.id, answersFor(body.questions));
    expect(response.status).toBe(202);
    expect(Object.keys(response.body).sort()).toEqual(['app_url', 'id', 'stage', 'status']);
    expect(response.body).toMatchObject({ id: body.id, status: 'in_progress', stage: 'answers_intake' });

    const running = (await client.get(`/classifications/${body.id}`)).body;
    expect(running.status).toBe('in_progress');
    expect(running.stage).toBe('answers_intake');
    expect(running.questions).toEqual([]);
    expect(running.answers).toEqual(
      body.questions.map((q: { id: string; text: string }) => ({
        question_id: q.id,
        question_text: q.text,
        answer: 'Café torrado em grãos, não descafeinado',
      })),
    );

    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const done = (await client.get(`/classifications/${body.id}`)).body;
    expect(done.status).toBe('resolved');
    expect(done.chosen_ncm).toMatch(/^\d{8}$/);
    expect(done.answers).toHaveLength(2);
  });

  it('409 conflict when the classification awaits no answers (in_progress, resolved); one round only', async () => {
    const created = await client.post('/classifications', creation(), { idempotencyKey: newKey() });
    expectProblem(await answer(created.body.id, [{ question_id: 'q1', answer: 'x' }]), 'conflict', 409);
    const body = await pending();
    expect((await answer(body.id, answersFor(body.questions))).status).toBe(202);
    expectProblem(await answer(body.id, answersFor(body.questions)), 'conflict', 409);
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    expectProblem(await answer(body.id, answersFor(body.questions)), 'conflict', 409);
  });

  it('replays with the same key and body, even after the state moved on', async () => {
    const body = await pending();
    const key = newKey('answer-replay');
    const first = await answer(body.id, answersFor(body.questions), key);
    await admin(sb).advance(PAST_ANY_RUN_SECONDS);
    const again = await answer(body.id, answersFor(body.questions), key);
    expect(again.status).toBe(202);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expectProblem(
      await answer(body.id, answersFor(body.questions, 'other'), key),
      'idempotency-key-reused',
      422,
    );
  });

  it('404 for an unknown id', async () => {
    expectProblem(await answer('cls_222222222222', [{ question_id: 'q1', answer: 'x' }]), 'not-found', 404);
  });

  describe('422 validation-error with the field in the spec form', () => {
    it('answer over 500 characters → answers[0].answer; 500 pass', async () => {
      const body = await pending('Peças diversas [sandbox:ask=1]');
      const id = body.questions[0].id;
      expectFieldError(
        await answer(body.id, [{ question_id: id, answer: 'a'.repeat(501) }]),
        'answers[0].answer',
      );
      expect((await answer(body.id, [{ question_id: id, answer: 'ã'.repeat(500) }])).status).toBe(202);
    });

    it('an unknown question id → answers[i].question_id; a missing answer → answers', async () => {
      const body = await pending();
      const [q1] = body.questions;
      expectFieldError(
        await answer(body.id, [
          { question_id: q1.id, answer: 'x' },
          { question_id: 'nope', answer: 'y' },
        ]),
        'answers[1].question_id',
      );
      expectFieldError(await answer(body.id, [{ question_id: q1.id, answer: 'x' }]), 'answers');
      expect((await client.get(`/classifications/${body.id}`)).body.status).toBe('pending_data');
    });

    it.each([
      ['no answers', [], 'answers'],
      [
        'more than 5 answers',
        Array.from({ length: 6 }, (_, i) => ({ question_id: `q${i}`, answer: 'x' })),
        'answers',
      ],
      [
        'an answer over 500 characters',
        [{ question_id: 'q1', answer: 'é'.repeat(501) }],
        'answers[0].answer',
      ],
      [
        'a field outside the spec in an answer',
        [{ question_id: 'q1', answer: 'x', note: 'n' }],
        'answers[0].note',
      ],
      [
        'the same question twice',
        [
          { question_id: 'q1', answer: 'x' },
          { question_id: 'q1', answer: 'y' },
        ],
        'answers[1].question_id',
      ],
    ])('%s → %s', async (_label, answers, field) => {
      const body = await pending();
      expectFieldError(await answer(body.id, answers), field as string);
    });

    it('a field outside the spec at the top level, and a file_url not issued here', async () => {
      const body = await pending();
      expectFieldError(
        await answer(body.id, answersFor(body.questions), newKey(), { urgent: true }),
        'urgent',
      );
      expectFieldError(
        await answer(body.id, answersFor(body.questions), newKey(), {
          file_url: 'https://example.com/x.pdf',
        }),
        'file_url',
      );
    });
  });
});

describe('abandonment', () => {
  it('a 30-day clock advance abandons a pending_data classification, unbilled', async () => {
    const body = await pending();
    // pending_data began between 5 and 35 s ago (the run ended within the 80 s advanced).
    await admin(sb).advance(30 * DAY - 40);
    expect((await client.get(`/classifications/${body.id}`)).body.status).toBe('pending_data');
    await admin(sb).advance(40);
    const abandoned = (await client.get(`/classifications/${body.id}`)).body;
    expect(abandoned.status).toBe('abandoned');
    expect(abandoned.stage).toBeNull();
    expect(abandoned.questions).toEqual([]);
    expect(abandoned.chosen_ncm).toBeNull();
    expectProblem(await answer(body.id, answersFor(body.questions)), 'conflict', 409);

    const stats = await admin(sb).stats();
    expect(stats.billed_count).toBe(0);
    expect(stats.billed_per_classification).toEqual({});
    // Abandoned ones leave the default list, and can be asked for.
    expect((await client.get('/classifications')).body.items).toEqual([]);
    expect(
      (await client.get('/classifications?status=abandoned')).body.items.map((c: { id: string }) => c.id),
    ).toEqual([body.id]);
  });

  it('one big jump applies every due transition in order', async () => {
    const created = await client.post(
      '/classifications',
      creation({ description: 'Peças diversas [sandbox:ask]' }),
      {
        idempotencyKey: newKey(),
      },
    );
    await admin(sb).advance(31 * DAY);
    expect((await client.get(`/classifications/${created.body.id}`)).body.status).toBe('abandoned');
  });
});
