/**
 * Zod schemas for every resource of the Tariff Classification Service v1, as its interface
 * specification ("the spec", docs/architecture.md) defines them. The schema is the type:
 * every TypeScript type of the service is inferred from here.
 *
 * Two families:
 * - Response schemas are lenient where the spec promises change: enumerations may gain
 *   values (Versioning, rule 2), so response enums are "open" (known values typed,
 *   unknown values kept as strings), and unknown fields are stripped, not rejected.
 * - Request schemas are strict: a field outside the spec, a bad format or a length
 *   outside the limits is refused before the request leaves (see `validateRequest`).
 */
import * as z from 'zod';

// ---------------------------------------------------------------------------
// Formats and limits taken from the spec
// ---------------------------------------------------------------------------

/** Crockford-like alphabet of public ids: no 0, 1, I, L, O, U. */
export const ID_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';
export const CLASSIFICATION_ID_PATTERN = /^cls_[23456789ABCDEFGHJKMNPQRSTVWXYZ]{12}$/;
const VERSION_ID_PATTERN = /^clv_[23456789ABCDEFGHJKMNPQRSTVWXYZ]{12}$/;
export const NCM_PATTERN = /^[0-9]{8}$/;
export const SIM_CODE_PATTERN = /^[0-9]{10}$/;
export const COUNTRY_PATTERN = /^[A-Z]{2}$/;
export const IDEMPOTENCY_KEY_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;
const DATE_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

export const LIMITS = {
  descriptionMin: 10,
  descriptionMax: 5000,
  externalReferenceMax: 100,
  answerMax: 500,
  answersMax: 5,
  questionsMax: 5,
  candidatesMax: 3,
  discardedAlternativesMax: 5,
  missingDataMax: 5,
  /** "10 MB". The spec does not say decimal or binary; we take 10 MiB everywhere. */
  sheetMaxBytes: 10 * 1024 * 1024,
  uploadUrlValidityMinutes: 10,
  idempotencyKeyLifetimeHours: 24,
  pageLimitMin: 1,
  pageLimitMax: 100,
  pageLimitDefault: 25,
  cursorMax: 512,
  queryMax: 120,
  pendingDataLifetimeDays: 30,
  recommendedPollSeconds: 3,
  concurrencyLimitDefault: 10,
} as const;

/** Price of one API classification when it resolves, in USD. */
export const PRICE_PER_RESOLVED_USD = 2;

/** The spec counts characters, not UTF-16 code units: "ção" is 3, an emoji is 1. */
export const characterCount = (value: string): number => Array.from(value).length;

// ---------------------------------------------------------------------------
// Building blocks
// ---------------------------------------------------------------------------

/**
 * An enumeration the service may extend. Parses any string; the inferred type keeps the
 * known values for autocompletion and exhaustiveness checks while admitting others.
 */
const openEnum = <const T extends readonly [string, ...string[]]>(_knownValues: T) =>
  z.string().min(1) as unknown as z.ZodType<T[number] | (string & {})>;

export const ClassificationId = z.string().regex(CLASSIFICATION_ID_PATTERN, 'must be a cls_ id');
const VersionId = z.string().regex(VERSION_ID_PATTERN, 'must be a clv_ id');
const Ncm = z.string().regex(NCM_PATTERN, 'must be 8 digits without dots');
const SimCode = z.string().regex(SIM_CODE_PATTERN, 'must be 10 digits');
export const CountryCode = z
  .string()
  .regex(COUNTRY_PATTERN, 'must be an ISO 3166-1 alpha-2 code in capitals');
const DateTime = z.iso.datetime({ offset: true });
const Url = z.url();

const OPERATIONS = ['import', 'export'] as const;
export const Operation = z.enum(OPERATIONS);
export type Operation = z.infer<typeof Operation>;

const KNOWN_STATUSES = ['in_progress', 'pending_data', 'resolved', 'failed', 'abandoned'] as const;
export type KnownStatus = (typeof KNOWN_STATUSES)[number];
export const ClassificationStatus = openEnum(KNOWN_STATUSES);
export type ClassificationStatus = z.infer<typeof ClassificationStatus>;

