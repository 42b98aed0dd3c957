/**
 * The simulated classifier: matches the text against the catalogue's keywords, asks
 * questions when the text is vague, and otherwise ranks up to three candidates. Pure and
 * deterministic: every variable choice comes from `chooser(seed, normalised input)`.
 */
import type {
  Candidate,
  CandidateSim,
  Question,
  SimOption,
  TariffLookup,
} from '../../../shared/tcs/schemas.js';
import { CATALOGUE, type CatalogueEntry } from './catalogue.js';
import type { ClassifyInput, Verdict } from './contract.js';
import { candidateSimOf, lookupTariff, TARIFF_SOURCE } from './lookups.js';
import { type Chooser, chooser } from './random.js';
import { containsPhrase, foldPhrase, normalize, type Searchable, searchable, tokens } from './text.js';
import { type ForcedBand, type ForcedSimStatus, parseTriggers, type Triggers } from './triggers.js';

// ---------------------------------------------------------------------------
// Matching
// ---------------------------------------------------------------------------

/** Words that say nothing about what a product is; a text made of them is vague (pt, es, en). */
const GENERIC_WORDS = new Set(
  tokens(
    `peca parte part repuesto refaccion spare produto producto product material kit acessorio
    accesorio accessory item itens mercadoria mercaderia goods componente component diversos varios
    misc miscellaneous artigo articulo article coisa equipamento equipo equipment insumo supplies
    geral general generico generic amostra muestra sample unidade unit jogo juego set conjunto
    sortido surtido assorted`,
  ),
);

/** Words that carry no meaning for the vagueness test. */
const STOPWORDS = new Set(
  tokens(
    `a o as os um uma de da do das dos em no na nos nas para por com sem e ou el la los las un una
    del al en con sin y the an of for and or with without in to tipo`,
  ),
);

const NEGATIONS = new Set(['nao', 'no', 'not', 'non', 'sem', 'sin', 'without']);

/** Each entry's phrases, folded once. */
const INDEX = CATALOGUE.map((entry) => ({
  entry,
  phrases: [entry.productName, ...entry.keywords].map(foldPhrase),
  excludes: (entry.excludes ?? []).map(foldPhrase),
}));

/** A phrase of `n` words is worth n + 1: longer phrases are more specific. */
const phraseScore = (text: Searchable, phrases: readonly string[]): number =>
  phrases.reduce(
    (sum, phrase) => (containsPhrase(text, phrase) ? sum + phrase.split(' ').length + 1 : sum),
    0,
  );

/** An exclusion applies unless it is negated ("não descafeinado" does not exclude regular coffee). */
const isAffirmed = (text: Searchable, phrase: string): boolean => {
  const words = text.tokens;
  const target = phrase.split(' ');
  for (let i = 0; i + target.length <= words.length; i++) {
    if (target.every((word, k) => words[i + k] === word) && !NEGATIONS.has(words[i - 1] ?? '')) return true;
  }
  return false;
};

type Match = { entry: CatalogueEntry; score: number };

/** A text to match: its weight, and whether its words may rule entries out. */
type MatchText = { text: string; weight: number; excludes: boolean };

/**
 * Scores every entry against weighted texts (an answer to the product question weighs more
 * than the description) and returns the entries that matched, best first.
 */
const matchCatalogue = (texts: readonly MatchText[]): Match[] => {
  const prepared = texts.map(({ text, weight }) => ({ text: searchable(text), weight }));
  const excluding = searchable(
    texts
      .filter(({ excludes }) => excludes)
      .map(({ text }) => text)
      .join(' \n '),
  );
  return INDEX.flatMap(({ entry, phrases, excludes }) => {
    if (excludes.some((phrase) => isAffirmed(excluding, phrase))) return [];
    const score = prepared.reduce((sum, { text, weight }) => sum + weight * phraseScore(text, phrases), 0);
    return score > 0 ? [{ entry, score }] : [];
  }).sort((a, b) => b.score - a.score); // stable: ties keep catalogue order
};

const contentWords = (text: string): string[] =>
  tokens(text).filter((word) => !STOPWORDS.has(word) && !/^\d+$/.test(word));

