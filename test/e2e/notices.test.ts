/**
 * End to end: people are told. A catalogue with a row that asks questions finishes: its outbox's
 * notifications.log says the batch finished and that questions wait, with the days before the
 * service abandons them, and the same notices reached the stack's topic (the local SNS, over its
 * wire protocol). Then the row's questions are made 22 days old (the review item's dates moved
 * back, as the calendar would have), and the daily sweep, run as the schedule runs it, writes the
 * reminder naming the row and the 8 days left; the console's inbox shows the same 8 days. Run
 * again the same day, it reminds no one twice.
 */
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_CREDENTIALS } from '../../local/runtime/loopback.js';
import { type LocalPipeline, startLocalPipeline } from '../../local/runtime/pipeline.js';
import { LOCAL_REGION } from '../../local/runtime/template.js';
import { createDynamoReviewStore } from '../../shared/aws/dynamo-review-store.js';
import type { QuestionInbox } from '../../shared/console/api.js';
import { E2E_ASSEMBLY_DIR, E2E_TIME_SCALE, makeTempDir, writeCsv } from './helpers.js';

const temp = makeTempDir('notices');
const DAY = 24 * 60 * 60 * 1000;
let pipeline: LocalPipeline;
let dynamo: DynamoDBClient;
let batchId = '';

const notificationsLog = async (): Promise<string> =>
  Buffer.from((await pipeline.outboxFile(batchId, 'notifications.log')) ?? '').toString('utf8');

/** The inbox as the console's page asks for it, signed in locally. */
const inbox = async (): Promise<QuestionInbox> => {
  const response = (await pipeline.invoke('console-read', {
    routeKey: 'GET /questions',
    requestContext: {
      authorizer: { jwt: { claims: { sub: 'local:ana', iss: 'local', token_use: 'id', name: 'Ana' } } },
    },
  })) as { statusCode: number; body: string };
  expect(response.statusCode).toBe(200);
  return JSON.parse(response.body) as QuestionInbox;
};

beforeAll(async () => {
  pipeline = await startLocalPipeline({
    dataDir: join(temp.dir, 'data'),
    fresh: true,
    timeScale: E2E_TIME_SCALE,
    assemblyDir: E2E_ASSEMBLY_DIR,
    sandbox: { seed: 'e2e-notices' },
  });
  dynamo = new DynamoDBClient({
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    endpoint: pipeline.endpoints.dynamodb,
  });
}, 300_000);

afterAll(async () => {
  dynamo?.destroy();
  await pipeline?.close();
  temp.remove();
}, 60_000);

describe('people are told', () => {
  it('that the batch finished and that questions wait, in its outbox and on the topic', async () => {
    const catalogue = join(temp.dir, 'oficina.csv');
    writeCsv(
      catalogue,
      ['SKU', 'Descrição', 'Operação', 'País'],
      [
        ['VIN-MAL', 'Vinho tinto Malbec 750 ml [sandbox:confidence=high]', 'import', 'AR'],
        ['KIT-FER', 'Kit de ferramentas para oficina mecânica [sandbox:ask=1]', 'import', 'CN'],
      ],
    );
    ({ batchId } = await pipeline.submit({ file: catalogue }));
    expect((await pipeline.waitForBatch(batchId)).state).toBe('completed');

    const told = await notificationsLog();
    expect(told).toMatch(
      / batch_finished\nLote oficina terminado\nO lote oficina terminou: 2 linhas, 1 com NCM, 1 com perguntas/,
    );
    expect(told).toMatch(
      / questions_waiting\nLote oficina: 1 pergunta espera resposta\nNo lote oficina, o classificador fez perguntas sobre linha 2\. Sem respostas, o serviço as abandona em 29 dias/,
    );
    expect(pipeline.published().map((message) => [message.attributes.kind, message.subject])).toEqual([
      ['batch_finished', 'Lote oficina terminado'],
      ['questions_waiting', 'Lote oficina: 1 pergunta espera resposta'],
    ]);
  }, 300_000);

  it('again on the reminder day, naming the row and the days left, which the console shows too; once', async () => {
    // Arrange: the row's questions asked 22 days ago, as the calendar would have it by now.
    const reviewTable = pipeline
      .describeStack('NcmBatchClassifier-Stateful')
      ?.Outputs.find((output) => output.ExportName?.endsWith(':ReviewTableName'))?.OutputValue;
    const reviews = createDynamoReviewStore({ client: dynamo, tableName: reviewTable ?? '' });
    const [item] = await reviews.listByBatch(batchId);
    expect(item?.row).toBe(2);
    const now = Date.now();
    await reviews.update(item!.classification_id, {
      created_at: new Date(now - 22 * DAY).toISOString(),
      abandons_at: new Date(now + 8 * DAY + 60 * 60_000).toISOString(),
    });

    // Act: the daily sweep, as its schedule runs it; then again the same day.
    await pipeline.invoke('sweep-reviews', { source: 'schedule' });
    await pipeline.invoke('sweep-reviews', { source: 'schedule' });

    // Assess
    const told = await notificationsLog();
    const reminders = told.split('\n\n').filter((entry) => / questions_reminder\n/.test(entry));
    expect(reminders).toHaveLength(1);
    expect(reminders[0]).toMatch(
      /^\S+ questions_reminder\nLembrete: lote oficina, perguntas abandonadas em 8 dias\nAinda sem resposta no lote oficina: linha 2\. Faltam 8 dias \(\d{4}-\d{2}-\d{2}\) para o serviço abandonar as perguntas/,
    );
    expect(pipeline.published().at(-1)?.attributes).toEqual({
      kind: 'questions_reminder',
      batch_id: batchId,
    });
    const { groups } = await inbox();
    expect(
      groups.flatMap((group) => group.rows).map((row) => [row.batch_id, row.row, row.days_left]),
    ).toEqual([[batchId, 2, 8]]);
  }, 300_000);
});
