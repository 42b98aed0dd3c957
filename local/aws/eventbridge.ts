/**
 * EventBridge PutEvents on the wire (AWS JSON 1.1, `x-amz-target: AWSEvents.PutEvents`).
 * Entries are recorded as the event a rule's target would receive (the EventBridge envelope)
 * and handed to `onEvent` listeners after the call has answered; matching rules to targets
 * is the local runtime's business. An entry EventBridge would refuse is reported in the
 * response with its error code, as PutEvents does, and not recorded.
 */
import { randomUUID } from 'node:crypto';
import type { MonotonicClock } from '../sandbox/core/clock.js';
import { AwsError } from './errors.js';
import { isJsonObject, readInput } from './input.js';
import { errorText, type LocalAwsLog } from './log.js';
import type { JsonRpcService } from './router.js';

/** An event as EventBridge delivers it to a target: what PutEvents records here and the local runtime's rules route. */
export type EventEnvelope = {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: unknown;
};

export type RecordedEvent = { eventBusName: string; event: EventEnvelope };

const MAX_ENTRIES = 10;
const MAX_ENTRY_BYTES = 256 * 1024;

const validationError = (message: string) => new AwsError('ValidationException', message);

export type EventBusOptions = { clock: MonotonicClock; region: string; accountId: string; log: LocalAwsLog };

export class EventBus {
  private readonly recorded: RecordedEvent[] = [];
  private readonly listeners = new Set<(event: RecordedEvent) => void>();
  private readonly clock: MonotonicClock;
  private readonly region: string;
  private readonly accountId: string;
  private readonly log: LocalAwsLog;

  constructor({ clock, region, accountId, log }: EventBusOptions) {
    this.clock = clock;
    this.region = region;
    this.accountId = accountId;
    this.log = log;
  }

  /** Every event put so far, oldest first. */
  events(): readonly RecordedEvent[] {
    return this.recorded;
  }

  /** Called for each recorded event, after PutEvents answered. Returns an unsubscribe. */
  onEvent(listener: (event: RecordedEvent) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private entryOf(raw: unknown): { ok: RecordedEvent } | { errorCode: string; errorMessage: string } {
    if (!isJsonObject(raw)) return { errorCode: 'InvalidArgument', errorMessage: 'Entry must be an object.' };
    const source = raw.Source;
    const detailType = raw.DetailType;
    const detail = raw.Detail;
    if (typeof source !== 'string' || source === '') {
      return {
        errorCode: 'InvalidArgument',
        errorMessage: 'Parameter Source is not valid. Reason: Source is a required argument.',
      };
    }
    if (typeof detailType !== 'string' || detailType === '') {
      return {
        errorCode: 'InvalidArgument',
        errorMessage: 'Parameter DetailType is not valid. Reason: DetailType is a required argument.',
      };
    }
    if (typeof detail !== 'string') {
      return {
        errorCode: 'InvalidArgument',
        errorMessage: 'Parameter Detail is not valid. Reason: Detail is a required argument.',
      };
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(detail);
    } catch {
      return { errorCode: 'MalformedDetail', errorMessage: 'Detail is malformed.' };
    }
    if (!isJsonObject(parsed)) return { errorCode: 'MalformedDetail', errorMessage: 'Detail is malformed.' };
    if (Buffer.byteLength(JSON.stringify(raw)) > MAX_ENTRY_BYTES) {
      return {
        errorCode: 'InvalidArgument',
        errorMessage: 'Total size of the entries in the request is over the limit.',
      };
    }
    const time = typeof raw.Time === 'number' ? raw.Time * 1000 : this.clock.now();
    const resources = Array.isArray(raw.Resources)
      ? raw.Resources.filter((item) => typeof item === 'string')
      : [];
    const eventBusName =
      typeof raw.EventBusName === 'string' && raw.EventBusName !== '' ? raw.EventBusName : 'default';
    return {
      ok: {
        // A bus may be named by ARN; rules see the bus by its name.
        eventBusName: eventBusName.split('/').at(-1) ?? eventBusName,
        event: {
          version: '0',
          id: randomUUID(),
          'detail-type': detailType,
          source,
          account: this.accountId,
          time: new Date(time).toISOString().replace(/\.\d{3}Z$/, 'Z'),
          region: this.region,
          resources,
          detail: parsed,
        },
      },
    };
  }

  readonly service: JsonRpcService = {
    service: 'events',
    targetPrefix: 'AWSEvents',
    jsonVersion: '1.1',
    errorMessageMember: 'message',
    operations: {
      PutEvents: (raw) => {
        const input = readInput(raw, {
          missing: (member) =>
            validationError(
              `1 validation error detected: Value null at '${member}' failed to satisfy constraint: Member must not be null`,
            ),
          invalid: (member, reason) => validationError(`Value at '${member}' ${reason}`),
        });
        const entries = input.list('Entries');
        if (entries.length < 1 || entries.length > MAX_ENTRIES) {
          throw validationError(
            `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES}`,
          );
        }
        const accepted: RecordedEvent[] = [];
        const results = entries.map((entry) => {
          const outcome = this.entryOf(entry);
          if ('ok' in outcome) {
            accepted.push(outcome.ok);
            return { EventId: outcome.ok.event.id };
          }
          return { ErrorCode: outcome.errorCode, ErrorMessage: outcome.errorMessage };
        });
        this.recorded.push(...accepted);
        for (const event of accepted) {
          this.log('debug', 'event put', {
            bus: event.eventBusName,
            source: event.event.source,
            detail_type: event.event['detail-type'],
          });
        }
        setImmediate(() => {
          for (const event of accepted) {
            for (const listener of [...this.listeners]) {
              try {
                listener(event);
              } catch (error) {
                this.log('error', 'onEvent listener threw', { error: errorText(error) });
              }
            }
          }
        });
        return {
          FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
          Entries: results,
        };
      },
    },
  };
}