const FINAL_STATUSES: readonly KnownStatus[] = ['resolved', 'failed', 'abandoned'];
/** Spec, States: a client treats any unknown `status` value as not yet finished. */
export const isFinalStatus = (status: ClassificationStatus): boolean =>
  (FINAL_STATUSES as readonly string[]).includes(status);

const KNOWN_STAGES = ['answers_intake', 'extraction', 'retrieval', 'verdict', 'validation', 'sim'] as const;
export const Stage = openEnum(KNOWN_STAGES);
export type Stage = z.infer<typeof Stage>;

export const KNOWN_FAILURE_REASONS = [
  'unexpected_format',
  'no_valid_candidates',
  'timed_out',
  'service_unavailable',
  'unreadable_pdf',
  'persist_failed',
] as const;
export const FailureReason = openEnum(KNOWN_FAILURE_REASONS);
export type FailureReason = z.infer<typeof FailureReason>;

const ConfidenceBand = openEnum(['high', 'medium', 'low'] as const);
const SimStatus = openEnum(['verifying', 'none', 'auto_selected', 'pending_choice', 'chosen'] as const);
const SimOpeningsStatus = openEnum(['verifying', 'none', 'available'] as const);
const DutyKind = openEnum(['intrazone', 'extrazone'] as const);
const TariffNotFoundReason = openEnum(['no_data', 'not_available'] as const);
const PlanTier = openEnum(['independiente', 'estudio', 'profesional', 'enterprise'] as const);
const Source = openEnum(['app', 'api'] as const);

// ---------------------------------------------------------------------------
// Resources
// ---------------------------------------------------------------------------

const HierarchyLevel = (codePattern: RegExp | null) =>
  z
    .object({
      code: codePattern ? z.string().regex(codePattern, `must match ${codePattern.source}`) : z.string(),
      description: z.string(),
    })
    .nullable();

export const Hierarchy = z.object({
  section: HierarchyLevel(null),
  chapter: HierarchyLevel(/^\d{2}$/),
  heading: HierarchyLevel(/^\d{4}$/),
  subheading: HierarchyLevel(/^\d{6}$/),
});
export type Hierarchy = z.infer<typeof Hierarchy>;

export const SimOption = z.object({ code: SimCode, description: z.string() });
export type SimOption = z.infer<typeof SimOption>;

export const CandidateSim = z.object({
  status: SimStatus,
  code: SimCode.nullable(),
  options: z.array(SimOption),
  verified_at: DateTime.nullable(),
});
export type CandidateSim = z.infer<typeof CandidateSim>;

const DiscardedAlternative = z.object({ ncm: Ncm, description: z.string(), reason: z.string() });

const CitedNote = z.object({ id: z.string(), text: z.string() });

export const Candidate = z.object({
  rank: z.number().int().min(1).max(3),
  ncm: Ncm,
  description: z.string(),
  product_name: z.string().nullable(),
  confidence: z.number().int().min(0).max(100),
  confidence_band: ConfidenceBand,
  is_provisional: z.boolean(),
  hierarchy: Hierarchy,
  rationale: z.string(),
  applied_rules: z.array(z.string()),
  cited_notes: z.array(CitedNote),
  discarded_alternatives: z.array(DiscardedAlternative).max(LIMITS.discardedAlternativesMax),
  missing_data: z.array(z.string()).max(LIMITS.missingDataMax),
  sim: CandidateSim,
});
export type Candidate = z.infer<typeof Candidate>;

export const Question = z.object({ id: z.string().min(1), text: z.string(), options: z.array(z.string()) });
export type Question = z.infer<typeof Question>;

export const Answer = z.object({ question_id: z.string(), question_text: z.string(), answer: z.string() });
export type Answer = z.infer<typeof Answer>;