/** Vague: nothing matched, or a weak match on a text that is generic or too short to trust. */
const isVague = (text: string, best: number): boolean => {
  const content = contentWords(text);
  const generic = content.some((word) => GENERIC_WORDS.has(word));
  const specific = content.filter((word) => !GENERIC_WORDS.has(word));
  const weak = best < 4;
  return best === 0 || (weak && (generic || specific.length < 2));
};

// ---------------------------------------------------------------------------
// Questions
// ---------------------------------------------------------------------------

const PRODUCT_QUESTION_ID = 'q1';

/** Words that announce a part of something; such texts get parts as suggested answers. */
const PART_WORDS = new Set(
  ['peca', 'parte', 'part', 'repuesto', 'refaccion', 'spare', 'componente', 'component'].map(foldPhrase),
);

/** Catalogue positions that are parts of machines or vehicles, offered for "peças"-like texts. */
const PART_SUGGESTIONS = ['84821010', '40169300', '84139190', '84212300', '87083090', '73181500'];

/**
 * Entries to offer as answers to the product question: the weak matches first, then parts
 * when the text speaks of parts, else a seeded pick of the catalogue. 4 or 5 options.
 */
const optionEntries = (text: string, matches: readonly Match[], random: Chooser): CatalogueEntry[] => {
  const picked = matches.slice(0, 5).map((match) => match.entry);
  const add = (entry: CatalogueEntry | undefined) => {
    if (entry !== undefined && picked.length < 5 && !picked.includes(entry)) picked.push(entry);
  };
  if (contentWords(text).some((word) => PART_WORDS.has(word))) {
    const start = random.int('part-options', 0, PART_SUGGESTIONS.length - 1);
    for (let i = 0; i < PART_SUGGESTIONS.length; i++) {
      add(CATALOGUE.find((entry) => entry.ncm === PART_SUGGESTIONS[(start + i) % PART_SUGGESTIONS.length]));
    }
  }
  for (let attempt = 0; picked.length < 4 && attempt < 20; attempt++) {
    add(CATALOGUE[random.int(`option-${attempt}`, 0, CATALOGUE.length - 1)]);
  }
  return picked;
};

const buildQuestions = (count: number, options: readonly CatalogueEntry[]): Question[] =>
  [
    {
      id: PRODUCT_QUESTION_ID,
      text: 'Qual é exatamente o produto? Escolha a opção mais próxima ou descreva-o com suas palavras.',
      options: options.map((entry) => entry.productName),
    },
    {
      id: 'q2',
      text: 'Qual é a função ou o uso principal do produto?',
      options: [],
    },
    {
      id: 'q3',
      text: 'O produto é parte ou acessório de uma máquina, aparelho ou veículo? De qual?',
      options: [
        'Não, é um produto completo',
        'Sim, parte de uma máquina industrial',
        'Sim, parte de um veículo automóvel',
        'Sim, parte de um aparelho elétrico',
      ],
    },
    {
      id: 'q4',
      text: 'De que material o produto é feito predominantemente?',
      options: ['Metal', 'Plástico', 'Borracha', 'Matéria têxtil', 'Couro', 'Outro'],
    },
    {
      id: 'q5',
      text: 'Informe a marca, o modelo ou a referência do fabricante, se houver.',
      options: [],
    },
  ].slice(0, count);

// ---------------------------------------------------------------------------
// Candidates
// ---------------------------------------------------------------------------

const bandOf = (confidence: number): 'high' | 'medium' | 'low' =>
  confidence >= 80 ? 'high' : confidence >= 50 ? 'medium' : 'low';

const FORCED_RANGES: Record<ForcedBand, readonly [number, number]> = {
  low: [20, 44],
  medium: [55, 75],
  high: [85, 97],
};

/**
 * Confidence of each ranked match: rank 1 grows with its score and its lead over rank 2;
 * lower ranks are a share of rank 1, always strictly below the rank before them.
 */
