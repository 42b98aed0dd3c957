/**
 * The sandbox's core: classifications as a state machine driven by the sandbox clock, the
 * per-organisation concurrency cap, uploads, idempotency records and the billing meter.
 * No HTTP here; the server layer translates requests into these calls and results into
 * responses.
 *
 * Time. A record's status is a function of the clock, so the engine advances lazily: every
 * call first replays, in sandbox-time order, each transition that became due (a run ending,
 * a `pending_data` reaching 30 days). Billing, the in-progress gauge and its integral are
 * applied at the transition's own time, so a `POST /__admin/clock` jump of a month gives the
 * same figures as living through that month.
 *
 *   create ─▶ in_progress ──run ends──▶ resolved (billed once) | failed | pending_data
 *                  ▲                                                 │
 *                  └────────────── answers (takes a slot) ◀──────────┤
 *                                                                     └─30 days─▶ abandoned
 */
import type { FieldError, KnownStatus, SimOpenings, Stage } from '../../../shared/tcs/schemas.js';
import { LIMITS } from '../../../shared/tcs/schemas.js';
import type { ClassifierPort, ClassifyInput, Verdict } from '../classifier/contract.js';
import { DAY_MS, MINUTE_MS, type MonotonicClock } from './clock.js';
import { type DoneEntry, IdempotencyStore } from './idempotency.js';
import { BillingMeter, ConcurrencyGauge, type GaugeSnapshot, type MeterSnapshot } from './meter.js';
import { ORGANIZATIONS } from './organizations.js';
import { hashUnit, publicId } from './random.js';
import type { ClassificationRecord, Run, SheetRef, UploadRecord } from './records.js';

const PENDING_DATA_LIFETIME_MS = LIMITS.pendingDataLifetimeDays * DAY_MS;
const UPLOAD_URL_VALIDITY_MS = LIMITS.uploadUrlValidityMinutes * MINUTE_MS;
/** A run lasts 45 to 75 s (about a minute, as the spec says) before the time scale. */
const RUN_MIN_MS = 45_000;
const RUN_SPREAD_MS = 30_000;

const FULL_RUN: readonly Stage[] = ['extraction', 'retrieval', 'verdict', 'validation', 'sim'];
/** Where a failing run stops, so the stages a poller sees fit the failure. */
const STAGES_BEFORE_FAILURE: Record<string, readonly Stage[]> = {
  unreadable_pdf: ['extraction'],
  service_unavailable: ['extraction', 'retrieval'],
  unexpected_format: ['extraction', 'retrieval', 'verdict'],
  timed_out: ['extraction', 'retrieval', 'verdict'],
  no_valid_candidates: ['extraction', 'retrieval', 'verdict', 'validation'],
  persist_failed: FULL_RUN,
};

const stagesFor = (verdict: Verdict, round: 1 | 2): Stage[] => {
  const stages =
    verdict.status === 'resolved'
      ? FULL_RUN
      : verdict.status === 'pending_data'
        ? FULL_RUN.slice(0, 3)
        : (STAGES_BEFORE_FAILURE[verdict.failure_reason] ?? FULL_RUN.slice(0, 3));
  return round === 2 ? ['answers_intake', ...stages] : [...stages];
};

/** The stage a run shows at `now`: its stages in equal slices of its length. */
export const stageAt = (run: Run, now: number): Stage => {
  const length = Math.max(1, run.endsAt - run.startedAt);
  const index = Math.floor(((now - run.startedAt) / length) * run.stages.length);
  return run.stages[Math.min(run.stages.length - 1, Math.max(0, index))]!;
};

export type EngineOptions = {
  clock: MonotonicClock;
  classifier: ClassifierPort;
  seed: string;
  timeScale: number;
  concurrencyLimit: number;
  /**
   * The simulated SIM registry confirms an NCM it is verifying this long (sandbox ms) after
   * `GET /sim-openings` first asked about it; until then it answers `verifying`. Default: a day.
   */
  simConfirmAfterMs?: number;
  /** Called after every change of state (persistence hooks here). */
  onChange?: () => void;
};

export type CreateInput = {
  orgId: string;
  author: { keyId: string; name: string };
  operation: 'import' | 'export';
  country: string;
  description: string | null;
  externalReference: string | null;
  sheet: SheetRef | null;
};

export type CapExceeded = { kind: 'cap'; retryAfterSeconds: number };

