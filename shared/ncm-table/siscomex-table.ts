/**
 * The NCM table in force as Siscomex publishes it (Receita Federal's "Tabela NCM Vigente", JSON):
 * every chapter, heading, subheading and 8-digit code with its description and the dates it is
 * valid between. A declared NCM or a verdict is checked against it: a code that is not in the
 * table in force makes an NF-e be rejected (SEFAZ rejection 778), so it is worth saying before
 * anything is spent. Pure: the bytes come from whoever carries the table (carried-table.ts).
 */
import * as z from 'zod';

/** `dd/mm/yyyy`, as the table writes every date. */
const SiscomexDate = z.string().regex(/^\d{2}\/\d{2}\/\d{4}$/, 'a date written dd/mm/yyyy');

/** The published JSON, as far as the pipeline reads it (each entry's act fields are left out). */
const SiscomexTable = z.object({
  /** "Vigente em 05/07/2026": the day the table speaks for. */
  Data_Ultima_Atualizacao_NCM: z.string(),
  /** The act that last changed it, e.g. "Resolução Gecex nº 812/2025". */
  Ato: z.string(),
  Nomenclaturas: z
    .array(
      // Stripped to the fields read: a table's 15,000 entries are checked at every cold start.
      z.object({
        /** Dotted: `09` (chapter), `09.01` (heading), `0901.2`, `0901.21` (subheadings), `0901.21.00`. */
        Codigo: z.string().regex(/^\d[\d.]*$/, 'digits and dots'),
        Descricao: z.string(),
        Data_Inicio: SiscomexDate,
        Data_Fim: SiscomexDate,
      }),
    )
    .min(1),
});

export type NcmEntry = {
  /** Digits only: `09`, `0901`, `09012`, `090121`, `09012100`. */
  code: string;
  /** As the table writes it: `0901.21.00`. */
  dotted: string;
  /** The entry's own description, its `<i>` tags removed (a level's dashes kept: "-- Outros"). */
  description: string;
  /** ISO dates; `ends` null for the table's "31/12/9999", no end set. */
  starts: string;
  ends: string | null;
};

export type NcmTable = {
  /** The day the table speaks for (ISO), from "Vigente em dd/mm/yyyy"; null when it says none. */
  asOf: string | null;
  act: string;
  /** How many 8-digit codes it holds. */
  codeCount: number;
  entry(code: string): NcmEntry | undefined;
  /** An 8-digit NCM (dots and spaces allowed) the table holds and that is valid on `on` (ISO date, default its own day). */
  inForce(ncm: string, on?: string): boolean;
  /** The entries from the chapter down to the code itself, each level the table holds. */
  path(ncm: string): NcmEntry[];
  /** The 8-digit codes in force whose digits start with `prefix` (dots allowed), in code order. */
  codesUnder(prefix: string): NcmEntry[];
};

const isoOf = (date: string): string => {
  const [day, month, year] = date.split('/');
  return `${year}-${month}-${day}`;
};

const NO_END = '9999-12-31';

/** `0901.21.00`, `0901 21 00` → `09012100`. */
export const ncmDigits = (code: string): string => code.replace(/[.\s]/g, '');

/** The prefixes a code's levels have in the table: chapter, heading, the subheadings, the item. */
const LEVEL_LENGTHS = [2, 4, 5, 6, 7, 8] as const;

/** The table from its published JSON; a shape it does not have is a ZodError naming the field. */
export const ncmTableOf = (json: unknown): NcmTable => {
  const table = SiscomexTable.parse(json);
  const entries = new Map<string, NcmEntry>();
  for (const item of table.Nomenclaturas) {
    const code = ncmDigits(item.Codigo);
    const ends = isoOf(item.Data_Fim);
    entries.set(code, {
      code,
      dotted: item.Codigo,
      description: item.Descricao.replace(/<\/?i>/g, ''),
      starts: isoOf(item.Data_Inicio),
      ends: ends === NO_END ? null : ends,
    });
  }
  const asOfMatch = /(\d{2}\/\d{2}\/\d{4})/.exec(table.Data_Ultima_Atualizacao_NCM);
  const asOf = asOfMatch ? isoOf(asOfMatch[1]!) : null;
  const eightDigitCodes = [...entries.values()]
    .filter((entry) => entry.code.length === 8)
    // Codes are digits of one length: plain comparison orders them (localeCompare is 30× slower).
    .sort((a, b) => (a.code < b.code ? -1 : a.code > b.code ? 1 : 0));
  const codeCount = eightDigitCodes.length;
  return {
    asOf,
    act: table.Ato,
    codeCount,
    entry: (code) => entries.get(ncmDigits(code)),
    inForce: (ncm, on = asOf ?? new Date().toISOString().slice(0, 10)) => {
      const entry = entries.get(ncmDigits(ncm));
      return (
        entry !== undefined &&
        entry.code.length === 8 &&
        entry.starts <= on &&
        (entry.ends === null || entry.ends >= on)
      );
    },
    codesUnder: (prefix) => {
      const digits = ncmDigits(prefix);
      return eightDigitCodes.filter((entry) => entry.code.startsWith(digits));
    },
    path: (ncm) => {
      const digits = ncmDigits(ncm);
      return LEVEL_LENGTHS.filter((length) => length <= digits.length)
        .map((length) => entries.get(digits.slice(0, length)))
        .filter((entry): entry is NcmEntry => entry !== undefined);
    },
  };
};
