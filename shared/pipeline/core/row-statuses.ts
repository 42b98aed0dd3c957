/**
 * A row's statuses: the ones it ends in, the ones it passes through on its way, the one order
 * people see them in, and their words in Portuguese, Spanish and English. The workbooks, the
 * command line and the console's page all read these; the moves between them are in row-life.ts.
 *
 *   queued ─▶ submitting ─▶ in_progress ─▶ resolved | pending_data | failed | abandoned | error
 *     ▲            │              │
 *     └────────────┴──────────────┘  back to queued as a later attempt or dispatch (a 429, a retry)
 *   following ─▶ shows its leader's outcome       pending_data ─▶ queued (an answers round)
 *   rejected | reused | not_submitted: final at Prepare
 */
import * as z from 'zod';
import type { Language } from '../../spreadsheet/header-language.js';

/** Every row ends in exactly one of these (docs/architecture.md, property 7). */
export const OUTPUT_STATUSES = [
  'resolved',
  'pending_data',
  'failed',
  'abandoned',
  'rejected',
  'reused',
  'not_submitted',
  'error',
] as const;
/** A status a row ends in, as a schema: what results.csv's `status` column may say. */
export const OutputStatus = z.enum(OUTPUT_STATUSES);
export type OutputStatus = z.infer<typeof OutputStatus>;

/**
 * While a row is on its way: queued in SQS, then held by a Row workflow; or `following`, waiting
 * for the outcome of the row it shares a classification with (`follows`), never dispatched itself.
 */
export const WORKING_STATUSES = ['queued', 'submitting', 'in_progress', 'following'] as const;
/** A status a row passes through while it works (or follows), never one it ends in. */
export type WorkingStatus = (typeof WORKING_STATUSES)[number];
/** Any status a row record may hold: a working one or an output one. */
export const RowStatus = z.enum([...WORKING_STATUSES, ...OUTPUT_STATUSES]);
export type RowStatus = z.infer<typeof RowStatus>;

/** Whether a status is one a row ends in (for now: a row waiting for answers may be resumed). */
export const isOutputStatus = (status: RowStatus): status is OutputStatus =>
  (OUTPUT_STATUSES as readonly string[]).includes(status);

/**
 * The order people see statuses in, wherever counts are listed: good outcomes first, then the
 * working ones, then those needing a person, then the bad ones.
 */
export const STATUS_ORDER: readonly RowStatus[] = [
  'resolved',
  'reused',
  'in_progress',
  'submitting',
  'queued',
  'following',
  'pending_data',
  'not_submitted',
  'rejected',
  'abandoned',
  'failed',
  'error',
];

/** The words for each status, in each language a person may read them in. */
export const STATUS_WORDS: Readonly<Record<Language, Readonly<Record<RowStatus, string>>>> = {
  pt: {
    resolved: 'Resolvida',
    pending_data: 'Aguardando respostas',
    failed: 'Falhou',
    abandoned: 'Abandonada',
    rejected: 'Rejeitada',
    reused: 'Reaproveitada',
    not_submitted: 'Não enviada',
    error: 'Erro',
    queued: 'Na fila',
    submitting: 'Enviando',
    in_progress: 'Em andamento',
    following: 'Vinculada',
  },
  es: {
    resolved: 'Resuelta',
    pending_data: 'Espera respuestas',
    failed: 'Falló',
    abandoned: 'Abandonada',
    rejected: 'Rechazada',
    reused: 'Reutilizada',
    not_submitted: 'No enviada',
    error: 'Error',
    queued: 'En cola',
    submitting: 'Enviando',
    in_progress: 'En curso',
    following: 'Vinculada',
  },
  en: {
    resolved: 'Resolved',
    pending_data: 'Needs answers',
    failed: 'Failed',
    abandoned: 'Abandoned',
    rejected: 'Rejected',
    reused: 'Reused',
    not_submitted: 'Not submitted',
    error: 'Error',
    queued: 'Queued',
    submitting: 'Submitting',
    in_progress: 'In progress',
    following: 'Following',
  },
};
