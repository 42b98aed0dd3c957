/**
 * A verdict a person checks before it is used, as zod schemas.
 *
 *   a product's rows in a batch (resolved or reused, `check: to_check`) ──N:1── check item, on the
 *   product's first row ──decision──▶ `approved_*` on those rows, on the product cache's verdict (so
 *   a later batch reuses it approved) and in audit.csv
 *
 * A check item is kept per product of a batch, on its leader: the row a classification was made
 * for (its followers show its outcome), or a reused product's first row (its other rows reuse the
 * same verdict). So a decision dropped into one batch's answers folder settles every row of the
 * product there; the console groups the items of identical products across batches (same
 * classification, or same product fingerprint) and decides them at once.
 */
import * as z from 'zod';
import { ClassificationId } from '../../tcs/schemas.js';
import { KnownBy } from './people.js';

/** Why a verdict waits for a person: its confidence is under `check_below`; its SIM opening needs a choice. */
const CHECK_REASONS = ['low_confidence', 'sim_pending_choice'] as const;
/** One reason a verdict waits for a person, as a schema. */
export const CheckReason = z.enum(CHECK_REASONS);
export type CheckReason = z.infer<typeof CheckReason>;

/** The eight digits of an NCM, no dots. */
const NcmDigits = z.string().regex(/^[0-9]{8}$/);
/** The ten digits of a SIM opening, no dots. */
const SimDigits = z.string().regex(/^[0-9]{10}$/);

/** One of the service's candidates, as a person weighs it. */
export const CheckCandidate = z.object({
  rank: z.number().int().min(1),
  ncm: NcmDigits,
  /** The position's description: the service's, else the NCM table's; "" when neither has one. */
  description: z.string(),
  confidence: z.number().int().min(0).max(100).nullable(),
  /** The rationale's first lines, cut at a sentence; "" when the verdict was reused (its PDF has it). */
  rationale: z.string(),
  /** The candidate the service chose. */
  chosen: z.boolean(),
});
export type CheckCandidate = z.infer<typeof CheckCandidate>;

/** A SIM opening to choose from. */
export const SimChoice = z.object({ code: SimDigits, description: z.string() });
export type SimChoice = z.infer<typeof SimChoice>;

/** What a person decided, and who, when and why: written once, by the round that applied it. */
export const CheckDecision = z.object({
  /** The NCM to declare: one of the candidates, or one typed that is in the NCM table in force. */
  ncm: NcmDigits,
  /** The SIM opening chosen, or null when none was (none to choose, or left to the verdict's). */
  sim: SimDigits.nullable(),
  note: z.string(),
  /** The person's name: the console's signed-in user, the IAM principal that wrote the file, the CLI's user. */
  by: z.string().min(1),
  /** The person's id, how they were known, and the name the file stated (core/people.ts). */
  by_id: z.string().optional(),
  known_by: KnownBy.optional(),
  stated_by: z.string().optional(),
  at: z.string(),
  /** The answers round that applied it (`<batch-id>~<hash>`). */
  round_id: z.string(),
});
export type CheckDecision = z.infer<typeof CheckDecision>;

const CHECK_STATES = ['to_check', 'decided'] as const;
const CheckState = z.enum(CHECK_STATES);

/**
 * One verdict of a batch waiting for a person (or decided by one): the row it is kept on, the
 * product, why it waits, the service's candidates and SIM openings to choose from, and once decided
 * the decision. One item per product of a batch.
 */
export const CheckItem = z.object({
  batch_id: z.string(),
  row: z.number().int().min(1),
  classification_id: ClassificationId,
  /** The product, to group identical products (same key and fingerprint) and to find its cached verdict. */
  product_key: z.string().nullable(),
  fingerprint: z.string().nullable(),
  sku: z.string().nullable(),
  description: z.string().nullable(),
  title: z.string().nullable(),
  /** Operation and country of the row, for the SIM openings' lookup and the page. */
  operation: z.enum(['import', 'export']).nullable(),
  country: z.string().nullable(),
  reasons: z.array(CheckReason).min(1),
  /** The batch's threshold when the item was written. */
  check_below: z.number().nullable(),
  /** The service's chosen NCM (8 digits) and its confidence. */
  ncm: NcmDigits.nullable(),
  confidence: z.number().int().min(0).max(100).nullable(),
  /** At most three, best first. */
  candidates: z.array(CheckCandidate).max(3),
  /** The chosen candidate's SIM openings, when one must be chosen. */
  sim_options: z.array(SimChoice),
  /** The verdict PDF as results.csv names it (`pdfs/…`), or null. */
  verdict_pdf: z.string().nullable(),
  /** Rows of the same product in this batch that follow this row: one decision settles them too. */
  followers: z.number().int().min(0),
  /**
   * The followers are rows of a reused product, each holding the verdict itself (not `follows`
   * rows, which show this row's): the round that decides the item writes the decision on each.
   */
  followers_reuse: z.boolean().optional(),
  state: CheckState,
  created_at: z.string(),
  decision: CheckDecision.optional(),
});
export type CheckItem = z.infer<typeof CheckItem>;
