/**
 * The queues of the SQS stand-in: standard queues only, with the rules the pipeline leans on —
 * per-message and per-queue delays, visibility timeouts that return a message, receipt
 * handles that change on every receive, receive counts and redrive to a dead-letter queue,
 * retention. No HTTP here: `sqs.ts` maps the wire calls onto these methods.
 *
 * A message's life, with the fields that say where it is:
 *
 *   send ──▶ delayed (receiveCount 0, visibleAt > now)
 *        ──▶ visible (visibleAt ≤ now) ──receive──▶ in flight (receiveCount ≥ 1, visibleAt > now,
 *                                                  receipt = the handle of that receive)
 *   in flight ──delete with that receipt──▶ gone
 *             ──visibility runs out──▶ visible again (the old receipt is now stale)
 *   visible with receiveCount ≥ maxReceiveCount ──next receive──▶ moved to the DLQ
 *   any ──MessageRetentionPeriod × timeScale after its send──▶ gone, received or not, as SQS deletes it
 *
 * Retention is the one duration scaled here, by the local runtime's time scale like its Waits and
 * timeouts: a batch that outlives the queue's 14 days of retention locally loses its messages as
 * it would on AWS. Delays are not (their senders size them: the dispatcher's through its clock, a
 * requeue's from the service's Retry-After), nor visibility timeouts, which must outlast a
 * function's real run.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import type { MonotonicClock } from '../sandbox/core/clock.js';
import { type MessageAttribute, md5Hex, md5OfMessageAttributes } from './sqs-checksums.js';
import { sqsErrors } from './sqs-errors.js';

export const SQS_LIMITS = {
  maxMessageBytes: 1_048_576,
  maxDelaySeconds: 900,
  maxVisibilitySeconds: 43_200,
  maxWaitSeconds: 20,
  maxBatchEntries: 10,
  maxMessageAttributes: 10,
};

export type StoredMessage = {
  messageId: string;
  body: string;
  md5OfBody: string;
  messageAttributes: Record<string, MessageAttribute>;
  md5OfMessageAttributes: string | null;
  /** Epoch ms of the stand-in clock, as every time below. */
  sentAt: number;
  visibleAt: number;
  receiveCount: number;
  firstReceivedAt: number | null;
  /** The handle of the latest receive; null before the first. */
  receipt: string | null;
};

export type StoredQueue = {
  name: string;
  createdAt: number;
  modifiedAt: number;
  /** Settable attributes as SQS returns them (strings), defaults not included. */
  attributes: Record<string, string>;
  /** In send order; a message keeps its place while it is in flight. */
  messages: StoredMessage[];
};

export type QueuesSnapshot = { queues: StoredQueue[] };

type RedrivePolicy = { deadLetterTargetArn: string; maxReceiveCount: number };

type QueueSettings = {
  delaySeconds: number;
  maximumMessageSize: number;
  messageRetentionSeconds: number;
  receiveWaitSeconds: number;
  visibilityTimeoutSeconds: number;
  redrive: RedrivePolicy | null;
};

const NUMERIC_ATTRIBUTES: Record<string, { min: number; max: number; fallback: number }> = {
  DelaySeconds: { min: 0, max: SQS_LIMITS.maxDelaySeconds, fallback: 0 },
  MaximumMessageSize: { min: 1024, max: SQS_LIMITS.maxMessageBytes, fallback: SQS_LIMITS.maxMessageBytes },
  MessageRetentionPeriod: { min: 60, max: 1_209_600, fallback: 345_600 },
  ReceiveMessageWaitTimeSeconds: { min: 0, max: SQS_LIMITS.maxWaitSeconds, fallback: 0 },
  VisibilityTimeout: { min: 0, max: SQS_LIMITS.maxVisibilitySeconds, fallback: 30 },
};

/** Accepted and returned as given, with no effect here (policies, encryption). */
const INERT_ATTRIBUTES = new Set([
  'Policy',
  'RedriveAllowPolicy',
  'SqsManagedSseEnabled',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
]);

