/** The batch-completed event with a mocked EventBridge client. */
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import {
  batchCompletedDetail,
  createEventBridgeBatchEvents,
} from '../../../shared/aws/eventbridge-batch-events.js';

const eventBridge = mockClient(EventBridgeClient);
const client = new EventBridgeClient({ region: 'sa-east-1' });
const summary = { batch_id: 'nightly-abc', counts: { resolved: 3, pending_data: 1 } };

beforeEach(() => eventBridge.reset());

describe('batchCompleted', () => {
  it('puts one Batch Completed event on the bus, the summary as detail', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0, Entries: [{ EventId: 'e1' }] });
    await createEventBridgeBatchEvents({ client, eventBusName: 'pipeline-bus' }).batchCompleted(summary);
    expect(eventBridge.commandCalls(PutEventsCommand)[0]?.args[0].input).toEqual({
      Entries: [
        {
          EventBusName: 'pipeline-bus',
          Source: 'ncm-batch-classifier',
          DetailType: 'Batch Completed',
          Detail: JSON.stringify(summary),
        },
      ],
    });
  });

  it('uses the configured source', async () => {
    eventBridge.on(PutEventsCommand).resolves({ FailedEntryCount: 0 });
    await createEventBridgeBatchEvents({ client, eventBusName: 'b', source: 'local.test' }).batchCompleted(
      {},
    );
    expect(eventBridge.commandCalls(PutEventsCommand)[0]?.args[0].input.Entries?.[0]?.Source).toBe(
      'local.test',
    );
  });

  it('throws with the error code when the entry was refused (PutEvents still answers 200)', async () => {
    eventBridge.on(PutEventsCommand).resolves({
      FailedEntryCount: 1,
      Entries: [{ ErrorCode: 'AccessDeniedException', ErrorMessage: 'not authorized on bus b' }],
    });
    await expect(
      createEventBridgeBatchEvents({ client, eventBusName: 'b' }).batchCompleted(summary),
    ).rejects.toThrow(
      'PutEvents refused the Batch Completed event: AccessDeniedException (not authorized on bus b)',
    );
  });
});

describe('the Batch Completed detail', () => {
  it("keeps every problem's code and parameters when their sentences would not fit an event", () => {
    const problem = (row: number) => ({
      code: 'row_longer_than_header',
      params: {
        file: 'catalogo.csv',
        line: row + 1,
        row,
        cells: 9,
        columns: 4,
        extra: ['x'.repeat(40)],
        more: 0,
      },
      text: `catalogo.csv, linha ${row + 1} (linha de dados ${row}): ${'x'.repeat(3_000)}`,
    });
    const big = {
      batch_id: 'nightly-abc',
      problems: Array.from({ length: 200 }, (_, i) => problem(i + 1)),
      warnings: [],
    };
    expect(Buffer.byteLength(JSON.stringify(big))).toBeGreaterThan(256 * 1024);

    const detail = JSON.parse(batchCompletedDetail(big));

    expect(Buffer.byteLength(JSON.stringify(detail))).toBeLessThan(240 * 1024);
    expect(detail.problems).toHaveLength(200);
    expect(detail.problems[0]).toEqual({ code: 'row_longer_than_header', params: problem(1).params });
  });

  it('is the summary as it is when it fits', () => {
    expect(batchCompletedDetail(summary)).toBe(JSON.stringify(summary));
  });
});