export type AnswerResult =
  | { kind: 'accepted'; record: ClassificationRecord }
  | { kind: 'not_found' }
  | { kind: 'conflict'; status: string }
  | { kind: 'invalid'; errors: FieldError[] }
  | CapExceeded;

type DueEvent = { at: number; seq: number; id: string; kind: 'run_end' | 'abandon' };

/** A binary min-heap of due events by time (then insertion order, for determinism). */
class EventQueue {
  private heap: DueEvent[] = [];
  private seq = 0;

  push(event: Omit<DueEvent, 'seq'>): void {
    const heap = this.heap;
    heap.push({ ...event, seq: this.seq++ });
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!EventQueue.before(heap[i]!, heap[parent]!)) break;
      [heap[i], heap[parent]] = [heap[parent]!, heap[i]!];
      i = parent;
    }
  }

  /** Removes and returns the earliest event due at or before `now`. */
  popDue(now: number): DueEvent | undefined {
    const heap = this.heap;
    const top = heap[0];
    if (!top || top.at > now) return undefined;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const left = 2 * i + 1;
        const right = left + 1;
        let smallest = i;
        if (left < heap.length && EventQueue.before(heap[left]!, heap[smallest]!)) smallest = left;
        if (right < heap.length && EventQueue.before(heap[right]!, heap[smallest]!)) smallest = right;
        if (smallest === i) break;
        [heap[i], heap[smallest]] = [heap[smallest]!, heap[i]!];
        i = smallest;
      }
    }
    return top;
  }

  clear(): void {
    this.heap = [];
  }

  private static before(a: DueEvent, b: DueEvent): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
}

export type EngineSnapshot = {
  generation: number;
  classificationSequence: number;
  uploadSequence: number;
  classifications: ClassificationRecord[];
  uploads: UploadRecord[];
  idempotency: Record<string, DoneEntry>;
  meter: MeterSnapshot;
  gauge: GaugeSnapshot;
  created: Record<string, number>;
  /** When `GET /sim-openings` first asked about each NCM (absent in states saved before it was kept). */
  simAsked?: Record<string, number>;
};

export type OrganizationStats = {
  in_progress_now: number;
  in_progress_max: number;
  created: number;
  billed_count: number;
  billed_usd: number;
  billed_per_classification: Record<string, number>;
  slot_seconds: number;
  by_status: Record<string, number>;
};

export class ClassificationEngine {
  readonly idempotency = new IdempotencyStore();
  private records = new Map<string, ClassificationRecord>();
  private uploads = new Map<string, UploadRecord>();
  private meter = new BillingMeter();
  private gauge = new ConcurrencyGauge();
  private created = new Map<string, number>();
  private simAsked = new Map<string, number>();
  private queue = new EventQueue();
  /** Bumped by `reset`, so ids issued after a reset never repeat earlier ones. */
  private generation = 0;
  private classificationSequence = 0;
  private uploadSequence = 0;

  constructor(private readonly options: EngineOptions) {}

  get concurrencyLimit(): number {
    return this.options.concurrencyLimit;
  }

  get timeScale(): number {
    return this.options.timeScale;
  }

  // -------------------------------------------------------------------------
  // Time
  // -------------------------------------------------------------------------

  /** Applies every transition due by now, in time order, and returns now. */
  advance(): number {
    const now = this.options.clock.now();
    let changed = false;
    for (let event = this.queue.popDue(now); event; event = this.queue.popDue(now)) {
      const record = this.records.get(event.id);
      if (!record) continue;
      if (event.kind === 'run_end' && record.status === 'in_progress' && record.run?.endsAt === event.at) {
        this.finishRun(record, record.run, event.at);
        changed = true;
      } else if (
        event.kind === 'abandon' &&
        record.status === 'pending_data' &&
        record.pendingSince !== null &&
        record.pendingSince + PENDING_DATA_LIFETIME_MS === event.at
      ) {
        record.status = 'abandoned';
        record.questions = [];
        record.pendingSince = null;
        record.finishedAt = event.at;
        changed = true;
      }
    }
    this.gauge.settle(now);
    if (changed) this.options.onChange?.();
    return now;
  }