const FIFO_ATTRIBUTES = new Set([
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
]);

const COMPUTED_ATTRIBUTES = [
  'ApproximateNumberOfMessages',
  'ApproximateNumberOfMessagesNotVisible',
  'ApproximateNumberOfMessagesDelayed',
  'CreatedTimestamp',
  'LastModifiedTimestamp',
  'QueueArn',
] as const;

export const SYSTEM_ATTRIBUTE_NAMES = [
  'SenderId',
  'SentTimestamp',
  'ApproximateReceiveCount',
  'ApproximateFirstReceiveTimestamp',
] as const;

/** The sender every message reports: the stand-in has no principals. */
export const SENDER_ID = 'AIDALOCALSTANDIN000000';

// ── receipt handles: opaque to callers, but they name their queue and message ────────────

const RECEIPT_PREFIX = 'lrh1';

const makeReceipt = (queueName: string, messageId: string): string =>
  [
    RECEIPT_PREFIX,
    Buffer.from(queueName).toString('base64url'),
    messageId,
    randomBytes(12).toString('hex'),
  ].join('.');

const parseReceipt = (handle: string): { queueName: string; messageId: string } | null => {
  const parts = handle.split('.');
  if (parts.length !== 4 || parts[0] !== RECEIPT_PREFIX || !parts[1] || !parts[2]) return null;
  return { queueName: Buffer.from(parts[1], 'base64url').toString('utf8'), messageId: parts[2] };
};

// ── validation ─────────────────────────────────────────────────────────────────────────

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

// Characters SQS accepts in a body (#x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF).
// A lone surrogate is outside the set as well; the `u` flag makes it fail to match.
const VALID_BODY = /^[\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]*$/u;

const parseRedrivePolicy = (value: string): RedrivePolicy => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw sqsErrors.invalidAttributeValue('RedrivePolicy', 'Redrive policy is not a valid JSON map.');
  }
  const policy = parsed as { deadLetterTargetArn?: unknown; maxReceiveCount?: unknown };
  const maxReceiveCount = Number(policy.maxReceiveCount);
  if (
    typeof policy.deadLetterTargetArn !== 'string' ||
    !policy.deadLetterTargetArn.startsWith('arn:aws:sqs:')
  ) {
    throw sqsErrors.invalidAttributeValue('RedrivePolicy', 'Dead-letter target ARN is missing or invalid.');
  }
  if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1000) {
    throw sqsErrors.invalidAttributeValue(
      'RedrivePolicy',
      'Value for maxReceiveCount must be from 1 to 1000.',
    );
  }
  return { deadLetterTargetArn: policy.deadLetterTargetArn, maxReceiveCount };
};

/** Checks settable attributes and returns them in the form SQS stores and returns. */
const normaliseAttributes = (attributes: Record<string, string>): Record<string, string> => {
  const normalised: Record<string, string> = {};
  for (const [name, value] of Object.entries(attributes)) {
    const numeric = NUMERIC_ATTRIBUTES[name];
    if (numeric) {
      const number = Number(value);
      if (value.trim() === '' || !Number.isInteger(number) || number < numeric.min || number > numeric.max) {
        throw sqsErrors.invalidAttributeValue(
          name,
          `Must be an integer from ${numeric.min} to ${numeric.max}.`,
        );
      }
      normalised[name] = String(number);
    } else if (name === 'RedrivePolicy') {
      // An empty policy removes it, as in SQS.
      if (value === '') normalised[name] = '';
      else normalised[name] = JSON.stringify(parseRedrivePolicy(value));
    } else if (INERT_ATTRIBUTES.has(name)) {
      normalised[name] = value;
    } else if (FIFO_ATTRIBUTES.has(name)) {
      if (name === 'FifoQueue' && value === 'false') continue;
      throw sqsErrors.unsupportedOperation('FIFO queues are not supported by the local SQS stand-in.');
    } else {
      throw sqsErrors.invalidAttributeName(name);
    }
  }
  return normalised;
};

