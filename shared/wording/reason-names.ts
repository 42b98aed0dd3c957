/**
 * A row's reason code named in a few words, for the places that show the reason alone: an audit
 * event's detail (`not_sent`, `failed`), a reason where a row has no detail. results.csv and
 * audit.csv keep the code for machines; a person reads these. A code not named here (one the
 * service adds later) is shown as it is.
 */
import type { Language } from '../spreadsheet/header-language.js';
import { KNOWN_FAILURE_REASONS } from '../tcs/schemas.js';
import { failureReasonWords } from './row-details.js';

type Named = Record<Language, string>;

const REASON_NAMES: Readonly<Record<string, Named>> = {
  description_missing: {
    pt: 'sem descrição nem ficha técnica',
    es: 'sin descripción ni ficha técnica',
    en: 'no description nor technical sheet',
  },
  description_too_short: {
    pt: 'descrição curta demais',
    es: 'descripción demasiado corta',
    en: 'description too short',
  },
  description_too_long: {
    pt: 'descrição longa demais',
    es: 'descripción demasiado larga',
    en: 'description too long',
  },
  operation_missing: { pt: 'sem operação', es: 'sin operación', en: 'no operation' },
  operation_invalid: { pt: 'operação desconhecida', es: 'operación desconocida', en: 'unknown operation' },
  country_missing: { pt: 'sem país', es: 'sin país', en: 'no country' },
  country_invalid: { pt: 'país desconhecido', es: 'país desconocido', en: 'unknown country' },
  country_unknown: {
    pt: 'país que o serviço não aceita',
    es: 'país que el servicio no acepta',
    en: 'a country the service does not take',
  },
  sheet_path_invalid: {
    pt: 'caminho de ficha inválido',
    es: 'ruta de ficha no válida',
    en: 'a sheet path that cannot be used',
  },
  external_reference_too_long: {
    pt: 'referência longa demais',
    es: 'referencia demasiado larga',
    en: 'reference too long',
  },
  sku_too_long: { pt: 'SKU longo demais', es: 'SKU demasiado largo', en: 'SKU too long' },
  cell_too_long: { pt: 'célula longa demais', es: 'celda demasiado larga', en: 'a cell too long' },
  row_too_large: { pt: 'linha grande demais', es: 'fila demasiado grande', en: 'row too large' },
  control_character: {
    pt: 'caractere de controle numa célula',
    es: 'carácter de control en una celda',
    en: 'a control character in a cell',
  },
  sheet_not_found: {
    pt: 'ficha técnica não encontrada',
    es: 'ficha técnica no encontrada',
    en: 'technical sheet not found',
  },
  sheet_too_large: {
    pt: 'ficha técnica grande demais',
    es: 'ficha técnica demasiado grande',
    en: 'technical sheet too large',
  },
  sheet_not_pdf: {
    pt: 'ficha técnica não é PDF',
    es: 'la ficha técnica no es PDF',
    en: 'technical sheet not a PDF',
  },
  sheet_damaged: {
    pt: 'ficha técnica danificada',
    es: 'ficha técnica dañada',
    en: 'technical sheet damaged',
  },
  sheet_outside_folder: {
    pt: 'ficha técnica fora da pasta do lote',
    es: 'ficha técnica fuera de la carpeta del lote',
    en: 'technical sheet outside the batch folder',
  },
  budget_exceeded: { pt: 'além do orçamento', es: 'más allá del presupuesto', en: 'past the budget' },
  service_item: { pt: 'serviço, não mercadoria', es: 'servicio, no mercancía', en: 'a service, not goods' },
  no_earlier_verdict: {
    pt: 'sem parecer anterior a reusar',
    es: 'sin dictamen anterior que reutilizar',
    en: 'no earlier verdict to reuse',
  },
  invalid_options: { pt: 'batch.json inválido', es: 'batch.json no válido', en: 'batch.json not valid' },
  rejected: { pt: 'recusada', es: 'rechazada', en: 'rejected' },
  not_submitted: { pt: 'não enviada', es: 'no enviada', en: 'not sent' },
};

const FAILURE_REASONS: ReadonlySet<string> = new Set(KNOWN_FAILURE_REASONS);

/** Takes a row's reason code and gives it in a few words in `language`; a code it does not know, as it is. */
export const reasonName = (code: string, language: Language): string =>
  REASON_NAMES[code]?.[language] ?? (FAILURE_REASONS.has(code) ? failureReasonWords(code, language) : code);