const TariffImportFound = z.object({
  found: z.literal(true),
  operation: z.literal('import'),
  import_duty_intrazone: z.number(),
  import_duty_extrazone: z.number(),
  import_duty_applicable: z.number(),
  duty_kind: DutyKind,
  statistical_rate: z.number(),
  aec: z.number().nullable(),
  source: z.string(),
  queried_at: DateTime,
});
const TariffExportFound = z.object({
  found: z.literal(true),
  operation: z.literal('export'),
  export_duty: z.number(),
  export_refund: z.number(),
  source: z.string(),
  queried_at: DateTime,
});
const TariffNotFound = z.object({
  found: z.literal(false),
  reason: TariffNotFoundReason,
  source: z.string(),
  queried_at: DateTime,
});
export const TariffLookup = z.union([TariffImportFound, TariffExportFound, TariffNotFound]);
export type TariffLookup = z.infer<typeof TariffLookup>;

const Reviewed = z.object({
  by_user_id: z.string(),
  by_name: z.string(),
  at: DateTime,
  note_internal: z.string(),
});

const Feedback = z.object({ ncm: z.string(), matches_chosen: z.boolean(), at: DateTime });

/** Person variant is specified; the API-key variant's fields are "not shown", so any object with a type. */
const Author = z.union([
  z.object({ type: z.literal('user'), user_id: z.string(), name: z.string() }),
  z.looseObject({ type: z.string() }),
]);

export const Classification = z
  .object({
    id: ClassificationId,
    status: ClassificationStatus,
    stage: Stage.nullable(),
    failure_reason: FailureReason.nullable(),
    title: z.string().nullable(),
    operation: Operation,
    country: CountryCode,
    description: z.string().nullable(),
    external_reference: z.string().nullable(),
    source: Source,
    has_file: z.boolean(),
    file_has_text_layer: z.boolean().nullable(),
    cost_credits: z.number().int().min(0).max(1),
    candidates: z.array(Candidate).max(LIMITS.candidatesMax),
    candidates_are_provisional: z.boolean(),
    chosen_ncm: Ncm.nullable(),
    chosen_sim_code: SimCode.nullable(),
    questions: z.array(Question).max(LIMITS.questionsMax),
    answers: z.array(Answer).max(LIMITS.answersMax),
    tariffs: TariffLookup.nullable(),
    // Fields whose presence depends on history or status: the spec gives their type but
    // not whether they are sent when empty, so absent and null are both accepted.
    reviewed: Reviewed.nullish(),
    feedback: Feedback.nullish(),
    refined_from: ClassificationId.nullish(),
    refined_to: ClassificationId.nullish(),
    version_id: VersionId.nullish(),
    retry_of: ClassificationId.nullish(),
    pdf_url: Url.nullish(),
    author: Author.nullish(),
    created_at: DateTime,
    resolved_at: DateTime.nullish(),
    deleted_at: z.null().optional(),
  })
  .superRefine((c, ctx) => {
    // The only invariant the pipeline leans on: a resolved classification has a verdict.
    if (c.status === 'resolved' && c.chosen_ncm === null) {
      ctx.addIssue({ code: 'custom', path: ['chosen_ncm'], message: 'must be set when status is resolved' });
    }
  });
export type Classification = z.infer<typeof Classification>;

export const SimOpenings = z.object({
  ncm: Ncm,
  operation: Operation,
  status: SimOpeningsStatus,
  openings: z.array(SimOption),
  verified_at: DateTime.nullable(),
});
export type SimOpenings = z.infer<typeof SimOpenings>;

export const Balance = z.object({
  balance_credits: z.number().int(),
  in_progress_count: z.number().int().min(0),
  concurrency_limit: z.number().int().min(1),
  plan_tier: PlanTier.nullable(),
  api_available: z.boolean(),
});
export type Balance = z.infer<typeof Balance>;

export const Country = z.object({ code: CountryCode, name: z.string(), mercosur: z.boolean() });
export type Country = z.infer<typeof Country>;
export const CountryList = z.object({ items: z.array(Country) });

export const UploadGrant = z.object({ upload_url: Url, file_url: Url, expires_at: DateTime });
export type UploadGrant = z.infer<typeof UploadGrant>;

