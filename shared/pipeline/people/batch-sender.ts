/**
 * Who sent a batch (core/people.ts): this machine's CLI user when the CLI delivered the event
 * itself, else the person the writer records name for the dropped file (the console's, else S3's
 * record of the write), as far as they are known when Prepare starts. Prepare does not wait for
 * them, so as not to hold back the first rows: a batch whose sender is not known yet names, on its
 * submissions, only the name batch.json states (`requested_by`), as `stated_by`, until Finalize
 * finds S3's record of the drop (`senderFoundSince`) and audit.csv names the sender on them.
 */
import { isUploadGrant, type Person, type WriterRecord, writerOf } from '../core/people.js';
import type { PipelinePorts } from '../core/ports.js';
import type { BatchRecord } from '../core/records.js';
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
  return senderOf(await ports.writers.find(writtenObjectOfEvent(event, key)));
};

/**
 * Who the records name as the sender: the console's or S3's person; when S3's record names one of
 * the console's own roles (a catalogue uploaded through a form the console signed), the person the
 * console gave that form for the key, else no one: a role is never a person.
 */
const senderOf = (records: readonly WriterRecord[]): Person | null => {
  const person = writerOf(records);
  if (!person || !isConsoleRole(person)) return person;
  return records.find(isUploadGrant)?.person ?? null;
};

/**
 * A role session of one of the console's functions: CloudFormation names their roles after the
 * console's stack (`NcmBatchClassifier-Console-Functions…Role…`, infra/app.ts).
 */
const isConsoleRole = (person: Person): boolean =>
  person.known_by === 'iam' && /:assumed-role\/NcmBatchClassifier-Console-[^/]*\//.test(person.id);

/**
 * Takes a batch and gives who sent it as the writer records prove it now (S3's record of the drop,
 * the console's grant for it), or null when nothing proves it yet; one read, nothing written.
 */
export const provenSenderOf = async (
  ports: Pick<PipelinePorts, 'writers'>,
  batch: Pick<BatchRecord, 'source'>,
): Promise<Person | null> => {
  const { key, version_or_etag: version } = batch.source;
  return senderOf(await ports.writers.find({ key, etag: version, versionId: version }));
};

/**
 * Takes a batch as Finalize reads it and gives it with its sender proven, when S3's record of the
 * drop has come since Prepare (CloudTrail's takes seconds to minutes): looked up once per call by
 * the file's key and version (or ETag), kept on the batch record; the batch as it was otherwise.
 * audit.csv then names that person on the submissions that named none.
 */
export const senderFoundSince = async (
  ports: Partial<Pick<PipelinePorts, 'writers'>> & Pick<PipelinePorts, 'batches'>,
  batch: BatchRecord,
): Promise<BatchRecord> => {
  if (batch.sent_by || !ports.writers) return batch;
  const person = await provenSenderOf({ writers: ports.writers }, batch);
  if (!person) return batch;
  await ports.batches.updateBatch(batch.batch_id, { sent_by: person });
  return { ...batch, sent_by: person };
};