  private finishRun(record: ClassificationRecord, run: Run, at: number): void {
    this.gauge.change(record.orgId, -1, at);
    const verdict = run.verdict;
    record.history.push({ round: run.round, startedAt: run.startedAt, endsAt: at, outcome: verdict.status });
    switch (verdict.status) {
      case 'resolved':
        record.status = 'resolved';
        record.title = verdict.title;
        record.candidates = verdict.candidates;
        record.candidatesAreProvisional = false;
        record.chosenNcm = verdict.chosen_ncm;
        record.chosenSimCode = verdict.chosen_sim_code;
        record.tariffs = verdict.tariffs;
        record.resolvedAt = at;
        record.finishedAt = at;
        // The meter refuses a second charge for the same id; the transition happens once anyway.
        this.meter.bill(record.orgId, record.id);
        return;
      case 'pending_data':
        record.status = 'pending_data';
        record.title = verdict.title;
        record.questions = verdict.questions;
        record.candidates = verdict.provisional;
        record.candidatesAreProvisional = verdict.provisional.length > 0;
        record.pendingSince = at;
        this.queue.push({ at: at + PENDING_DATA_LIFETIME_MS, id: record.id, kind: 'abandon' });
        return;
      case 'failed':
        record.status = 'failed';
        record.failureReason = verdict.failure_reason;
        record.candidates = [];
        record.candidatesAreProvisional = false;
        record.finishedAt = at;
        return;
    }
  }

  // -------------------------------------------------------------------------
  // Classifications
  // -------------------------------------------------------------------------

  /** API classifications of the organisation in progress now. */
  inProgressCount(orgId: string): number {
    this.advance();
    return this.countInProgress(orgId);
  }

  private countInProgress(orgId: string): number {
    return this.gauge.figures(orgId).in_progress_now;
  }

  /** Seconds until the organisation's earliest run ends (when a slot frees), at least 1. */
  private capExceeded(orgId: string, now: number): CapExceeded {
    let earliest = Number.POSITIVE_INFINITY;
    for (const record of this.records.values()) {
      if (record.orgId === orgId && record.status === 'in_progress' && record.run) {
        earliest = Math.min(earliest, record.run.endsAt);
      }
    }
    const seconds = Number.isFinite(earliest) ? Math.ceil((earliest - now) / 1000) : 1;
    return { kind: 'cap', retryAfterSeconds: Math.max(1, seconds) };
  }

  private startRun(
    record: ClassificationRecord,
    round: 1 | 2,
    now: number,
  ): { ok: true; run: Run } | { ok: false; error: unknown } {
    const lengthMs = RUN_MIN_MS + RUN_SPREAD_MS * hashUnit(this.options.seed, 'run', record.id, round);
    const endsAt = now + Math.max(1, Math.round(lengthMs * this.options.timeScale));
    const input: ClassifyInput = {
      operation: record.operation,
      country: record.country,
      description: record.description,
      sheetText: record.sheet ? record.sheet.text : null,
      answers: record.answers,
      priorAttempts: record.priorAttempts,
      seed: this.options.seed,
      now: new Date(endsAt),
    };
    let verdict: Verdict;
    try {
      verdict = this.options.classifier.classify(input);
    } catch (error) {
      return { ok: false, error };
    }
    // One round of questions only (spec): a second request for data is a classifier bug,
    // shown to the caller as the failure it would be in production.
    if (round === 2 && verdict.status === 'pending_data') {
      verdict = { status: 'failed', failure_reason: 'unexpected_format' };
    }
    return { ok: true, run: { round, startedAt: now, endsAt, stages: stagesFor(verdict, round), verdict } };
  }

  private nextClassificationId(): string {
    for (;;) {
      const id = publicId(
        'cls_',
        this.options.seed,
        'classification',
        this.generation,
        this.classificationSequence++,
      );
      if (!this.records.has(id)) return id;
    }
  }

