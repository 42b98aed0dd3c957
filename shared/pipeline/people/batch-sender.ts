/**
 * Who sent a batch (core/people.ts): this machine's CLI user when the CLI delivered the event
 * itself, else the person the writer records name for the dropped file (the console's, else S3's
 * record of the write), as far as they are known when Prepare starts. Prepare does not wait for
 * them, so as not to hold back the first rows: a batch whose sender is not known yet names, on its
 * submissions, only the name batch.json states (`requested_by`), as `stated_by`.
 */
import { type Person, writerOf } from '../core/people.js';
import type { PipelinePorts } from '../core/ports.js';
import { cliSenderOfEvent, writtenObjectOfEvent } from './answers-writer.js';

/**
 * Takes the batch file's Object Created event and its resolved key and gives who sent it, proven,
 * or null when nothing proves it yet; one or two reads, never a wait.
 */
export const batchSender = async (
  ports: Partial<Pick<PipelinePorts, 'writers'>>,
  event: unknown,
  key: string,
): Promise<Person | null> => {
  const cli = cliSenderOfEvent(event);
  if (cli || !ports.writers) return cli;
  const person = writerOf(await ports.writers.find(writtenObjectOfEvent(event, key)));
  // A catalogue uploaded through the console is written by the console function's role (the
  // form it signed), which is no person: the submission then names only who batch.json states.
  return person && !isConsoleRole(person) ? person : null;
};

/**
 * A role session of one of the console's functions: CloudFormation names their roles after the
 * console's stack (`NcmBatchClassifier-Console-Functions…Role…`, infra/app.ts).
 */
const isConsoleRole = (person: Person): boolean =>
  person.known_by === 'iam' && /:assumed-role\/NcmBatchClassifier-Console-[^/]*\//.test(person.id);