const confidences = (
  matches: readonly Match[],
  random: Chooser,
  forced: ForcedBand | null,
  range: readonly [number, number] | null,
): number[] => {
  const [first, second] = matches;
  if (first === undefined) return [];
  const strength = Math.min(1, first.score / 8);
  const lead = (first.score - (second?.score ?? 0)) / first.score;
  const natural = Math.round(40 + 35 * strength + 18 * lead) + random.int('confidence', 0, 4);
  const [min, max] = forced ? FORCED_RANGES[forced] : (range ?? [30, 97]);
  const top = forced ? random.int('forced-confidence', min, max) : Math.min(max, Math.max(min, natural));
  const result = [top];
  for (const match of matches.slice(1)) {
    const previous = result[result.length - 1]!;
    const share = Math.round(top * (match.score / first.score) * 0.7);
    result.push(Math.max(0, Math.min(previous - 1, share)));
  }
  return result;
};

/**
 * Openings to show when a trigger forces a SIM status: the entry's own, topped up with
 * simulated ones so that a forced `pending_choice` always has a choice to make.
 */
const simulatedOpenings = (entry: CatalogueEntry): SimOption[] => {
  const options = entry.sim.status === 'available' ? [...entry.sim.openings] : [];
  for (const suffix of ['10', '90']) {
    const code = `${entry.ncm}${suffix}`;
    if (options.length < 2 && !options.some((option) => option.code === code)) {
      options.push({ code, description: 'Abertura simulada (sandbox)' });
    }
  }
  return options;
};

const forcedSim = (
  entry: CatalogueEntry,
  status: ForcedSimStatus,
  now: Date,
  random: Chooser,
): CandidateSim => {
  const verified_at = now.toISOString();
  const options = simulatedOpenings(entry);
  switch (status) {
    case 'verifying':
      return { status, code: null, options: [], verified_at: null };
    case 'none':
      return { status, code: null, options: [], verified_at };
    case 'auto_selected': {
      const only = options[0]!;
      return { status, code: only.code, options: [only], verified_at };
    }
    case 'pending_choice':
      return { status, code: null, options, verified_at };
    case 'chosen':
      return {
        status,
        code: options[random.int('sim-choice', 0, options.length - 1)]!.code,
        options,
        verified_at,
      };
  }
};

type CandidateContext = { provisional: boolean; usedAnswers: boolean; guess: boolean };

const buildCandidate = (
  entry: CatalogueEntry,
  rank: number,
  confidence: number,
  sim: CandidateSim,
  context: CandidateContext,
): Candidate => {
  const notes = [
    context.usedAnswers ? 'Considera as respostas dadas ao questionário.' : null,
    context.provisional ? 'Proposta provisória: depende das respostas às perguntas.' : null,
    context.guess
      ? 'Proposta de baixa confiança: o texto e as respostas não identificam o produto com segurança.'
      : null,
    rank > 1 ? 'Alternativa menos provável que a opção recomendada.' : null,
  ].filter((note) => note !== null);
  return {
    rank,
    ncm: entry.ncm,
    description: entry.description,
    product_name: entry.productName,
    confidence,
    confidence_band: bandOf(confidence),
    is_provisional: context.provisional,
    hierarchy: entry.hierarchy,
    rationale: [
      `Produto identificado: ${entry.productName}. ${entry.rationale}`,
      `Regras Gerais de Interpretação aplicadas: ${entry.appliedRules.join(', ')}.`,
      ...notes,
    ].join(' '),
    applied_rules: [...entry.appliedRules],
    cited_notes: entry.citedNotes.map((note) => ({ ...note })),
    discarded_alternatives: entry.discarded.slice(0, 5).map((alternative) => ({ ...alternative })),
    missing_data: (context.guess
      ? ['Descrição detalhada do produto', ...entry.missingData]
      : [...entry.missingData]
    ).slice(0, 5),
    sim,
  };
};

// ---------------------------------------------------------------------------
// The verdict
// ---------------------------------------------------------------------------

const failed = (failure_reason: string): Verdict => ({ status: 'failed', failure_reason });

