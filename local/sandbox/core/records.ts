/** The sandbox's stored records: plain JSON-serialisable data, times in epoch milliseconds. */
import type {
  Answer,
  Candidate,
  FailureReason,
  KnownStatus,
  Operation,
  Question,
  Stage,
  TariffLookup,
} from '../../../shared/tcs/schemas.js';
import type { Verdict } from '../classifier/contract.js';

/** An uploaded technical sheet, as the classifier sees it. */
export type SheetRef = {
  uploadId: string;
  /** sha256 of the bytes: two uploads of the same file are the same sheet. */
  sha256: string;
  /** Text layer; '' for a scan. */
  text: string;
};

/** One run of the classifier: created at the start, applied when `endsAt` is reached. */
export type Run = {
  /** 1 for the first run, 2 for the run after the answers. */
  round: 1 | 2;
  startedAt: number;
  endsAt: number;
  /** Stages shown over the run, in equal slices of its length. */
  stages: Stage[];
  /** Decided at the start (the classifier is pure), revealed at `endsAt`. */
  verdict: Verdict;
};

export type ClassificationRecord = {
  id: string;
  orgId: string;
  author: { keyId: string; name: string };
  operation: Operation;
  country: string;
  description: string | null;
  externalReference: string | null;
  sheet: SheetRef | null;
  /** Earlier classifications of the organisation with the same input (for "fail once" triggers). */
  priorAttempts: number;
  createdAt: number;
  status: KnownStatus;
  title: string | null;
  failureReason: FailureReason | null;
  candidates: Candidate[];
  candidatesAreProvisional: boolean;
  chosenNcm: string | null;
  chosenSimCode: string | null;
  questions: Question[];
  answers: Answer[];
  tariffs: TariffLookup | null;
  resolvedAt: number | null;
  /** When `pending_data` began (the 30-day abandonment counts from here). */
  pendingSince: number | null;
  /** When the record reached a final status. */
  finishedAt: number | null;
  /** The current run while `in_progress`; the last one otherwise. */
  run: Run | null;
  /** Finished runs, oldest first (admin view). */
  history: { round: 1 | 2; startedAt: number; endsAt: number; outcome: Verdict['status'] }[];
};

export type UploadRecord = {
  id: string;
  orgId: string;
  filename: string;
  /** `byte_size` announced in `POST /uploads`; the PUT must carry exactly that many bytes. */
  declaredBytes: number;
  createdAt: number;
  expiresAt: number;
  /** Set by a successful PUT. */
  sheet: (SheetRef & { uploadedAt: number; bytes: number }) | null;
};
