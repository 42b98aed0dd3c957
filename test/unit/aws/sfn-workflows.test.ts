/** Starting Row workflows, with a mocked Step Functions client. */
import {
  ExecutionAlreadyExists,
  SFNClient,
  SFNServiceException,
  StartExecutionCommand,
} from '@aws-sdk/client-sfn';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { createSfnRowWorkflows } from '../../../shared/aws/sfn-workflows.js';
import type { RowExecutionInput } from '../../../shared/pipeline/core/records.js';

const ARN = 'arn:aws:states:sa-east-1:123456789012:stateMachine:row';
const NOW = Date.parse('2026-11-21T12:00:00Z');

const sfn = mockClient(SFNClient);
const client = new SFNClient({ region: 'sa-east-1' });
const workflows = createSfnRowWorkflows({ client, stateMachineArn: ARN, now: () => NOW });

const input: RowExecutionInput = {
  batch_id: 'nightly-abc',
  row: 12,
  attempt: 1,
  dispatch: 2,
  row_key: 'nightly-abc:12',
  holder: 'nightly-abc:12#a1',
};
const meta = { $metadata: { httpStatusCode: 400 } };

beforeEach(() => sfn.reset());

describe('start', () => {
  it('starts an execution with the name and the input as JSON', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(NOW + 40) });
    expect(await workflows.start('nightly-abc-12-a1-d2', input)).toBe('started');
    expect(sfn.commandCalls(StartExecutionCommand)[0]?.args[0].input).toEqual({
      stateMachineArn: ARN,
      name: 'nightly-abc-12-a1-d2',
      input: JSON.stringify(input),
    });
  });

  it('reports already_started when an execution of that name exists (ended, or other input)', async () => {
    sfn
      .on(StartExecutionCommand)
      .rejects(new ExecutionAlreadyExists({ message: 'Execution Already Exists', ...meta }));
    expect(await workflows.start('n', input)).toBe('already_started');
  });

  it('reports already_started when Step Functions returns a running execution started before this call', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(NOW - 60_000) });
    expect(await workflows.start('n', input)).toBe('already_started');
  });

  it('reports started for a start date within clock skew of the call (an SDK retry of this very call)', async () => {
    sfn.on(StartExecutionCommand).resolves({ executionArn: `${ARN}:x`, startDate: new Date(NOW - 2_000) });
    expect(await workflows.start('n', input)).toBe('started');
  });

  it('lets other failures through', async () => {
    sfn.on(StartExecutionCommand).rejects(
      new SFNServiceException({
        name: 'ExecutionLimitExceeded',
        $fault: 'client',
        message: 'limit',
        ...meta,
      }),
    );
    await expect(workflows.start('n', input)).rejects.toThrow('limit');
  });
});
