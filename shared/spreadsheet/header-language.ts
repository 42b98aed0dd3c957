/**
 * The language a file's people read, guessed from its header row: the words they chose for their
 * own columns. The workbooks a batch writes label their columns in it (a batch option says it
 * outright). `Descrição`, `Fornecedor`, `Preço unitário` are Portuguese; `Descripción`,
 * `Proveedor`, `Precio` Spanish; `Description`, `Supplier`, `Price` English.
 *
 * Words are compared without case, as people write them (with and without accents where both
 * are common: `descricao` counts too). Only words of one language are listed: `SKU`, `NCM`,
 * `País`, `Código`, `Modelo` say nothing.
 */
import * as z from 'zod';

export const LANGUAGES = ['pt', 'es', 'en'] as const;
export const Language = z.enum(LANGUAGES);
export type Language = z.infer<typeof Language>;

/** When the header names nothing in any language: the output contract's own language. */
export const FALLBACK_LANGUAGE: Language = 'en';

const WORDS: Readonly<Record<Language, readonly string[]>> = {
  pt: [
    'descrição',
    'descricao',
    'operação',
    'operacao',
    'importação',
    'importacao',
    'exportação',
    'exportacao',
    'produto',
    'mercadoria',
    'fornecedor',
    'preço',
    'preco',
    'quantidade',
    'observação',
    'observacao',
    'observações',
    'observacoes',
    'referência',
    'moeda',
    'unidade',
    'arquivo',
    'folha',
    'origem',
    'nome',
    'atual',
    'sua',
    'do',
    'da',
    'dos',
    'das',
    // SPED EFD's field names (COD_ITEM, DESCR_ITEM, COD_BARRA, UNID_INV, TIPO_ITEM, ALIQ_ICMS).
    'cod',
    'descr',
    'barra',
    'unid',
    'tipo',
    'aliq',
  ],
  es: [
    'descripción',
    'descripcion',
    'operación',
    'operacion',
    'importación',
    'importacion',
    'exportación',
    'exportacion',
    'producto',
    'mercadería',
    'mercaderia',
    'proveedor',
    'precio',
    'cantidad',
    'observación',
    'observacion',
    'observaciones',
    'moneda',
    'unidad',
    'archivo',
    'hoja',
    'origen',
    'nombre',
    'artículo',
    'articulo',
    'su',
    'del',
    'la',
    'los',
  ],
  en: [
    'description',
    'operation',
    'product',
    'goods',
    'supplier',
    'vendor',
    'price',
    'quantity',
    'qty',
    'notes',
    'remarks',
    'reference',
    'currency',
    'unit',
    'weight',
    'brand',
    'sheet',
    'datasheet',
    'file',
    'country',
    'origin',
    'name',
    'customer',
    'manufacturer',
    'code',
    'item',
    'current',
    'your',
    'of',
  ],
};

const INDEX: ReadonlyMap<string, Language> = (() => {
  const index = new Map<string, Language>();
  for (const language of LANGUAGES) for (const word of WORDS[language]) index.set(word, language);
  return index;
})();

const words = (cell: string): string[] =>
  cell
    .normalize('NFC')
    .toLowerCase()
    .split(/[^\p{L}]+/u)
    .filter((word) => word !== '');

/**
 * The language most of the header's words belong to; a tie goes to the language listed first in
 * `LANGUAGES` (most of the users are in Brazil); no word of any: `FALLBACK_LANGUAGE`.
 */
export const headerLanguage = (header: readonly string[]): Language => {
  const hits: Record<Language, number> = { pt: 0, es: 0, en: 0 };
  for (const cell of header) {
    for (const word of words(cell)) {
      const language = INDEX.get(word);
      if (language) hits[language] += 1;
    }
  }
  const best = Math.max(...Object.values(hits));
  return best === 0 ? FALLBACK_LANGUAGE : LANGUAGES.find((language) => hits[language] === best)!;
};