export const classify = (input: ClassifyInput): Verdict => {
  const { triggers, rest } = parseTriggers([input.description ?? '', input.sheetText ?? ''].join('\n'));

  const failure = triggers.fail ?? (input.priorAttempts === 0 ? triggers.failOnce : null);
  if (failure) return failed(failure);

  const hasAnswers = input.answers.length > 0;
  if (input.description === null && !input.sheetText && !hasAnswers) {
    // A sheet without a text layer (or no text at all) leaves nothing to classify.
    return failed(input.sheetText === '' ? 'unreadable_pdf' : 'unexpected_format');
  }

  const random = chooser(
    input.seed,
    JSON.stringify([
      input.operation,
      input.country,
      normalize(input.description ?? ''),
      input.sheetText === null ? null : normalize(input.sheetText),
      input.answers.map((answer) => [answer.question_id, normalize(answer.answer)]),
    ]),
  );

  // The answer to the product question weighs most and is the one that may rule entries
  // out (it supersedes the description's words); the other answers only add evidence.
  const productAnswered = input.answers.some((answer) => answer.question_id === PRODUCT_QUESTION_ID);
  const matches = matchCatalogue([
    { text: rest, weight: 1, excludes: !productAnswered },
    ...input.answers.map((answer) => {
      const aboutProduct = answer.question_id === PRODUCT_QUESTION_ID;
      return { text: answer.answer, weight: aboutProduct ? 3 : 1, excludes: aboutProduct };
    }),
  ]);

  // One round of questions: after answers, always a verdict.
  if (!hasAnswers && (triggers.ask !== null || isVague(rest, matches[0]?.score ?? 0))) {
    return askQuestions(rest, matches, input, random, triggers);
  }
  if (matches.length === 0) {
    // Answers that still name nothing known: a seeded low-confidence guess, as a real
    // classifier would still propose its closest position.
    const guess = CATALOGUE[random.int('guess', 0, CATALOGUE.length - 1)]!;
    return resolve([{ entry: guess, score: 1 }], input, random, triggers, { guess: true, range: [15, 35] });
  }
  return resolve(matches.slice(0, 3), input, random, triggers, { guess: false, range: null });
};

const askQuestions = (
  text: string,
  matches: readonly Match[],
  input: ClassifyInput,
  random: Chooser,
  triggers: Triggers,
): Verdict => {
  const offered = optionEntries(text, matches, random);
  const count = triggers.ask || random.int('question-count', 1, 3);
  const propose = triggers.askProvisional || (matches.length > 0 && random.chance('provisional', 0.5));
  const proposal: Match[] =
    matches.length > 0 ? matches.slice(0, 3) : offered.slice(0, 2).map((entry) => ({ entry, score: 1 }));
  const context: CandidateContext = { provisional: true, usedAnswers: false, guess: false };
  const provisional = propose
    ? confidences(proposal, random, null, [15, 45]).map((confidence, i) => {
        const entry = proposal[i]!.entry;
        return buildCandidate(entry, i + 1, confidence, candidateSimOf(entry, input.now), context);
      })
    : [];
  return {
    status: 'pending_data',
    title: provisional[0]?.product_name ?? null,
    questions: buildQuestions(count, offered),
    provisional,
  };
};

const resolve = (
  ranked: readonly Match[],
  input: ClassifyInput,
  random: Chooser,
  triggers: Triggers,
  options: { guess: boolean; range: readonly [number, number] | null },
): Verdict => {
  const context: CandidateContext = {
    provisional: false,
    usedAnswers: input.answers.length > 0,
    guess: options.guess,
  };
  const candidates = confidences(ranked, random, triggers.confidence, options.range).map((confidence, i) => {
    const entry = ranked[i]!.entry;
    const sim =
      i === 0 && triggers.sim !== null
        ? forcedSim(entry, triggers.sim, input.now, random)
        : candidateSimOf(entry, input.now);
    return buildCandidate(entry, i + 1, confidence, sim, context);
  });
  const chosen = candidates[0]!;
  const tariffs: TariffLookup =
    triggers.tariff !== null
      ? { found: false, reason: triggers.tariff, source: TARIFF_SOURCE, queried_at: input.now.toISOString() }
      : lookupTariff({ ncm: chosen.ncm, country: input.country, operation: input.operation }, input.now);
  return {
    status: 'resolved',
    title: chosen.product_name,
    candidates,
    chosen_ncm: chosen.ncm,
    chosen_sim_code: chosen.sim.code,
    tariffs,
  };
};