  /** Creates a classification, or refuses it when the organisation's cap is reached. */
  create(input: CreateInput): { kind: 'created'; record: ClassificationRecord } | CapExceeded {
    const now = this.advance();
    if (this.countInProgress(input.orgId) >= this.options.concurrencyLimit) {
      return this.capExceeded(input.orgId, now);
    }
    let priorAttempts = 0;
    for (const other of this.records.values()) {
      if (
        other.orgId === input.orgId &&
        other.operation === input.operation &&
        other.country === input.country &&
        other.description === input.description &&
        (other.sheet?.sha256 ?? null) === (input.sheet?.sha256 ?? null)
      ) {
        priorAttempts++;
      }
    }
    const record: ClassificationRecord = {
      id: this.nextClassificationId(),
      orgId: input.orgId,
      author: input.author,
      operation: input.operation,
      country: input.country,
      description: input.description,
      externalReference: input.externalReference,
      sheet: input.sheet,
      priorAttempts,
      createdAt: now,
      status: 'in_progress',
      title: null,
      failureReason: null,
      candidates: [],
      candidatesAreProvisional: false,
      chosenNcm: null,
      chosenSimCode: null,
      questions: [],
      answers: [],
      tariffs: null,
      resolvedAt: null,
      pendingSince: null,
      finishedAt: null,
      run: null,
      history: [],
    };
    const started = this.startRun(record, 1, now);
    if (!started.ok) throw started.error;
    record.run = started.run;
    this.records.set(record.id, record);
    this.created.set(input.orgId, (this.created.get(input.orgId) ?? 0) + 1);
    this.gauge.change(input.orgId, 1, now);
    this.queue.push({ at: started.run.endsAt, id: record.id, kind: 'run_end' });
    this.options.onChange?.();
    return { kind: 'created', record };
  }

  /** The organisation's classification, or undefined (absent or another organisation's). */
  get(orgId: string, id: string): ClassificationRecord | undefined {
    this.advance();
    const record = this.records.get(id);
    return record && record.orgId === orgId ? record : undefined;
  }

  /** Any organisation's classification (a signed URL authorises by its signature, not by a key). */
  find(id: string): ClassificationRecord | undefined {
    this.advance();
    return this.records.get(id);
  }

  /** Every classification of the organisation, current as of now. */
  listOf(orgId: string): ClassificationRecord[] {
    this.advance();
    return [...this.records.values()].filter((r) => r.orgId === orgId);
  }

  /** Every classification of every organisation (admin view). */
  all(): ClassificationRecord[] {
    this.advance();
    return [...this.records.values()];
  }

  /** Answers the questions of a `pending_data` classification and starts its second run. */
  answer(
    orgId: string,
    id: string,
    body: { answers: readonly { question_id: string; answer: string }[]; sheet: SheetRef | null },
  ): AnswerResult {
    const now = this.advance();
    const record = this.records.get(id);
    if (!record || record.orgId !== orgId) return { kind: 'not_found' };
    if (record.status !== 'pending_data') return { kind: 'conflict', status: record.status };
    const byId = new Map(record.questions.map((q) => [q.id, q]));
    const errors: FieldError[] = [];
    body.answers.forEach((answer, i) => {
      if (!byId.has(answer.question_id)) {
        errors.push({
          field: `answers[${i}].question_id`,
          code: 'unknown_question',
          message: `is not the id of one of this classification's questions (${[...byId.keys()].join(', ')})`,
        });
      }
    });
    const answered = new Set(body.answers.map((a) => a.question_id));
    const missing = record.questions.filter((q) => !answered.has(q.id)).map((q) => q.id);
    if (errors.length === 0 && missing.length > 0) {
      errors.push({
        field: 'answers',
        code: 'missing_answers',
        message: `must hold one answer per question; missing: ${missing.join(', ')}`,
      });
    }
    if (errors.length > 0) return { kind: 'invalid', errors };
    if (this.countInProgress(orgId) >= this.options.concurrencyLimit) return this.capExceeded(orgId, now);

    const answers = body.answers.map((a) => ({
      question_id: a.question_id,
      question_text: byId.get(a.question_id)!.text,
      answer: a.answer,
    }));
    const next: ClassificationRecord = { ...record, answers, sheet: body.sheet ?? record.sheet };
    const started = this.startRun(next, 2, now);
    if (!started.ok) throw started.error;
    Object.assign(record, next, {
      status: 'in_progress' satisfies KnownStatus,
      questions: [],
      pendingSince: null,
      run: started.run,
    });
    this.gauge.change(orgId, 1, now);
    this.queue.push({ at: started.run.endsAt, id: record.id, kind: 'run_end' });
    this.options.onChange?.();
    return { kind: 'accepted', record };
  }

  // -------------------------------------------------------------------------
  // Uploads
  // -------------------------------------------------------------------------

  grantUpload(orgId: string, filename: string, declaredBytes: number): UploadRecord {
    const now = this.advance();
    let id: string;
    do id = publicId('upl_', this.options.seed, 'upload', this.generation, this.uploadSequence++);
    while (this.uploads.has(id));
    const upload: UploadRecord = {
      id,
      orgId,
      filename,
      declaredBytes,
      createdAt: now,
      expiresAt: now + UPLOAD_URL_VALIDITY_MS,
      sheet: null,
    };
    this.uploads.set(id, upload);
    this.options.onChange?.();
    return upload;
  }

