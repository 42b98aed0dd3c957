/**
 * batch.json as a record: the defaults and rules one batch runs by, checked when Prepare reads the
 * file and kept on the batch record. A schema of its own so that the records and the console both
 * read it without depending on the rest of the pipeline.
 */
import * as z from 'zod';
import { Language } from '../../spreadsheet/header-language.js';
import { CountryCode, Operation } from '../../tcs/schemas.js';

/**
 * The options a batch.json may hold, with their defaults: every key is optional and an unknown key
 * is refused, so a misspelt option fails the batch instead of being ignored.
 */
export const BatchOptions = z
  .object({
    /** For rows whose operation cell is empty. */
    operation: Operation.optional(),
    /** For rows whose country cell is empty. */
    country: CountryCode.optional(),
    /**
     * `changed` reuses a recent verdict of an unchanged product; `all` classifies every row again;
     * `ended_codes` (after the NCM table changed) classifies again only the products whose verdict's
     * code is no longer in force, reuses every other verdict whatever its age, and sends no row
     * without an earlier verdict.
     */
    reclassify: z.enum(['changed', 'all', 'ended_codes']).default('changed'),
    /** Under `changed`: a verdict older than this many days is not reused. */
    reuse_max_age_days: z.number().int().min(0).max(3650).default(30),
    /** Budget in USD: rows past it are `not_submitted` (`budget_exceeded`). Absent: no budget. */
    max_usd: z.number().min(0).optional(),
    /**
     * `classify_once`: rows of the same product (same description and sheet) share one classification,
     * the first row's; `classify_each`: every row is classified on its own.
     */
    duplicates: z.enum(['classify_once', 'classify_each']).default('classify_once'),
    /**
     * false: rows of one product share its verdict whatever their country and operation, each with
     * its own tariffs; true: each country and operation is classified on its own.
     */
    verdict_per_country: z.boolean().default(false),
    /**
     * `exposure`: a batch's products are sent most exposed first (the rows they cover, then the
     * value or priority the file gives, then the file's order); `file`: in the file's order.
     */
    order: z.enum(['exposure', 'file']).default('exposure'),
    /** Plan only: read and check the file, write plan.json and plan.csv, classify nothing. */
    plan_only: z.boolean().default(false),
    /**
     * While the batch runs, results.partial.csv and summary.partial.json are written at most
     * this often as rows finish; 0: only when asked for.
     */
    partial_every_minutes: z
      .number()
      .int()
      .min(0)
      .max(24 * 60)
      .default(15),
    /** The workbooks' labels (`pt`, `es`, `en`); absent: the input headers' language. */
    language: Language.optional(),
    /**
     * A confidence, in percent: every resolved or reused verdict under it, and every verdict whose
     * SIM opening waits for a choice (`pending_choice`), is marked `to_check` for a person to decide.
     * It stays resolved and billed once. Absent: no verdict is checked.
     */
    check_below: z.number().min(1).max(100).optional(),
    /**
     * Who sent the batch, as audit.csv names them: the console and `classify` fill it with the
     * signed-in user or `--by`; a file dropped into S3 by hand may name someone, else no one is named.
     */
    requested_by: z.string().trim().min(1).max(200).optional(),
  })
  .strict();
export type BatchOptions = z.infer<typeof BatchOptions>;