export const ClassificationAccepted = z.object({
  id: ClassificationId,
  status: ClassificationStatus,
  stage: Stage,
  app_url: Url,
});
export type ClassificationAccepted = z.infer<typeof ClassificationAccepted>;

export const ClassificationPage = z.object({
  items: z.array(Classification),
  next_cursor: z.string().max(LIMITS.cursorMax).nullable(),
});
export type ClassificationPage = z.infer<typeof ClassificationPage>;

export const FieldError = z.object({ field: z.string(), code: z.string(), message: z.string() });
export type FieldError = z.infer<typeof FieldError>;

/** RFC 9457 Problem record. Parsed leniently: an error body must always yield an error. */
export const Problem = z.object({
  type: z.string(),
  title: z.string().optional(),
  status: z.number().int().optional(),
  detail: z.string().optional(),
  instance: z.string().optional(),
  request_id: z.string().optional(),
  errors: z.array(FieldError).optional(),
});
export type Problem = z.infer<typeof Problem>;

/** The error catalogue: `type` name to HTTP status. */
export const PROBLEM_CATALOGUE = {
  'validation-error': 422,
  'idempotency-key-invalid': 422,
  'idempotency-key-reused': 422,
  'idempotency-key-in-flight': 409,
  unauthenticated: 401,
  'insufficient-scope': 403,
  'plan-without-api': 403,
  'api-suspended': 403,
  'subscription-inactive': 403,
  'organization-archived': 403,
  'terms-acceptance-required': 403,
  forbidden: 403,
  'not-found': 404,
  conflict: 409,
  'payload-too-large': 413,
  'unsupported-media-type': 415,
  'rate-limited': 429,
  'internal-error': 500,
  'upstream-unavailable': 502,
  'classifier-unavailable': 503,
  maintenance: 503,
} as const;
export type ProblemName = keyof typeof PROBLEM_CATALOGUE;
export const PROBLEM_NAMES = Object.keys(PROBLEM_CATALOGUE) as ProblemName[];
export const isProblemName = (name: string): name is ProblemName => Object.hasOwn(PROBLEM_CATALOGUE, name);

// ---------------------------------------------------------------------------
// Requests (strict: nothing outside the spec leaves this process)
// ---------------------------------------------------------------------------

const Description = z
  .string()
  .refine((v) => characterCount(v) >= LIMITS.descriptionMin, {
    message: `must be at least ${LIMITS.descriptionMin} characters`,
    params: { code: 'too_short' },
  })
  .refine((v) => characterCount(v) <= LIMITS.descriptionMax, {
    message: `must be at most ${LIMITS.descriptionMax} characters`,
    params: { code: 'too_long' },
  });

const ExternalReference = z.string().refine((v) => characterCount(v) <= LIMITS.externalReferenceMax, {
  message: `must be at most ${LIMITS.externalReferenceMax} characters`,
  params: { code: 'too_long' },
});

export const IdempotencyKey = z
  .string()
  .regex(IDEMPOTENCY_KEY_PATTERN, 'must be 16 to 128 characters of A-Z, a-z, 0-9, - and _');

export const CreateClassificationRequest = z
  .strictObject({
    operation: Operation,
    country: CountryCode,
    description: Description.nullable().optional(),
    file_url: Url.nullable().optional(),
    external_reference: ExternalReference.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    if (body.description == null && body.file_url == null) {
      ctx.addIssue({
        code: 'custom',
        path: ['description'],
        message: 'at least one of description and file_url is required',
        params: { code: 'required' },
      });
    }
  });
export type CreateClassificationRequest = z.input<typeof CreateClassificationRequest>;

export const AnswerQuestionsRequest = z
  .strictObject({
    answers: z
      .array(
        z.strictObject({
          question_id: z.string().min(1, 'is required'),
          answer: z.string().refine((v) => characterCount(v) <= LIMITS.answerMax, {
            message: `must be at most ${LIMITS.answerMax} characters`,
            params: { code: 'too_long' },
          }),
        }),
      )
      .min(1, 'must hold one answer per question')
      .max(LIMITS.answersMax, `must hold at most ${LIMITS.answersMax} answers`),
    file_url: Url.nullable().optional(),
  })
  .superRefine((body, ctx) => {
    const seen = new Set<string>();
    body.answers.forEach((a, i) => {
      if (seen.has(a.question_id)) {
        ctx.addIssue({
          code: 'custom',
          path: ['answers', i, 'question_id'],
          message: 'answers the same question twice',
          params: { code: 'duplicate' },
        });
      }
      seen.add(a.question_id);
    });
  });
