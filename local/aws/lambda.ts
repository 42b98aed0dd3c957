/**
 * Lambda Invoke on the wire (restJson1: `POST /2015-03-31/functions/{FunctionName}/invocations`,
 * invocation type in `X-Amz-Invocation-Type`, payload as the raw body), dispatched to async
 * functions registered in this process. As Lambda answers:
 *
 *   RequestResponse  200, the function's result as JSON; a thrown error is still a 200, with
 *                    `X-Amz-Function-Error: Unhandled` and `{errorType, errorMessage, trace}`
 *   Event            202 at once; the function runs in the background and a failure goes to
 *                    the `onFunctionError` listeners (Lambda's retries are not emulated)
 *   DryRun           204
 *   unknown function 404 ResourceNotFoundException
 */
import { randomUUID } from 'node:crypto';
import { AwsError } from './errors.js';
import { errorText, type LocalAwsLog } from './log.js';
import type { RestRoute } from './router.js';

type InvocationType = 'RequestResponse' | 'Event';

/** The part of Lambda's context object the stand-in can honestly provide. */
export type LocalFunctionContext = {
  functionName: string;
  invokedFunctionArn: string;
  awsRequestId: string;
  invocationType: InvocationType;
};

export type LocalFunction = (event: unknown, context: LocalFunctionContext) => unknown;

export type FunctionErrorReport = {
  functionName: string;
  awsRequestId: string;
  invocationType: 'Event';
  error: unknown;
};

/** Payload limits of Invoke: 6 MB synchronous, 1 MB asynchronous. */
const SYNC_PAYLOAD_LIMIT = 6 * 1024 * 1024;
const ASYNC_PAYLOAD_LIMIT = 1024 * 1024;

/** `name`, `name:qualifier`, `123456789012:function:name[:q]` or a full function ARN → `name`. */
const functionNameOf = (nameOrArn: string): string => {
  const arn = /^arn:aws[a-z-]*:lambda:[^:]+:\d{12}:function:([^:]+)(?::[^:]+)?$/.exec(nameOrArn);
  if (arn?.[1]) return arn[1];
  const partial = /^\d{12}:function:([^:]+)(?::[^:]+)?$/.exec(nameOrArn);
  if (partial?.[1]) return partial[1];
  return nameOrArn.split(':')[0] ?? nameOrArn;
};

/** The body Lambda returns for an unhandled error in a Node.js function. */
const errorPayload = (error: unknown): { errorType: string; errorMessage: string; trace: string[] } => {
  if (error instanceof Error) {
    return {
      errorType: error.name,
      errorMessage: error.message,
      trace: (error.stack ?? '').split('\n').filter((line) => line.length > 0),
    };
  }
  return { errorType: typeof error, errorMessage: String(error), trace: [] };
};

export type LambdaFunctionsOptions = { region: string; accountId: string; log: LocalAwsLog };

export class LambdaFunctions {
  private readonly functions = new Map<string, LocalFunction>();
  private readonly errorListeners = new Set<(report: FunctionErrorReport) => void>();
  private readonly region: string;
  private readonly accountId: string;
  private readonly log: LocalAwsLog;

  constructor({ region, accountId, log }: LambdaFunctionsOptions) {
    this.region = region;
    this.accountId = accountId;
    this.log = log;
  }

  functionArn(name: string): string {
    return `arn:aws:lambda:${this.region}:${this.accountId}:function:${name}`;
  }

