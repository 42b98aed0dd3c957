/**
 * Header → pipeline column matching, and data rows → `MappedRow`.
 *
 * A header matches when its `matchingKey` (no accents, case, spaces or punctuation; text in
 * brackets dropped, so `Descrição (obrigatório)` is `descricao`) equals an alias's key.
 * Whole-header equality, never substrings: `Código` is a SKU but `Código NCM` an NCM.
 *
 * Weak aliases are words people also use for other things (`Produto` is often the product
 * name next to a `Descrição`; `Item` is often a line number). A weak alias maps only when
 * no strong alias of the same column is present; otherwise it is passed through.
 */
import { columnLetter } from './column-letters.js';
import { SpreadsheetError } from './errors.js';
import { matchingKey } from './matching-key.js';
import {
  type ColumnMapping,
  type ColumnRef,
  type MappedRow,
  PIPELINE_COLUMNS,
  type PipelineColumn,
} from './schemas.js';
import type { DataRecord } from './table.js';

interface ColumnAliases {
  strong: readonly string[];
  weak: readonly string[];
}

/** Written as people write them; compared through `matchingKey`. */
export const COLUMN_ALIASES: Readonly<Record<PipelineColumn, ColumnAliases>> = {
  description: {
    strong: [
      'description',
      'descrição',
      'descripción',
      'desc',
      'descr',
      'product description',
      'descrição do produto',
      'descrição produto',
      'descripción del producto',
      'descripción producto',
      'descrição da mercadoria',
      'descripción de la mercadería',
      'goods description',
      'item description',
      // SPED EFD's register 0200 and the NF-e's prod element, as their readers name the columns.
      'DESCR_ITEM',
      'xProd',
    ],
    weak: ['produto', 'producto', 'product', 'mercadoria', 'mercadería'],
  },
  operation: {
    strong: [
      'operation',
      'operação',
      'operación',
      'tipo de operação',
      'tipo operação',
      'tipo de operación',
      'tipo operación',
      'operation type',
      'import/export',
      'importação/exportação',
      'importación/exportación',
      'imp/exp',
    ],
    weak: [],
  },
  country: {
    strong: [
      'country',
      'país',
      'country code',
      'código do país',
      'código del país',
      'origem/destino',
      'origen/destino',
      'origin/destination',
      'país de origem',
      'país de origen',
      'país de destino',
      'país origem',
      'país origen',
      'país de origem/destino',
      'país de origen/destino',
      'country of origin',
      'country of destination',
      'origin country',
      'destination country',
    ],
    // Bare `Origem` is left out on purpose: Brazilian ERPs use it for the ICMS origin code (0..8).
    weak: [],
  },
  sheet: {
    strong: [
      'sheet',
      'ficha técnica',
      'ficha',
      'technical sheet',
      'tech sheet',
      'datasheet',
      'data sheet',
      'spec sheet',
      'pdf',
      'arquivo',
      'archivo',
      'arquivo pdf',
      'archivo pdf',
      // How Spanish- and Portuguese-speaking users head the column of sheet files.
      'hoja técnica',
      'hoja de datos',
      'hoja de especificaciones',
      'ficha del producto',
      'ficha do produto',
      'folha técnica',
      'folha de dados',
      'especificação técnica',
      'especificación técnica',
      'documento técnico',
      'catálogo técnico',
      'arquivo da ficha',
      'archivo de la ficha',
      'pdf da ficha',
      'pdf de la ficha',
    ],
    weak: ['file', 'anexo', 'adjunto', 'documento'],
  },
  external_reference: {
    strong: [
      'external_reference',
      'external reference',
      'external ref',
      'referência externa',
      'referencia externa',
      'referência',
      'referencia',
      'reference',
      'ref',
      'sua referência',
      'su referencia',
      'your reference',
      'customer reference',
      'referência do cliente',
      'referencia del cliente',
    ],
    weak: [],
  },
  sku: {
    strong: [
      'sku',
      'código',
      'cód',
      'cod',
      'code',
      'código do produto',
      'código produto',
      'código del producto',
      'código producto',
      'código interno',
      'product code',
      'item code',
      'internal code',
      'part number',
      'part no',
      'pn',
      'artículo',
      'código de artículo',
      'article',
      'COD_ITEM',
      'cProd',
    ],
    weak: ['item'],
  },
  current_ncm: {
    strong: [
      'current_ncm',
      'current ncm',
      'ncm',
      'ncm atual',
      'ncm actual',
      'código ncm',
      'ncm code',
      'ncm/sh',
      'ncm vigente',
      'ncm declarada',
      'ncm declarado',
      'existing ncm',
      'classificação fiscal',
      'posición arancelaria',
      'posición ncm',
      'posição ncm',
      'COD_NCM',
    ],
    weak: [],
  },
};