  upload(id: string): UploadRecord | undefined {
    return this.uploads.get(id);
  }

  storeSheet(id: string, sheet: { sha256: string; text: string; bytes: number }): void {
    const upload = this.uploads.get(id);
    if (!upload) return;
    upload.sheet = {
      uploadId: id,
      sha256: sheet.sha256,
      text: sheet.text,
      bytes: sheet.bytes,
      uploadedAt: this.advance(),
    };
    this.options.onChange?.();
  }

  /**
   * `GET /sim-openings`: the registry's answer, confirmed for an NCM it was verifying once
   * `simConfirmAfterMs` have passed since the NCM was first asked about.
   */
  simOpenings(query: { ncm: string; operation: 'import' | 'export' }): SimOpenings {
    const now = this.advance();
    const first = this.simAsked.get(query.ncm);
    if (first === undefined) {
      this.simAsked.set(query.ncm, now);
      this.options.onChange?.();
    }
    const confirmed = now - (first ?? now) >= (this.options.simConfirmAfterMs ?? DAY_MS);
    return this.options.classifier.lookupSimOpenings(query, new Date(now), { confirmed });
  }

  // -------------------------------------------------------------------------
  // Figures, snapshots, reset
  // -------------------------------------------------------------------------

  stats(orgId: string): OrganizationStats {
    this.advance();
    const byStatus: Record<string, number> = {};
    for (const record of this.records.values()) {
      if (record.orgId === orgId) byStatus[record.status] = (byStatus[record.status] ?? 0) + 1;
    }
    return {
      ...this.gauge.figures(orgId),
      created: this.created.get(orgId) ?? 0,
      ...this.meter.summary(orgId),
      by_status: byStatus,
    };
  }

  /** Organisations with any activity, the configured ones first. */
  activeOrganizations(): string[] {
    const seen = new Set([...this.created.keys(), ...this.gauge.organizations()]);
    return ORGANIZATIONS.map((o) => o.id).filter((id) => seen.has(id));
  }

  snapshot(): EngineSnapshot {
    return structuredClone({
      generation: this.generation,
      classificationSequence: this.classificationSequence,
      uploadSequence: this.uploadSequence,
      classifications: [...this.records.values()],
      uploads: [...this.uploads.values()],
      idempotency: this.idempotency.snapshot(),
      meter: this.meter.snapshot(),
      gauge: this.gauge.snapshot(),
      created: Object.fromEntries(this.created),
      simAsked: Object.fromEntries(this.simAsked),
    });
  }

  restore(snapshot: EngineSnapshot): void {
    const copy = structuredClone(snapshot);
    this.clearState();
    this.generation = copy.generation;
    this.classificationSequence = copy.classificationSequence;
    this.uploadSequence = copy.uploadSequence;
    for (const record of copy.classifications) {
      this.records.set(record.id, record);
      // The queue is derived state: rebuild it from the records.
      if (record.status === 'in_progress' && record.run) {
        this.queue.push({ at: record.run.endsAt, id: record.id, kind: 'run_end' });
      } else if (record.status === 'pending_data' && record.pendingSince !== null) {
        this.queue.push({
          at: record.pendingSince + PENDING_DATA_LIFETIME_MS,
          id: record.id,
          kind: 'abandon',
        });
      }
    }
    for (const upload of copy.uploads) this.uploads.set(upload.id, upload);
    this.idempotency.restore(copy.idempotency);
    this.meter.restore(copy.meter);
    this.gauge.restore(copy.gauge);
    this.created = new Map(Object.entries(copy.created));
    this.simAsked = new Map(Object.entries(copy.simAsked ?? {}));
  }

  /** Forgets everything (`POST /__admin/reset`). */
  reset(): void {
    this.clearState();
    this.generation++;
    this.options.onChange?.();
  }

  private clearState(): void {
    this.records.clear();
    this.uploads.clear();
    this.idempotency.clear();
    this.meter = new BillingMeter();
    this.gauge = new ConcurrencyGauge();
    this.created.clear();
    this.simAsked.clear();
    this.queue.clear();
    this.classificationSequence = 0;
    this.uploadSequence = 0;
  }
}
