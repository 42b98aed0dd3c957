/**
 * The service's view of the classifications an answers round touches: PrepareAnswers asks it
 * before planning which rows resume, FinalizeAnswers before looking again at rows still pending.
 */
import { TcsProblemError } from '../../tcs/errors.js';
import type { Classification } from '../../tcs/schemas.js';
import type { ClassificationService } from '../core/ports.js';

/** GETs at once while looking up statuses: quick for a long review file, gentle on the service. */
const LOOKUP_CONCURRENCY = 8;

/**
 * `GET /classifications/{id}` for each id, a few at a time; null for an id the service does not
 * know (404). Any other failure throws: the workflow's Retry runs the step again.
 */
export const readClassifications = async (
  service: Pick<ClassificationService, 'getClassification'>,
  ids: readonly string[],
): Promise<Map<string, Classification | null>> => {
  const found = new Map<string, Classification | null>();
  let next = 0;
  const worker = async () => {
    while (next < ids.length) {
      const id = ids[next++]!;
      try {
        found.set(id, await service.getClassification(id));
      } catch (error) {
        if (error instanceof TcsProblemError && error.status === 404) found.set(id, null);
        else throw error;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(LOOKUP_CONCURRENCY, ids.length) }, worker));
  return found;
};