interface AliasEntry {
  column: PipelineColumn;
  weak: boolean;
}

/** Key → column. Built once; an alias listed under two columns is a bug, caught at load. */
const ALIAS_INDEX: ReadonlyMap<string, AliasEntry> = (() => {
  const index = new Map<string, AliasEntry>();
  for (const column of PIPELINE_COLUMNS) {
    const { strong, weak } = COLUMN_ALIASES[column];
    for (const [aliases, isWeak] of [
      [strong, false],
      [weak, true],
    ] as const) {
      for (const alias of aliases) {
        const key = matchingKey(alias);
        const existing = index.get(key);
        if (existing && existing.column !== column) {
          throw new Error(`alias "${alias}" is listed for both ${existing.column} and ${column}`);
        }
        index.set(key, { column, weak: isWeak });
      }
    }
  }
  return index;
})();

/** `Descrição (obrigatório)` and `NCM [8 dígitos]` are matched on what is outside brackets. */
export const headerKey = (header: string): string => {
  const outsideBrackets = matchingKey(header.replace(/\([^)]*\)|\[[^\]]*\]/g, ''));
  return outsideBrackets === '' ? matchingKey(header) : outsideBrackets;
};

/** The pipeline column a header names, or null for a column to pass through. */
export const columnForHeader = (header: string): { column: PipelineColumn; weak: boolean } | null =>
  ALIAS_INDEX.get(headerKey(header)) ?? null;

const describeColumn = (ref: ColumnRef): string => `"${ref.header}" (column ${columnLetter(ref.index)})`;

export const matchColumns = (header: readonly string[], fileName: string): ColumnMapping => {
  const candidates = new Map<PipelineColumn, { strong: ColumnRef[]; weak: ColumnRef[] }>();
  header.forEach((text, index) => {
    const match = columnForHeader(text);
    if (!match) return;
    const entry = candidates.get(match.column) ?? { strong: [], weak: [] };
    (match.weak ? entry.weak : entry.strong).push({ index, header: text });
    candidates.set(match.column, entry);
  });

  const fields: ColumnMapping['fields'] = {};
  for (const [column, { strong, weak }] of candidates) {
    const chosen = strong.length > 0 ? strong : weak;
    const [first, second] = chosen;
    if (second) {
      throw new SpreadsheetError(
        'duplicate_column',
        fileName,
        `columns ${describeColumn(first!)} and ${describeColumn(second)} both mean "${column}"; ` +
          'keep one and rename or delete the other',
        { column: second.header },
      );
    }
    if (first) fields[column] = first;
  }

  if (!fields.description && !fields.sheet) {
    const found = header.filter((text) => text.trim() !== '').map((text) => `"${text}"`);
    throw new SpreadsheetError(
      'no_description_or_sheet_column',
      fileName,
      'has no description column and no technical-sheet column; name one column "Descrição" ' +
        '(or "Descripción", "Description") or "Ficha técnica" (or "Technical sheet"). ' +
        `Columns found: ${found.length > 0 ? found.join(', ') : '(none)'}`,
    );
  }

  const mapped = new Set(Object.values(fields).map((ref) => ref.index));
  const passthrough = header
    .map((text, index): ColumnRef => ({ index, header: text }))
    .filter((ref) => !mapped.has(ref.index));
  return { fields, passthrough };
};

export const mapRow = (record: DataRecord, columns: ColumnMapping): MappedRow => {
  const fields: MappedRow['fields'] = {};
  for (const column of PIPELINE_COLUMNS) {
    const ref = columns.fields[column];
    if (ref) fields[column] = record.cells[ref.index] ?? '';
  }
  return {
    row: record.row,
    line: record.line,
    cells: record.cells,
    fields,
    passthrough: columns.passthrough.map((ref) => record.cells[ref.index] ?? ''),
  };
};
