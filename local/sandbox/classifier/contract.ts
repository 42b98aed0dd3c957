/**
 * The seam between the sandbox's HTTP server (state, clock, cap, idempotency, billing,
 * faults) and its simulated classifier (catalogue, verdicts, reference lookups).
 * The classifier is pure: same input, same output; no clock reads, no I/O.
 */
import type {
  Candidate,
  Country,
  FailureReason,
  Operation,
  Question,
  SimOpenings,
  TariffLookup,
} from '../../../shared/tcs/schemas.js';

export type ClassifyInput = {
  operation: Operation;
  /** ISO 3166-1 alpha-2, already validated against the accepted countries. */
  country: string;
  description: string | null;
  /**
   * Text extracted from the attached sheet: null when no sheet is attached, '' when the
   * sheet has no text layer (a scan).
   */
  sheetText: string | null;
  /** Empty on the first run; the answers given when the run follows an answers round. */
  answers: readonly { question_id: string; question_text: string; answer: string }[];
  /**
   * How many classifications of this organisation were created before this one with the
   * same operation, country, description and sheet (0 for the first). Lets a "fail once"
   * trigger fail the first attempt and resolve its retry.
   */
  priorAttempts: number;
  /** Sandbox seed; together with the input it fixes every choice. */
  seed: string;
  /** Sandbox clock when the verdict is produced (for `verified_at`, `queried_at`). */
  now: Date;
};

export type Verdict =
  | {
      status: 'resolved';
      title: string | null;
      /** 1 to 3, ranked, `is_provisional` false. */
      candidates: Candidate[];
      chosen_ncm: string;
      chosen_sim_code: string | null;
      tariffs: TariffLookup;
    }
  | {
      status: 'pending_data';
      title: string | null;
      /** 1 to 5 questions. Never returned when `answers` is non-empty (one round only). */
      questions: Question[];
      /** Empty, or a provisional proposal (`is_provisional` true on each). */
      provisional: Candidate[];
    }
  | { status: 'failed'; failure_reason: FailureReason };

export type ClassifierPort = {
  classify(input: ClassifyInput): Verdict;
  lookupTariff(query: { ncm: string; country: string; operation: Operation }, now: Date): TariffLookup;
  /**
   * `GET /sim-openings`. `registry.confirmed`: the registry has had the time to confirm an NCM it
   * was verifying (the engine decides, from when the NCM was first asked about).
   */
  lookupSimOpenings(
    query: { ncm: string; operation: Operation },
    now: Date,
    registry?: { confirmed: boolean },
  ): SimOpenings;
  /** The accepted countries (`GET /countries`). */
  countries: readonly Country[];
  /** Documented trigger phrases: what to write in a description to reach a path. */
  triggers: readonly { phrase: string; effect: string }[];
};