  /** Registers (or replaces) the function behind a name or ARN; returns its ARN. */
  register(nameOrArn: string, fn: LocalFunction): string {
    const name = functionNameOf(nameOrArn);
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(name)) throw new RangeError(`not a Lambda function name: ${nameOrArn}`);
    this.functions.set(name, fn);
    return this.functionArn(name);
  }

  /** Failures of Event invocations, which no caller waits for. Returns an unsubscribe. */
  onFunctionError(listener: (report: FunctionErrorReport) => void): () => void {
    this.errorListeners.add(listener);
    return () => this.errorListeners.delete(listener);
  }

  readonly route: RestRoute = {
    service: 'lambda',
    operation: 'Invoke',
    method: 'POST',
    pattern: /^\/2015-03-31\/functions\/([^/]+)\/invocations\/?$/,
    handle: async (request) => {
      const requested = request.params[0] ?? '';
      const name = functionNameOf(requested);
      const fn = this.functions.get(name);
      if (!fn) {
        throw new AwsError('ResourceNotFoundException', `Function not found: ${this.functionArn(name)}`, {
          status: 404,
        });
      }
      const typeHeader = request.headers['x-amz-invocation-type'];
      const type = typeof typeHeader === 'string' && typeHeader !== '' ? typeHeader : 'RequestResponse';
      if (type !== 'RequestResponse' && type !== 'Event' && type !== 'DryRun') {
        throw new AwsError('InvalidParameterValueException', `Invalid invocation type: ${type}`);
      }
      const limit = type === 'Event' ? ASYNC_PAYLOAD_LIMIT : SYNC_PAYLOAD_LIMIT;
      if (request.body.length > limit) {
        throw new AwsError(
          'RequestTooLargeException',
          `Request must be smaller than ${limit} bytes for the InvokeFunction operation`,
          { status: 413 },
        );
      }
      let event: unknown;
      try {
        // No payload reaches a function as an empty object, as in Lambda.
        event = request.body.length === 0 ? {} : JSON.parse(request.body.toString('utf8'));
      } catch (error) {
        throw new AwsError('InvalidRequestContentException', 'Could not parse request body into json', {
          fields: { message: `Could not parse request body into json: ${errorText(error)}` },
        });
      }
      if (type === 'DryRun') return { status: 204 };
      const context: LocalFunctionContext = {
        functionName: name,
        invokedFunctionArn: this.functionArn(name),
        awsRequestId: randomUUID(),
        invocationType: type,
      };
      if (type === 'Event') {
        this.runInBackground(fn, event, context);
        return { status: 202, headers: { 'content-type': 'application/json' } };
      }
      return this.runAndAnswer(fn, event, context);
    },
  };

  private async runAndAnswer(fn: LocalFunction, event: unknown, context: LocalFunctionContext) {
    const headers = { 'content-type': 'application/json', 'x-amz-executed-version': '$LATEST' };
    let result: unknown;
    try {
      result = await fn(event, context);
    } catch (error) {
      this.log('debug', 'lambda function failed', {
        function: context.functionName,
        error: errorText(error),
      });
      return {
        status: 200,
        headers: { ...headers, 'x-amz-function-error': 'Unhandled' },
        body: JSON.stringify(errorPayload(error)),
      };
    }
    let body: string;
    try {
      body = JSON.stringify(result) ?? 'null';
    } catch (error) {
      return {
        status: 200,
        headers: { ...headers, 'x-amz-function-error': 'Unhandled' },
        body: JSON.stringify({
          errorType: 'Runtime.MarshalError',
          errorMessage: errorText(error),
          trace: [],
        }),
      };
    }
    return { status: 200, headers, body };
  }

  private runInBackground(fn: LocalFunction, event: unknown, context: LocalFunctionContext): void {
    setImmediate(() => {
      Promise.resolve()
        .then(() => fn(event, context))
        .catch((error: unknown) => {
          this.log('warn', 'async lambda invocation failed', {
            function: context.functionName,
            request_id: context.awsRequestId,
            error: errorText(error),
          });
          const report: FunctionErrorReport = {
            functionName: context.functionName,
            awsRequestId: context.awsRequestId,
            invocationType: 'Event',
            error,
          };
          for (const listener of [...this.errorListeners]) {
            try {
              listener(report);
            } catch (listenerError) {
              this.log('error', 'onFunctionError listener threw', { error: errorText(listenerError) });
            }
          }
        });
    });
  }
}
