/** Row workflow, Submit: uploads the sheet and creates the classification with the row attempt's key. */
import { submitRow } from '../../shared/pipeline/row/submit.js';
import { batchIdOfRowState, watchSubmissionAnswers } from '../metric-sources.js';
import { pipelineMetrics } from '../pipeline-metrics.js';
import { audit, batches, clock } from '../port-builders.js';
import { portsFor } from '../runtime.js';
import { service } from '../service-port.js';
import { wholeObjects } from '../whole-objects-port.js';

export const handler = async (state: unknown) => {
  // A 429 comes back at once (service: 'hand-back' in its description): the row returns to
  // the queue instead of holding a Lambda.
  const ports = await portsFor('row-submit', { clock, objects: wholeObjects, batches, audit, service });
  // Each 429 and refusal the service answers, counted even if Submit then fails another way.
  const answers = watchSubmissionAnswers(ports.service, batchIdOfRowState(state) ?? 'unknown');
  try {
    return await submitRow({ ...ports, service: answers.service }, state);
  } finally {
    for (const answer of answers.answers) pipelineMetrics.submissionAnswered(answer);
  }
};