const settingsOf = (queue: StoredQueue): QueueSettings => {
  const numeric = (name: string): number => {
    const value = queue.attributes[name];
    return value === undefined ? NUMERIC_ATTRIBUTES[name]!.fallback : Number(value);
  };
  const redrive = queue.attributes.RedrivePolicy;
  return {
    delaySeconds: numeric('DelaySeconds'),
    maximumMessageSize: numeric('MaximumMessageSize'),
    messageRetentionSeconds: numeric('MessageRetentionPeriod'),
    receiveWaitSeconds: numeric('ReceiveMessageWaitTimeSeconds'),
    visibilityTimeoutSeconds: numeric('VisibilityTimeout'),
    redrive: redrive ? (JSON.parse(redrive) as RedrivePolicy) : null,
  };
};

const messageAttributesSize = (attributes: Record<string, MessageAttribute>): number =>
  Object.entries(attributes).reduce(
    (total, [name, attribute]) =>
      total +
      Buffer.byteLength(name) +
      Buffer.byteLength(attribute.DataType) +
      (attribute.BinaryValue !== undefined
        ? Buffer.from(attribute.BinaryValue, 'base64').length
        : Buffer.byteLength(attribute.StringValue ?? '')),
    0,
  );

const checkMessageAttributes = (attributes: Record<string, MessageAttribute>): void => {
  const entries = Object.entries(attributes);
  if (entries.length > SQS_LIMITS.maxMessageAttributes) {
    throw sqsErrors.invalidParameterValue(
      `Number of message attributes [${entries.length}] exceeds the allowed maximum [${SQS_LIMITS.maxMessageAttributes}].`,
    );
  }
  for (const [name, attribute] of entries) {
    if (!/^[A-Za-z0-9_.-]{1,256}$/.test(name) || /^(aws\.|amazon\.)/i.test(name)) {
      throw sqsErrors.invalidParameterValue(`Message attribute name '${name}' is invalid.`);
    }
    if (!/^(String|Number|Binary)(\..+)?$/.test(attribute.DataType ?? '')) {
      throw sqsErrors.invalidParameterValue(`The type of message attribute '${name}' is invalid.`);
    }
    const isBinary = attribute.DataType.startsWith('Binary');
    const value = isBinary ? attribute.BinaryValue : attribute.StringValue;
    if (value === undefined || value === '') {
      throw sqsErrors.invalidParameterValue(
        `Message attribute '${name}' must contain a non-empty value of type '${attribute.DataType}'.`,
      );
    }
  }
};

export type SendInput = {
  body: string;
  delaySeconds?: number | undefined;
  messageAttributes?: Record<string, MessageAttribute> | undefined;
};

export type SendResult = { messageId: string; md5OfBody: string; md5OfMessageAttributes: string | null };

export type ReceiveInput = { maxMessages: number; visibilityTimeoutSeconds?: number | undefined };

export type QueueCounts = { visible: number; notVisible: number; delayed: number };

export type SqsQueuesOptions = {
  clock: MonotonicClock;
  region: string;
  accountId: string;
  /** Scales every queue's MessageRetentionPeriod (the local runtime's time scale); default 1. */
  timeScale?: number;
};

export class SqsQueues {
  private readonly queues = new Map<string, StoredQueue>();
  private readonly listeners = new Set<(queueName: string) => void>();
  private readonly clock: MonotonicClock;
  private readonly timeScale: number;
  readonly region: string;
  readonly accountId: string;

  constructor({ clock, region, accountId, timeScale = 1 }: SqsQueuesOptions) {
    if (!(Number.isFinite(timeScale) && timeScale > 0))
      throw new RangeError(`timeScale must be a number above 0, got ${timeScale}`);
    this.clock = clock;
    this.timeScale = timeScale;
    this.region = region;
    this.accountId = accountId;
  }

