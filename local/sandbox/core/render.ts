/** Records as the spec's resources (snake_case JSON, ISO dates). */
import type { ClassificationAccepted } from '../../../shared/tcs/schemas.js';
import { stageAt } from './engine.js';
import type { ClassificationRecord } from './records.js';

export type PublicUrls = {
  /** `http://127.0.0.1:PORT/v1` */
  apiBase: string;
  /** `http://127.0.0.1:PORT` */
  origin: string;
};

const iso = (ms: number): string => new Date(ms).toISOString();

const appUrlOf = (urls: PublicUrls, id: string): string => `${urls.origin}/app/classifications/${id}`;

export const renderAccepted = (record: ClassificationRecord, urls: PublicUrls): ClassificationAccepted => ({
  id: record.id,
  status: 'in_progress',
  stage: record.run!.stages[0]!,
  app_url: appUrlOf(urls, record.id),
});

/**
 * The Classification resource. Fields the spec types as "X or null" are always sent (null
 * when empty); fields typed without null that do not apply in the sandbox — `feedback`,
 * `refined_from`, `refined_to`, `version_id`, `retry_of` — are left out, as are `pdf_url`
 * and `resolved_at` until the classification is resolved.
 */
export const renderClassification = (
  record: ClassificationRecord,
  now: number,
  urls: PublicUrls,
): Record<string, unknown> => {
  const inProgress = record.status === 'in_progress';
  const resolved = record.status === 'resolved';
  return {
    id: record.id,
    status: record.status,
    stage: inProgress && record.run ? stageAt(record.run, now) : null,
    failure_reason: record.status === 'failed' ? record.failureReason : null,
    title: record.title,
    operation: record.operation,
    country: record.country,
    description: record.description,
    external_reference: record.externalReference,
    source: 'api',
    has_file: record.sheet !== null,
    file_has_text_layer: record.sheet === null ? null : record.sheet.text.trim() !== '',
    // API classifications are billed on the meter, never in plan credits.
    cost_credits: 0,
    candidates: record.candidates,
    candidates_are_provisional: record.candidatesAreProvisional,
    chosen_ncm: resolved ? record.chosenNcm : null,
    chosen_sim_code: resolved ? record.chosenSimCode : null,
    questions: record.status === 'pending_data' ? record.questions : [],
    answers: record.answers,
    tariffs: resolved ? record.tariffs : null,
    reviewed: null,
    ...(resolved ? { pdf_url: `${urls.apiBase}/classifications/${record.id}/pdf` } : {}),
    author: { type: 'api_key', key_id: record.author.keyId, name: record.author.name },
    created_at: iso(record.createdAt),
    ...(resolved && record.resolvedAt !== null ? { resolved_at: iso(record.resolvedAt) } : {}),
    deleted_at: null,
  };
};
