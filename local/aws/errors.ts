/**
 * A service error as the stand-ins raise it. The router renders it in the wire shape of the
 * service's protocol (see `router.ts`), so the SDK client raises the same exception class
 * it would against AWS.
 */
export type AwsErrorOptions = {
  /** HTTP status (default 400). */
  status?: number;
  /**
   * The awsQuery error code for query-compatible JSON services (SQS): sent as
   * `x-amzn-query-error: <code>;<Sender|Receiver>`. The SDK prefers it to `__type`.
   */
  queryCode?: string;
  /** Extra members of the error body (Lambda's `Type`, for one). */
  fields?: Record<string, unknown>;
};

export class AwsError extends Error {
  override readonly name = 'AwsError';
  readonly status: number;
  readonly queryCode: string | undefined;
  readonly fields: Record<string, unknown>;

  /** `code` is the error shape's name as the service sends it (`__type`, `x-amzn-ErrorType`). */
  constructor(
    readonly code: string,
    message: string,
    options: AwsErrorOptions = {},
  ) {
    super(message);
    this.status = options.status ?? 400;
    this.queryCode = options.queryCode;
    this.fields = options.fields ?? {};
  }

  get fault(): 'Sender' | 'Receiver' {
    return this.status >= 500 ? 'Receiver' : 'Sender';
  }
}