  /** Called after anything in a queue changed (persistence, long polls). Returns an unsubscribe. */
  onChange(listener: (queueName: string) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  queueArn(name: string): string {
    return `arn:aws:sqs:${this.region}:${this.accountId}:${name}`;
  }

  names(): string[] {
    return [...this.queues.keys()].sort();
  }

  /** Creates the queue, or returns the existing one when every given attribute matches it. */
  createQueue(
    name: string,
    attributes: Record<string, string> = {},
  ): { queue: StoredQueue; created: boolean } {
    if (name.endsWith('.fifo')) {
      throw sqsErrors.unsupportedOperation('FIFO queues are not supported by the local SQS stand-in.');
    }
    if (!QUEUE_NAME.test(name)) {
      throw sqsErrors.invalidParameterValue(
        'Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length',
      );
    }
    const normalised = normaliseAttributes(attributes);
    const existing = this.queues.get(name);
    if (existing) {
      for (const [attribute, value] of Object.entries(normalised)) {
        const current = existing.attributes[attribute] ?? this.defaultOf(attribute);
        if (current !== value) throw sqsErrors.queueNameExists(attribute);
      }
      return { queue: existing, created: false };
    }
    const now = this.clock.now();
    const queue: StoredQueue = { name, createdAt: now, modifiedAt: now, attributes: {}, messages: [] };
    this.assignAttributes(queue, normalised);
    this.queues.set(name, queue);
    this.changed(name);
    return { queue, created: true };
  }

  /** The queue a QueueUrl names (`<origin>/<account>/<name>`, any origin), or QueueDoesNotExist. */
  queueForUrl(queueUrl: string): StoredQueue {
    let name: string | undefined;
    try {
      name = new URL(queueUrl).pathname.split('/').filter(Boolean).at(-1);
    } catch {
      name = undefined;
    }
    return this.queue(name ?? '');
  }

  queue(name: string): StoredQueue {
    const queue = this.queues.get(name);
    if (!queue) throw sqsErrors.queueDoesNotExist();
    return queue;
  }

  deleteQueue(queue: StoredQueue): void {
    this.queues.delete(queue.name);
    this.changed(queue.name);
  }

  setAttributes(queue: StoredQueue, attributes: Record<string, string>): void {
    this.assignAttributes(queue, normaliseAttributes(attributes));
    queue.modifiedAt = this.clock.now();
    this.changed(queue.name);
  }

  /**
   * The requested attributes (`All` for every one). Unknown names are an error, as in SQS;
   * asking for none returns none.
   */
  attributes(queue: StoredQueue, names: readonly string[]): Record<string, string> {
    const all: Record<string, string> = {};
    for (const name of Object.keys(NUMERIC_ATTRIBUTES))
      all[name] = queue.attributes[name] ?? this.defaultOf(name);
    for (const [name, value] of Object.entries(queue.attributes)) all[name] = value;
    const counts = this.counts(queue);
    all.ApproximateNumberOfMessages = String(counts.visible);
    all.ApproximateNumberOfMessagesNotVisible = String(counts.notVisible);
    all.ApproximateNumberOfMessagesDelayed = String(counts.delayed);
    all.CreatedTimestamp = String(Math.floor(queue.createdAt / 1000));
    all.LastModifiedTimestamp = String(Math.floor(queue.modifiedAt / 1000));
    all.QueueArn = this.queueArn(queue.name);
    if (names.includes('All')) return all;
    const known = new Set<string>([
      ...Object.keys(NUMERIC_ATTRIBUTES),
      ...COMPUTED_ATTRIBUTES,
      ...INERT_ATTRIBUTES,
      ...FIFO_ATTRIBUTES,
      'RedrivePolicy',
    ]);
    const selected: Record<string, string> = {};
    for (const name of names) {
      if (!known.has(name)) throw sqsErrors.invalidAttributeName(name);
      const value = all[name];
      if (value !== undefined) selected[name] = value;
    }
    return selected;
  }

  receiveWaitSeconds(queue: StoredQueue): number {
    return settingsOf(queue).receiveWaitSeconds;
  }

  send(queue: StoredQueue, input: SendInput): SendResult {
    const settings = settingsOf(queue);
    if (input.body.length === 0) {
      throw sqsErrors.invalidParameterValue('The request must contain the parameter MessageBody.');
    }
    if (!VALID_BODY.test(input.body)) {
      throw sqsErrors.invalidMessageContents(
        'Invalid characters found. Valid unicode characters are #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF',
      );
    }
    const attributes = input.messageAttributes ?? {};
    checkMessageAttributes(attributes);
    const size = Buffer.byteLength(input.body) + messageAttributesSize(attributes);
    if (size > settings.maximumMessageSize) {
      throw sqsErrors.invalidParameterValue(
        `One or more parameters are invalid. Reason: Message must be shorter than ${settings.maximumMessageSize} bytes.`,
      );
    }
    const delaySeconds = input.delaySeconds ?? settings.delaySeconds;
    const now = this.clock.now();
    const message: StoredMessage = {
      messageId: randomUUID(),
      body: input.body,
      md5OfBody: md5Hex(Buffer.from(input.body, 'utf8')),
      messageAttributes: attributes,
      md5OfMessageAttributes: md5OfMessageAttributes(attributes),
      sentAt: now,
      visibleAt: now + delaySeconds * 1000,
      receiveCount: 0,
      firstReceivedAt: null,
      receipt: null,
    };
    queue.messages.push(message);
    this.changed(queue.name);
    return {
      messageId: message.messageId,
      md5OfBody: message.md5OfBody,
      md5OfMessageAttributes: message.md5OfMessageAttributes,
    };
  }

  /**
   * Up to `maxMessages` visible messages, now in flight with a fresh receipt handle each.
   * Never waits: long polling is the caller's loop over this (see `sqs.ts`).
   */
  receive(queue: StoredQueue, input: ReceiveInput): StoredMessage[] {
    const settings = settingsOf(queue);
    const now = this.clock.now();
    const visibilitySeconds = input.visibilityTimeoutSeconds ?? settings.visibilityTimeoutSeconds;
    const received: StoredMessage[] = [];
    let changed = this.dropExpired(queue, settings, now);
    for (const message of [...queue.messages]) {
      if (received.length >= input.maxMessages) break;
      if (message.visibleAt > now) continue;
      if (settings.redrive && message.receiveCount >= settings.redrive.maxReceiveCount) {
        // SQS moves a message that has used up its receives instead of delivering it again.
        if (this.moveToDeadLetterQueue(queue, message, settings.redrive, now)) {
          changed = true;
          continue;
        }
      }
      message.receiveCount += 1;
      message.firstReceivedAt ??= now;
      message.visibleAt = now + visibilitySeconds * 1000;
      message.receipt = makeReceipt(queue.name, message.messageId);
      received.push(message);
      changed = true;
    }
    if (changed) this.changed(queue.name);
    return received;
  }

  /**
   * Deletes the message if `receipt` is its latest receive's handle. A handle of a message
   * already gone is accepted silently, as SQS does; so is a stale handle (the message was
   * received again since), which — as the SQS docs warn — does not delete the message.
   */
  deleteMessage(queue: StoredQueue, receipt: string): 'deleted' | 'already-gone' | 'stale-receipt' {
    const { messageId } = this.parseReceiptFor(queue, receipt);
    const index = queue.messages.findIndex((message) => message.messageId === messageId);
    const message = queue.messages[index];
    if (!message) return 'already-gone';
    if (message.receipt !== receipt) return 'stale-receipt';
    queue.messages.splice(index, 1);
    this.changed(queue.name);
    return 'deleted';
  }

  /**
   * Sets how long from now the message stays invisible (0 returns it at once). Only the latest
   * receipt of a message still in flight may do that, as in SQS.
   */
  changeVisibility(queue: StoredQueue, receipt: string, visibilityTimeoutSeconds: number): void {
    const { messageId } = this.parseReceiptFor(queue, receipt);
    const message = queue.messages.find((candidate) => candidate.messageId === messageId);
    if (!message) {
      throw sqsErrors.invalidParameterValue(
        `Value ${receipt} for parameter ReceiptHandle is invalid. Reason: Message does not exist or is not available for visibility timeout change.`,
      );
    }
    if (message.receipt !== receipt) {
      throw sqsErrors.invalidParameterValue(
        `Value ${receipt} for parameter ReceiptHandle is invalid. Reason: The receipt handle has expired.`,
      );
    }
    const now = this.clock.now();
    if (message.visibleAt <= now) throw sqsErrors.messageNotInflight();
    message.visibleAt = now + visibilityTimeoutSeconds * 1000;
    this.changed(queue.name);
  }

  purge(queue: StoredQueue): void {
    queue.messages = [];
    this.changed(queue.name);
  }

  counts(queue: StoredQueue): QueueCounts {
    const now = this.clock.now();
    const counts: QueueCounts = { visible: 0, notVisible: 0, delayed: 0 };
    const retentionMs = this.retentionMs(settingsOf(queue));
    for (const message of queue.messages) {
      if (message.sentAt + retentionMs <= now) continue;
      if (message.visibleAt <= now) counts.visible += 1;
      else if (message.receiveCount > 0) counts.notVisible += 1;
      else counts.delayed += 1;
    }
    return counts;
  }

  /** When the next message of the queue becomes visible, or null if none is waiting to. */
  nextVisibleAt(queueName: string): number | null {
    const queue = this.queues.get(queueName);
    if (!queue) return null;
    const now = this.clock.now();
    let next: number | null = null;
    for (const message of queue.messages) {
      if (message.visibleAt > now && (next === null || message.visibleAt < next)) next = message.visibleAt;
    }
    return next;
  }

  snapshot(): QueuesSnapshot {
    return { queues: [...this.queues.values()] };
  }

  /** Replaces every queue with the snapshot's (a restart). */
  restore(snapshot: QueuesSnapshot): void {
    this.queues.clear();
    for (const queue of snapshot.queues) this.queues.set(queue.name, queue);
  }

  private defaultOf(attribute: string): string {
    const numeric = NUMERIC_ATTRIBUTES[attribute];
    return numeric ? String(numeric.fallback) : '';
  }

  private assignAttributes(queue: StoredQueue, normalised: Record<string, string>): void {
    for (const [name, value] of Object.entries(normalised)) {
      if (name === 'RedrivePolicy' && value === '') delete queue.attributes[name];
      else queue.attributes[name] = value;
    }
  }

  private parseReceiptFor(queue: StoredQueue, receipt: string): { messageId: string } {
    const parsed = parseReceipt(receipt);
    if (!parsed || parsed.queueName !== queue.name) throw sqsErrors.receiptHandleIsInvalid(receipt);
    return parsed;
  }

  /** How long a message is kept after its send, in the stand-in clock's milliseconds. */
  private retentionMs(settings: QueueSettings): number {
    return settings.messageRetentionSeconds * 1000 * this.timeScale;
  }

  private dropExpired(queue: StoredQueue, settings: QueueSettings, now: number): boolean {
    const retentionMs = this.retentionMs(settings);
    const before = queue.messages.length;
    queue.messages = queue.messages.filter((message) => message.sentAt + retentionMs > now);
    return queue.messages.length !== before;
  }

  /** False when the dead-letter queue does not exist: the message then stays, as in SQS. */
  private moveToDeadLetterQueue(
    source: StoredQueue,
    message: StoredMessage,
    redrive: RedrivePolicy,
    now: number,
  ): boolean {
    const targetName = redrive.deadLetterTargetArn.split(':').at(-1) ?? '';
    const target = this.queues.get(targetName);
    if (!target || target === source) return false;
    source.messages.splice(source.messages.indexOf(message), 1);
    // Same id, body and sent time (retention counts from the original enqueue); visible at
    // once with no receipt. The receive count is kept, so the DLQ shows how often it was tried.
    target.messages.push({ ...message, visibleAt: now, receipt: null });
    this.changed(target.name);
    return true;
  }

  private changed(queueName: string): void {
    for (const listener of [...this.listeners]) listener(queueName);
  }
}
