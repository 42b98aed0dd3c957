/**
 * What a person should act on in the rows before paying for them: descriptions too vague for the
 * classifier to decide without asking questions, and sheets without a text layer. Both go into
 * the plan and every run's summary.json beside the file-level warnings (a column of PDF names no
 * header alias knows, NCMs that lost their leading zero).
 * Pure.
 *
 * The vagueness test is deliberately simple and says why: a description whose head word (its
 * first meaningful word) names no product ("Peças diversas…", "Repuestos varios…", "Material
 * elétrico…", "Kit de…"), or which says "assorted" in any of our three languages. A broker asks
 * the same question the classifier will: which part, of what, for what?
 */

import { message, wordMessages } from '../../wording/index.js';
import type { Message } from '../../wording/message.js';
import type { RowPlan } from './row-plans.js';

/** Words that name a group of things rather than a product (pt, es, en), accents removed. */
const GROUP_HEAD_WORDS = new Set(
  `peca pecas pieza piezas parte partes part parts repuesto repuestos reposicao spare spares
   material materiais materiales materials acessorio acessorios accesorio accesorios accessory accessories
   produto produtos producto productos product products item itens items artigo artigos articulo articulos
   article articles componente componentes component components kit kits conjunto conjuntos jogo juego
   set sets mercadoria mercadorias mercancia mercancias goods equipamento equipamentos equipo equipos
   equipment suprimento suprimentos suministro suministros supplies insumo insumos`.split(/\s+/),
);

/** Words that say "of several kinds" wherever they stand. */
const ASSORTED_WORDS = new Set(
  `diverso diversos diversa diversas vario varios varia varias various assorted sortido sortidos
   surtido surtidos misc miscellaneous miscelanea geral generico genericos generica generic outros otros
   others`.split(/\s+/),
);

const WORD = /[\p{L}\p{N}]+/gu;
const plainWords = (text: string): string[] =>
  (text
    .normalize('NFD')
    .replace(/\p{Diacritic}/gu, '')
    .toLowerCase()
    .match(WORD) ?? []) as string[];

/**
 * Whether a description leaves the product undecided: its head word (the first word of three
 * letters or more) names a group of things, or a word says "assorted" (pt, es, en).
 */
export const isVagueDescription = (description: string): boolean => {
  const words = plainWords(description);
  const head = words.find((word) => word.length > 2);
  return (head !== undefined && GROUP_HEAD_WORDS.has(head)) || words.some((word) => ASSORTED_WORDS.has(word));
};

/** How many rows a warning names before it only counts them. */
const ROWS_NAMED = 10;

/** Rows a warning names: the first ten, and how many there are in all. */
type RowTally = { first: number[]; count: number };
const emptyTally = (): RowTally => ({ first: [], count: 0 });
const tally = (rows: RowTally, row: number): void => {
  rows.count += 1;
  if (rows.first.length < ROWS_NAMED) rows.first.push(row);
};

const cut = (text: string, max = 60): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

type ValidPlan = Extract<RowPlan, { kind: 'valid' }>;

/** The two findings, written once for the batch's sentences and plan.csv's notes. */
const hasVagueDescription = (plan: ValidPlan): boolean =>
  !!plan.product.description && isVagueDescription(plan.product.description);
const hasScannedSheet = (plan: ValidPlan): boolean => plan.sheet?.text_layer === false;

/** How many sheet names a warning names before it only counts them. */
const SHEETS_NAMED = 10;

/**
 * Gives a collector of the warnings for the valid rows of a file read in chunks: vague
 * descriptions, then sheets without text. Holds the first rows of each finding and their counts,
 * never the rows.
 */
export const rowWarningCollector = (descriptionHeader = 'description') => {
  const vague = emptyTally();
  let example = '';
  const scans = emptyTally();
  const scansAlone = emptyTally();
  const scanNames = new Set<string>();
  let moreScanNames = 0;
  return {
    add(plans: readonly RowPlan[]): void {
      for (const plan of plans) {
        if (plan.kind !== 'valid') continue;
        if (hasVagueDescription(plan)) {
          if (vague.count === 0) example = plan.product.description!;
          tally(vague, plan.mapped.row);
        }
        if (hasScannedSheet(plan)) {
          tally(scans, plan.mapped.row);
          if (!plan.product.description) tally(scansAlone, plan.mapped.row);
          const name = plan.sheet!.file_name;
          if (scanNames.size < SHEETS_NAMED || scanNames.has(name)) scanNames.add(name);
          else moreScanNames += 1;
        }
      }
    },
    /** The findings as messages, each worded later in the reader's language. */
    messages(): Message[] {
      const warnings: Message[] = [];
      if (vague.count > 0) {
        warnings.push(
          message('vague_descriptions', {
            header: descriptionHeader,
            rows: vague.first,
            total: vague.count,
            example: cut(example),
          }),
        );
      }
      if (scans.count > 0) {
        warnings.push(
          message('scanned_sheets', {
            names: [...scanNames],
            more_names: moreScanNames > 0,
            rows: scans.first,
            total: scans.count,
            alone_rows: scansAlone.first,
            alone_total: scansAlone.count,
          }),
        );
      }
      return warnings;
    },
    /** The findings in English. */
    warnings(): string[] {
      return wordMessages(this.messages(), 'en');
    },
  };
};

/**
 * Gives the warnings, in English, for the valid rows of some plans: vague descriptions, then sheets
 * without text.
 */
export const rowWarnings = (plans: readonly RowPlan[], descriptionHeader = 'description'): string[] => {
  const collector = rowWarningCollector(descriptionHeader);
  collector.add(plans);
  return collector.warnings();
};

/**
 * Gives the same findings row by row, for plan.csv: for each row with one, what to look at in it,
 * in English.
 */
export const rowNotes = (plans: readonly RowPlan[]): Map<number, string> => {
  const notes = new Map<number, string>();
  for (const plan of plans) {
    if (plan.kind !== 'valid') continue;
    const found: string[] = [];
    if (hasVagueDescription(plan)) found.push('Vague description: expect questions before a verdict.');
    if (hasScannedSheet(plan))
      found.push(
        plan.product.description
          ? 'The sheet has no text layer (a scan): only the description will be read.'
          : 'The sheet has no text layer (a scan) and there is no description: expect failed (unreadable_pdf).',
      );
    if (found.length > 0) notes.set(plan.mapped.row, found.join(' '));
  }
  return notes;
};
