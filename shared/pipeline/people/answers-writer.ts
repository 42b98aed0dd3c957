/**
 * Who answered: the person behind an answers file, from a source its writer cannot set
 * (core/people.ts). In order:
 *
 *   1. the CLI of this machine delivered the event itself (`detail.requester` = `cli:<user>`; on
 *      AWS an `aws.s3` event comes only from S3, whose requester is an account or a service);
 *   2. the writer records of the object version (the console's signed-in person, else the IAM
 *      principal S3's record of the write names), looked up by its key, ETag and version;
 *   3. none yet: S3's record reaches the table a little after the object's own event (seconds on
 *      AWS, CloudTrail's delivery), so the round looks again for up to a minute, then hands on
 *      (`next: "again"`) until `WRITER_WAIT_MS` after the event; after that, the account S3 named.
 *
 * The name the file states about itself (the console's or anyone's `answered-by` metadata) is kept
 * as `stated_by` beside the person, never as the person.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import * as z from 'zod';
import {
  bareEtag,
  cliPerson,
  type Person,
  unprovenPerson,
  type WrittenObject,
  writerOf,
} from '../core/people.js';
import type { PipelinePorts } from '../core/ports.js';

/** How long after the object's event a round waits for S3's record of who wrote it. */
const WRITER_WAIT_MS = 15 * 60_000;
/** How long one PrepareAnswers call looks before it hands on, and how often it looks. */
const LOOK_FOR_MS = 60_000;
const LOOK_EVERY_MS = 2_000;

/** The prefix of `detail.requester` in the events this machine's CLI delivers itself. */
export const CLI_REQUESTER_PREFIX = 'cli:';

const EventParts = z.object({
  time: z.string().optional(),
  detail: z.object({
    requester: z.string().optional(),
    object: z.object({ etag: z.string().optional(), 'version-id': z.string().optional() }),
  }),
});

/** The object version an Object Created event names, by the key as resolved (not as the event spelt it). */
export const writtenObjectOfEvent = (event: unknown, key: string): WrittenObject => {
  const parsed = EventParts.safeParse(event);
  const object = parsed.success ? parsed.data.detail.object : {};
  return {
    key,
    etag: object.etag ? bareEtag(object.etag) : null,
    versionId: object['version-id'] ?? null,
  };
};

/** `cli:<user>` in the event this machine's CLI delivered itself: that user, known by the CLI; else null. */
export const cliSenderOfEvent = (event: unknown): Person | null => {
  const parsed = EventParts.safeParse(event);
  const requester = parsed.success ? (parsed.data.detail.requester ?? null) : null;
  return requester?.startsWith(CLI_REQUESTER_PREFIX)
    ? cliPerson(requester.slice(CLI_REQUESTER_PREFIX.length))
    : null;
};

/** Who answered, or that the round must look again later (`again`). */
export type AnswersWriter = { person: Person } | { again: true };

/**
 * Takes the answers file's Object Created event and its resolved key and gives the person who
 * wrote it, from the CLI's own event, the writer records, or, once `WRITER_WAIT_MS` has passed
 * without a record, the account S3 named; `again` while it is still worth waiting.
 */
export const answersWriter = async (
  ports: Pick<PipelinePorts, 'writers' | 'clock'>,
  event: unknown,
  key: string,
): Promise<AnswersWriter> => {
  const parsed = EventParts.safeParse(event);
  const requester = parsed.success ? (parsed.data.detail.requester ?? null) : null;
  const cli = cliSenderOfEvent(event);
  if (cli) return { person: cli };

  const object = writtenObjectOfEvent(event, key);
  const found = writerOf(await ports.writers.find(object));
  if (found) return { person: found };
  // How long the record may still take: none for an event without a time, or one too old to wait for.
  const eventTime = parsed.success && parsed.data.time ? Date.parse(parsed.data.time) : Number.NaN;
  const left = ports.clock.span(WRITER_WAIT_MS) - (ports.clock.now().getTime() - eventTime);
  if (!(left > 0)) return { person: unprovenPerson(requester) };
  const lookUntil = Date.now() + Math.min(left, ports.clock.span(LOOK_FOR_MS));
  while (Date.now() < lookUntil) {
    await sleep(ports.clock.span(LOOK_EVERY_MS));
    const person = writerOf(await ports.writers.find(object));
    if (person) return { person };
  }
  return { again: true };
};
