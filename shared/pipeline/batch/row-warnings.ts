/**
 * What a person should act on in the rows before paying for them: descriptions too vague for the
 * classifier to decide without asking questions, and sheets without a text layer. Both go into
 * the plan and every run's summary.json beside the file-level warnings (spreadsheet/input-report.ts).
 * Pure.
 *
 * The vagueness test is deliberately simple and says why: a description whose head word (its
 * first meaningful word) names no product ("Peças diversas…", "Repuestos varios…", "Material
 * elétrico…", "Kit de…"), or which says "assorted" in any of our three languages. A broker asks
 * the same question the classifier will: which part, of what, for what?
 */
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

/** Whether a description leaves the product undecided (see the file comment). */
export const isVagueDescription = (description: string): boolean => {
  const words = plainWords(description);
  const head = words.find((word) => word.length > 2);
  return (head !== undefined && GROUP_HEAD_WORDS.has(head)) || words.some((word) => ASSORTED_WORDS.has(word));
};

/** `rows 3, 7 and 12` (the first ten, then how many more). */
const rowList = (rows: readonly number[]): string => {
  const shown = rows.slice(0, 10).map(String);
  const more = rows.length - shown.length;
  if (more > 0) return `rows ${shown.join(', ')} and ${more} more`;
  if (shown.length === 1) return `row ${shown[0]}`;
  return `rows ${shown.slice(0, -1).join(', ')} and ${shown.at(-1)}`;
};

const cut = (text: string, max = 60): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

type ValidPlan = Extract<RowPlan, { kind: 'valid' }>;

/** The two findings, written once for the batch's sentences and plan.csv's notes. */
const hasVagueDescription = (plan: ValidPlan): boolean =>
  !!plan.product.description && isVagueDescription(plan.product.description);
const hasScannedSheet = (plan: ValidPlan): boolean => plan.sheet?.text_layer === false;

/** The sentences for the valid rows of a plan: vague descriptions, then sheets without text. */
export const rowWarnings = (plans: readonly RowPlan[], descriptionHeader = 'description'): string[] => {
  const valid = plans.flatMap((plan) => (plan.kind === 'valid' ? [plan] : []));
  const vague = valid.filter(hasVagueDescription);
  const scans = valid.filter(hasScannedSheet);
  const warnings: string[] = [];
  if (vague.length > 0) {
    const example = vague[0]!.product.description!;
    warnings.push(
      `Column "${descriptionHeader}", ${rowList(vague.map((plan) => plan.mapped.row))}: the description ` +
        `names a group of things rather than a product (e.g. "${cut(example)}"); the classifier will ` +
        'most likely ask questions before it decides. Say what the product is, of what, for what, or add a technical sheet.',
    );
  }
  if (scans.length > 0) {
    const names = [...new Set(scans.map((plan) => plan.sheet!.file_name))];
    const alone = scans.filter((plan) => !plan.product.description).map((plan) => plan.mapped.row);
    warnings.push(
      `Technical sheet${names.length === 1 ? '' : 's'} ${names.map((name) => `"${name}"`).join(', ')} ` +
        `(${rowList(scans.map((plan) => plan.mapped.row))}) ${names.length === 1 ? 'has' : 'have'} no text ` +
        'layer (a scan): the service cannot read it' +
        (alone.length > 0
          ? `, and ${rowList(alone)} ${alone.length === 1 ? 'has' : 'have'} no description beside it, so ` +
            `${alone.length === 1 ? 'it' : 'they'} will fail (unreadable_pdf) unless you add one or a PDF with text.`
          : '; only the description beside it will be classified.'),
    );
  }
  return warnings;
};

/** The same findings row by row, for plan.csv: row → what to look at in it. */
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
