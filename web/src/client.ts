/**
 * The API, as shared/console/api.ts writes it: every call names its route key
 * (`GET /batches/{batchId}`), fills the path parameters, and parses the answer with the
 * route's schema. A refusal becomes an ApiError carrying the ConsoleProblem.
 */
import type * as z from 'zod';
import {
  AnswerSheetForm,
  type AnswerSheetRequest,
  AnswersAccepted,
  type AnswersSubmission,
  ApprovalAccepted,
  type ApprovalSubmission,
  AuditPage,
  BatchList,
  BatchView,
  CheckList,
  ConsoleProblem,
  type ConsoleRouteKey,
  DecisionAccepted,
  type DecisionSubmission,
  DownloadLink,
  PlanRun,
  QuestionInbox,
  ResendAccepted,
  type ResendSubmission,
  RowDetail,
  RowList,
  SessionView,
  type UploadForm,
  UploadPlan,
  type UploadRequest,
} from '../../shared/console/web-contract.js';
import type { SignIn } from './auth.js';
import type { ConsoleConfig } from './config.js';

/** A refusal: the API's problem when it sent one, else what went wrong on the way. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly problem: ConsoleProblem | null,
    message: string,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

type Query = Record<string, string | number | undefined>;

const pathOf = (key: ConsoleRouteKey, params: Record<string, string | number>): string => {
  const template = key.slice(key.indexOf(' ') + 1);
  return template.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`${key}: no value for {${name}}`);
    return encodeURIComponent(String(value));
  });
};

const problemOf = async (response: Response): Promise<ApiError> => {
  const text = await response.text().catch(() => '');
  let problem: ConsoleProblem | null = null;
  try {
    const parsed = ConsoleProblem.safeParse(JSON.parse(text));
    if (parsed.success) problem = parsed.data;
  } catch {
    // Not JSON: API Gateway's own answers ({"message":"Unauthorized"}) or a proxy's page.
  }
  return new ApiError(
    response.status,
    problem,
    problem?.detail ?? (text.slice(0, 300) || response.statusText),
  );
};

/** The API at config.apiUrl; with a sign-in (AWS), every call carries its ID token. */
export const createApi = (config: ConsoleConfig, signIn: SignIn | null) => {
  const call = async <S extends z.ZodType>(
    key: ConsoleRouteKey,
    schema: S,
    options: { params?: Record<string, string | number>; query?: Query; body?: unknown } = {},
  ): Promise<z.infer<S>> => {
    const method = key.slice(0, key.indexOf(' '));
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined && value !== '') search.set(name, String(value));
    }
    const url = `${config.apiUrl}${pathOf(key, options.params ?? {})}${search.size > 0 ? `?${search}` : ''}`;
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (options.body !== undefined) headers['Content-Type'] = 'application/json';
    if (signIn) {
      const token = await signIn.idToken();
      if (token === null) return signIn.leaveToSignIn();
      headers.Authorization = `Bearer ${token}`;
    }
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
      });
    } catch (error) {
      throw new ApiError(0, null, error instanceof Error ? error.message : String(error));
    }
    if (response.status === 401 && signIn) await signIn.signInAgain();
    if (!response.ok) throw await problemOf(response);
    return schema.parse(await response.json());
  };

  return {
    session: () => call('GET /session', SessionView),
    batches: (after?: string) => call('GET /batches', BatchList, { query: { after } }),
    batch: (batchId: string) => call('GET /batches/{batchId}', BatchView, { params: { batchId } }),
    rows: (
      batchId: string,
      query: {
        status?: readonly string[];
        q?: string;
        /** Only rows with a code not in the NCM table in force. */
        notInForce?: boolean;
        divergent?: boolean;
        after?: number;
        limit?: number;
      },
    ) =>
      call('GET /batches/{batchId}/rows', RowList, {
        params: { batchId },
        query: {
          status: query.status?.join(','),
          q: query.q?.trim(),
          not_in_force: query.notInForce ? '1' : undefined,
          divergent: query.divergent ? '1' : undefined,
          after: query.after,
          limit: query.limit,
        },
      }),
    questions: () => call('GET /questions', QuestionInbox),
    uploads: (request: UploadRequest) => call('POST /uploads', UploadPlan, { body: request }),
    runPlan: (batchId: string) => call('POST /batches/{batchId}/run', PlanRun, { params: { batchId } }),
    answerSheet: (request: AnswerSheetRequest) =>
      call('POST /answer-sheets', AnswerSheetForm, { body: request }),
    fileLink: (batchId: string, file: string) =>
      call('GET /batches/{batchId}/files/{file}', DownloadLink, { params: { batchId, file } }),
    row: (batchId: string, row: number) =>
      call('GET /batches/{batchId}/rows/{row}', RowDetail, { params: { batchId, row } }),
    verdictLink: (batchId: string, row: number) =>
      call('GET /batches/{batchId}/rows/{row}/verdict', DownloadLink, { params: { batchId, row } }),
    answers: (submission: AnswersSubmission) => call('POST /answers', AnswersAccepted, { body: submission }),
    checks: () => call('GET /checks', CheckList),
    decide: (submission: DecisionSubmission) =>
      call('POST /decisions', DecisionAccepted, { body: submission }),
    approve: (submission: ApprovalSubmission) =>
      call('POST /approvals', ApprovalAccepted, { body: submission }),
    resend: (submission: ResendSubmission) => call('POST /resends', ResendAccepted, { body: submission }),
    audit: (batchId: string, after?: string) =>
      call('GET /batches/{batchId}/audit', AuditPage, { params: { batchId }, query: { after } }),
  };
};
export type Api = ReturnType<typeof createApi>;

/** Sends one file through a presigned POST: every field first, the file last as `file`. */
export const sendForm = async (form: UploadForm, file: Blob): Promise<void> => {
  const body = new FormData();
  for (const [name, value] of Object.entries(form.fields)) body.append(name, value);
  body.append('file', file);
  let response: Response;
  try {
    response = await fetch(form.url, { method: 'POST', body });
  } catch (error) {
    throw new ApiError(0, null, error instanceof Error ? error.message : String(error));
  }
  if (!response.ok) {
    const text = await response.text().catch(() => '');
    // S3 answers in XML: <Error><Code>EntityTooLarge</Code><Message>…</Message></Error>.
    const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1];
    const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1];
    throw new ApiError(
      response.status,
      null,
      [code, message].filter(Boolean).join(': ') || `HTTP ${response.status}`,
    );
  }
};
