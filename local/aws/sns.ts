/**
 * SNS, as much as the pipeline uses: `Publish` to a topic, over the Query protocol the SDK speaks
 * to SNS (a form-encoded POST to `/`, an XML answer). Each message is kept, in order, with its
 * subject and attributes, for whoever listens (the local runtime, a test); nothing is delivered:
 * locally the notices people read are the batch's notifications.log and `classify --status`.
 */
import { randomUUID } from 'node:crypto';
import { AwsError } from './errors.js';
import type { RestRoute } from './router.js';

/** One message a topic took. */
export type PublishedMessage = {
  messageId: string;
  topicArn: string;
  subject: string | null;
  message: string;
  attributes: Record<string, string>;
};

const xml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/** `MessageAttributes.entry.N.Name` and `….Value.StringValue` → name → value. */
const attributesOf = (form: URLSearchParams): Record<string, string> => {
  const attributes: Record<string, string> = {};
  for (let n = 1; form.has(`MessageAttributes.entry.${n}.Name`); n++) {
    const name = form.get(`MessageAttributes.entry.${n}.Name`) ?? '';
    attributes[name] = form.get(`MessageAttributes.entry.${n}.Value.StringValue`) ?? '';
  }
  return attributes;
};

/** The topics of the template and what was published to them. */
export class SnsTopics {
  readonly #topics = new Set<string>();
  readonly #published: PublishedMessage[] = [];
  readonly #listeners = new Set<(message: PublishedMessage) => void>();

  /** Makes a topic exist (its ARN as the template resolves it). */
  createTopic(topicArn: string): void {
    this.#topics.add(topicArn);
  }

  /** Each message published, after the call answered. Returns an unsubscribe. */
  onPublish(listener: (message: PublishedMessage) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  published(): readonly PublishedMessage[] {
    return this.#published;
  }

  readonly route: RestRoute = {
    service: 'sns',
    operation: 'Query',
    method: 'POST',
    pattern: /^\/$/,
    handle: (request) => {
      try {
        return this.#publish(new URLSearchParams(request.body.toString('utf8')));
      } catch (error) {
        if (!(error instanceof AwsError)) throw error;
        // The Query protocol's error shape, which the SDK reads into the exception's name.
        return {
          status: error.status,
          headers: { 'content-type': 'text/xml' },
          body:
            `<ErrorResponse><Error><Type>${error.fault}</Type><Code>${xml(error.code)}</Code>` +
            `<Message>${xml(error.message)}</Message></Error><RequestId>${randomUUID()}</RequestId></ErrorResponse>`,
        };
      }
    },
  };

  #publish(form: URLSearchParams) {
    const action = form.get('Action');
    if (action !== 'Publish')
      throw new AwsError('InvalidAction', `The local SNS knows only Publish, not ${action ?? 'no action'}.`);
    const topicArn = form.get('TopicArn') ?? '';
    if (!this.#topics.has(topicArn))
      throw new AwsError('NotFound', `Topic does not exist: ${topicArn}`, { status: 404 });
    const subject = form.get('Subject');
    if (subject !== null && (subject.length >= 100 || /[^\x20-\x7e]/.test(subject)))
      throw new AwsError('InvalidParameter', 'Invalid parameter: Subject', { status: 400 });
    const published: PublishedMessage = {
      messageId: randomUUID(),
      topicArn,
      subject,
      message: form.get('Message') ?? '',
      attributes: attributesOf(form),
    };
    this.#published.push(published);
    queueMicrotask(() => {
      for (const listener of this.#listeners) listener(published);
    });
    return {
      status: 200,
      headers: { 'content-type': 'text/xml' },
      body:
        '<PublishResponse xmlns="http://sns.amazonaws.com/doc/2010-03-31/"><PublishResult>' +
        `<MessageId>${xml(published.messageId)}</MessageId></PublishResult>` +
        `<ResponseMetadata><RequestId>${randomUUID()}</RequestId></ResponseMetadata></PublishResponse>`,
    };
  }
}