export type AnswerQuestionsRequest = z.input<typeof AnswerQuestionsRequest>;

export const UploadRequest = z.strictObject({
  content_type: z.literal('application/pdf', { message: 'only application/pdf is accepted' }),
  byte_size: z
    .number()
    .int()
    .min(1, 'must be at least 1 byte')
    .max(LIMITS.sheetMaxBytes, `must be at most ${LIMITS.sheetMaxBytes} bytes (10 MB)`),
  filename: z.string().min(1, 'is required'),
});
export type UploadRequest = z.input<typeof UploadRequest>;

/** `YYYY-MM-DD` that names a real day (2026-02-30 is refused, not rolled over). */
const CalendarDate = z.string().refine(
  (v) => {
    if (!DATE_PATTERN.test(v)) return false;
    const d = new Date(`${v}T00:00:00Z`);
    return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
  },
  { message: 'must be a date YYYY-MM-DD', params: { code: 'invalid_date' } },
);

export const SORT_FIELDS = [
  'created_at',
  'title',
  'ncm',
  'confidence',
  'status',
  'author',
  'country',
  'operation',
] as const;
const SortField = z.enum(SORT_FIELDS);
const Sort = z.strictObject({ field: SortField, direction: z.enum(['asc', 'desc']) });

export const ListClassificationsQuery = z.strictObject({
  limit: z.number().int().min(LIMITS.pageLimitMin).max(LIMITS.pageLimitMax).optional(),
  q: z
    .string()
    .refine((v) => characterCount(v) <= LIMITS.queryMax, {
      message: `must be at most ${LIMITS.queryMax} characters`,
      params: { code: 'too_long' },
    })
    .optional(),
  operation: Operation.optional(),
  country: CountryCode.optional(),
  status: z.array(z.enum(KNOWN_STATUSES)).min(1).optional(),
  reviewed: z.boolean().optional(),
  created_after: CalendarDate.optional(),
  created_before: CalendarDate.optional(),
  sort: Sort.optional(),
});
export type ListClassificationsQuery = z.input<typeof ListClassificationsQuery>;

export const Cursor = z.string().min(1).max(LIMITS.cursorMax);

export const TariffQuery = z.strictObject({ ncm: Ncm, country: CountryCode, operation: Operation });
export type TariffQuery = z.input<typeof TariffQuery>;

export const SimOpeningsQuery = z.strictObject({ ncm: Ncm, operation: Operation });
export type SimOpeningsQuery = z.input<typeof SimOpeningsQuery>;

// ---------------------------------------------------------------------------
// Field paths in the spec's form
// ---------------------------------------------------------------------------

/** `['answers', 0, 'answer']` → `answers[0].answer`, the form of the spec's `errors[].field`. */
export const formatFieldPath = (path: readonly PropertyKey[]): string =>
  path.reduce<string>((acc, key) => {
    if (typeof key === 'number') return `${acc}[${key}]`;
    const name = String(key);
    return acc === '' ? name : `${acc}.${name}`;
  }, '');

/** Zod issues as the spec's `errors` elements. */
export const toFieldErrors = (error: z.ZodError): FieldError[] =>
  error.issues.flatMap((issue): FieldError[] => {
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        field: formatFieldPath([...issue.path, key]),
        code: 'unknown_field',
        message: 'is not a field of this request',
      }));
    }
    const custom = (issue as { params?: { code?: unknown } }).params?.code;
    return [
      {
        field: formatFieldPath(issue.path) || '(body)',
        code: typeof custom === 'string' ? custom : issue.code,
        message: issue.message,
      },
    ];
  });
