/**
 * Why a row cannot be sent to the service, in each language: one entry per rejection reason
 * (spreadsheet/schemas.ts `REJECTION_REASONS`), so a new reason without its words fails the type
 * check. The English is the `detail` results.csv keeps for programs.
 */

import type { Language } from '../spreadsheet/header-language.js';
import type { PipelineColumn, RejectionReason } from '../spreadsheet/schemas.js';
import { capitalised, column, count, type Phrase, quoted } from './phrasing.js';

/** What a rejection names. Every field but `header` belongs to some reasons only. */
type RejectionParams = {
  /** The column as the file wrote its header, or the pipeline's name when the file has none. */
  header: string;
  /** The file has no such column: `header` is the pipeline's name for it. */
  absent?: boolean;
  /** description_missing: the sheet column, as `header` and `absent` are for the description. */
  sheet_header?: string;
  sheet_absent?: boolean;
  /** The cell's value as written (a path, an operation, a country). */
  value?: string;
  /** A length in characters, and the service's limit. */
  length?: number;
  limit?: number;
  /** country_unknown: the code a country's name was read as, or the batch's default country. */
  code?: string;
  default?: string;
  /** sheet_path_invalid: what is wrong with the path. */
  why?: 'absolute' | 'outside' | 'not_pdf' | 'too_long';
  /** sheet_not_found: the folder the sheet was looked for in. */
  folder?: string;
  /** sheet_too_large, row_too_large: a size and its limit, in bytes. */
  size_bytes?: number;
  limit_bytes?: number;
  /** cell_too_long, row_too_large, control_character: the cell's column letter. */
  letter?: string;
  /** control_character: the character's code point (0 for NUL). */
  code_point?: number;
};

type Rejection = Phrase<RejectionParams>;

/** The pipeline's columns by their name in each language, for a column the file does not have. */
const COLUMN_NAME: Record<Language, Record<PipelineColumn, string>> = {
  pt: {
    description: 'descrição',
    operation: 'operação',
    country: 'país',
    sheet: 'ficha técnica',
    external_reference: 'referência externa',
    sku: 'SKU',
    current_ncm: 'NCM',
  },
  es: {
    description: 'descripción',
    operation: 'operación',
    country: 'país',
    sheet: 'ficha técnica',
    external_reference: 'referencia externa',
    sku: 'SKU',
    current_ncm: 'NCM',
  },
  en: {
    description: 'description',
    operation: 'operation',
    country: 'country',
    sheet: 'sheet',
    external_reference: 'external_reference',
    sku: 'sku',
    current_ncm: 'current_ncm',
  },
};
const nameOf = (language: Language, header: string): string =>
  COLUMN_NAME[language][header as PipelineColumn] ?? header;

/** `column "País"`, or, for a column the file lacks, `a coluna de país` in pt and es. */
const col = (language: Language, header: string, absent?: boolean): string => {
  if (language === 'en') return column(language, header);
  if (!absent) return `${language === 'pt' ? 'a' : 'la'} ${column(language, header)}`;
  return language === 'pt' ? `a coluna de ${nameOf('pt', header)}` : `la columna de ${nameOf('es', header)}`;
};

/** Why a cell has no value: `column "País" is empty`, or the file has no such column. */
const emptyOrAbsent = (language: Language, p: RejectionParams): string => {
  if (p.absent) {
    return {
      pt: `o arquivo não tem coluna de ${nameOf('pt', p.header)}`,
      es: `el archivo no tiene columna de ${nameOf('es', p.header)}`,
      en: `the file has no ${p.header} column`,
    }[language];
  }
  return {
    pt: `a coluna ${quoted(p.header)} está vazia`,
    es: `la columna ${quoted(p.header)} está vacía`,
    en: `column ${quoted(p.header)} is empty`,
  }[language];
};

const megabytes = (language: Language, bytes: number): string => {
  const mb = (bytes / (1024 * 1024)).toFixed(1);
  return `${language === 'en' ? mb : mb.replace('.', ',')} MB`;
};

const tooLong: Rejection = {
  pt: (p) =>
    `A coluna ${quoted(p.header)} tem ${count('pt', p.length ?? 0)} caracteres; ` +
    `o máximo aceito é ${count('pt', p.limit ?? 0)}.`,
  es: (p) =>
    `La columna ${quoted(p.header)} tiene ${count('es', p.length ?? 0)} caracteres; ` +
    `se aceptan como máximo ${count('es', p.limit ?? 0)}.`,
  en: (p) =>
    `${capitalised(column('en', p.header))} has ${p.length} characters; at most ${p.limit} are accepted.`,
};

/** `column "Obs" (column F)`, or `column F` when the column has no header. */
const cellAt = (language: Language, p: RejectionParams): string => {
  const word = { pt: 'coluna', es: 'columna', en: 'column' }[language];
  const header = p.header.trim();
  return header === ''
    ? `${word} ${p.letter ?? ''}`
    : `${word} ${quoted(header)} (${word} ${p.letter ?? ''})`;
};

/** `U+001B`. */
const codePoint = (code: number): string => `U+${code.toString(16).toUpperCase().padStart(4, '0')}`;

/** A size or a count with its thousands separated, as the language writes it (`32.767`, `32,767`). */
const grouped = (language: Language, value = 0): string =>
  new Intl.NumberFormat({ pt: 'pt-BR', es: 'es-AR', en: 'en-US' }[language]).format(value);

/** ` (768 bytes)`: the limit a path too long is over. */
const bytesLimit = (p: RejectionParams): string => (p.why === 'too_long' ? ` (${p.limit} bytes)` : '');

const SHEET_PATH_WHY: Record<NonNullable<RejectionParams['why']>, Record<Language, string>> = {
  absolute: {
    pt: 'precisa ser um caminho dentro da pasta do lote, não um caminho absoluto, uma unidade ou uma URL',
    es: 'debe ser una ruta dentro de la carpeta del lote, no una ruta absoluta, una unidad ni una URL',
    en: 'must be a path inside the batch folder, not an absolute path, drive or URL',
  },
  outside: {
    pt: 'precisa ficar dentro da pasta do lote (".." sai dela)',
    es: 'debe quedar dentro de la carpeta del lote (".." sale de ella)',
    en: 'must stay inside the batch folder (".." leads out of it)',
  },
  not_pdf: {
    pt: 'precisa ser o nome de um arquivo PDF terminado em ".pdf"',
    es: 'debe ser el nombre de un archivo PDF terminado en ".pdf"',
    en: 'must name a PDF file ending in ".pdf"',
  },
  too_long: {
    pt: 'é mais longo do que pode ser o caminho de um arquivo na pasta do lote',
    es: 'es más largo de lo que puede ser la ruta de un archivo en la carpeta del lote',
    en: "is longer than a file's path in the batch folder may be",
  },
};

/** The batch folder as a person named it (`products`), not the bucket's key for it (`inbox/products/`). */
const folderName = (folder: string | undefined): string =>
  (folder ?? '').replace(/^inbox\//, '').replace(/\/$/, '');

export const REJECTION_PHRASES: Record<RejectionReason, Rejection> = {
  description_missing: {
    pt: (p) =>
      `Sem descrição e sem ficha técnica: preencha ${col('pt', p.header, p.absent)} ou ` +
      `${col('pt', p.sheet_header ?? 'sheet', p.sheet_absent)}.`,
    es: (p) =>
      `Sin descripción y sin ficha técnica: completa ${col('es', p.header, p.absent)} o ` +
      `${col('es', p.sheet_header ?? 'sheet', p.sheet_absent)}.`,
    en: (p) =>
      `No description and no technical sheet: fill ${column('en', p.header)} or ` +
      `${column('en', p.sheet_header ?? 'sheet')}.`,
  },
  description_too_short: {
    pt: (p) =>
      `A coluna ${quoted(p.header)} tem ${p.length} caracteres; ` +
      `uma descrição precisa de pelo menos ${p.limit}.`,
    es: (p) =>
      `La columna ${quoted(p.header)} tiene ${p.length} caracteres; ` +
      `una descripción necesita al menos ${p.limit}.`,
    en: (p) =>
      `${capitalised(column('en', p.header))} has ${p.length} characters; ` +
      `a description needs at least ${p.limit}.`,
  },
  description_too_long: tooLong,
  operation_missing: {
    pt: (p) => `Sem operação: ${emptyOrAbsent('pt', p)} e o lote não tem operação padrão.`,
    es: (p) => `Sin operación: ${emptyOrAbsent('es', p)} y el lote no tiene una operación predeterminada.`,
    en: (p) => `No operation: ${emptyOrAbsent('en', p)} and the batch has no default operation.`,
  },
  operation_invalid: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} não é uma operação; ` +
      'escreva importação (import, importación) ou exportação (export, exportación).',
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} no es una operación; ` +
      'escribe importación (import, importação) o exportación (export, exportação).',
    en: (p) =>
      `${capitalised(column('en', p.header))}: ${quoted(p.value ?? '')} is not an operation; ` +
      'write import (importação, importación) or export (exportação, exportación).',
  },
  country_missing: {
    pt: (p) => `Sem país: ${emptyOrAbsent('pt', p)} e o lote não tem país padrão.`,
    es: (p) => `Sin país: ${emptyOrAbsent('es', p)} y el lote no tiene un país predeterminado.`,
    en: (p) => `No country: ${emptyOrAbsent('en', p)} and the batch has no default country.`,
  },
  country_invalid: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} não é um código de país nem o nome de um ` +
      'país conhecido; escreva o código ISO de duas letras (BR, AR, CN…).',
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} no es un código de país ni el nombre de un ` +
      'país conocido; escribe el código ISO de dos letras (BR, AR, CN…).',
    en: (p) =>
      `${capitalised(column('en', p.header))}: ${quoted(p.value ?? '')} is not a country code or a known ` +
      'country name; write the two-letter ISO code (BR, AR, CN…).',
  },
  country_unknown: {
    pt: (p) =>
      p.default !== undefined
        ? `${capitalised(emptyOrAbsent('pt', p))} e o país padrão do lote, ${quoted(p.default)}, não é um dos que o serviço aceita.`
        : `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} (${p.code}) não é um dos países que o serviço aceita.`,
    es: (p) =>
      p.default !== undefined
        ? `${capitalised(emptyOrAbsent('es', p))} y el país predeterminado del lote, ${quoted(p.default)}, no es uno de los que acepta el servicio.`
        : `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} (${p.code}) no es uno de los países que acepta el servicio.`,
    en: (p) =>
      p.default !== undefined
        ? `${capitalised(emptyOrAbsent('en', p))} and the batch default country ${quoted(p.default)} is not one the service accepts.`
        : `${capitalised(column('en', p.header))}: ${quoted(p.value ?? '')} (${p.code}) is not one of the countries the service accepts.`,
  },
  sheet_path_invalid: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} ${SHEET_PATH_WHY[p.why ?? 'not_pdf'].pt}.`,
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} ${SHEET_PATH_WHY[p.why ?? 'not_pdf'].es}.`,
    en: (p) =>
      `${capitalised(column('en', p.header))}: ${quoted(p.value ?? '')} ${SHEET_PATH_WHY[p.why ?? 'not_pdf'].en}${bytesLimit(p)}.`,
  },
  external_reference_too_long: tooLong,
  sku_too_long: {
    pt: (p) =>
      `A coluna ${quoted(p.header)} tem ${count('pt', p.length ?? 0)} caracteres; um SKU pode ter no máximo ${p.limit}.`,
    es: (p) =>
      `La columna ${quoted(p.header)} tiene ${count('es', p.length ?? 0)} caracteres; un SKU puede tener como máximo ${p.limit}.`,
    en: (p) =>
      `${capitalised(column('en', p.header))} has ${p.length} characters; a SKU may hold at most ${p.limit}.`,
  },
  cell_too_long: {
    pt: (p) =>
      `A célula da ${cellAt('pt', p)} tem ${grouped('pt', p.length)} caracteres; ` +
      `uma célula pode ter no máximo ${grouped('pt', p.limit)}.`,
    es: (p) =>
      `La celda de la ${cellAt('es', p)} tiene ${grouped('es', p.length)} caracteres; ` +
      `una celda puede tener como máximo ${grouped('es', p.limit)}.`,
    en: (p) =>
      `${capitalised(cellAt('en', p))} holds ${grouped('en', p.length)} characters; ` +
      `a cell may hold at most ${grouped('en', p.limit)}.`,
  },
  row_too_large: {
    pt: (p) =>
      `As células da linha somam ${grouped('pt', p.size_bytes)} bytes de texto; uma linha pode ter no máximo ` +
      `${grouped('pt', p.limit_bytes)} (256 KiB). A maior célula é a da ${cellAt('pt', p)}, com ${grouped('pt', p.length)} caracteres.`,
    es: (p) =>
      `Las celdas de la fila suman ${grouped('es', p.size_bytes)} bytes de texto; una fila puede tener como máximo ` +
      `${grouped('es', p.limit_bytes)} (256 KiB). La celda más grande es la de la ${cellAt('es', p)}, con ${grouped('es', p.length)} caracteres.`,
    en: (p) =>
      `The row's cells hold ${grouped('en', p.size_bytes)} bytes of text in all; a row may hold at most ` +
      `${grouped('en', p.limit_bytes)} (256 KiB). The largest is ${cellAt('en', p)}, with ${grouped('en', p.length)} characters.`,
  },
  control_character: {
    pt: (p) =>
      `A célula da ${cellAt('pt', p)} tem ${
        p.code_point ? `o caractere de controle ${codePoint(p.code_point)}` : 'um caractere NUL (byte 0)'
      }, que não é texto; apague-o.`,
    es: (p) =>
      `La celda de la ${cellAt('es', p)} tiene ${
        p.code_point ? `el carácter de control ${codePoint(p.code_point)}` : 'un carácter NUL (byte 0)'
      }, que no es texto; bórralo.`,
    en: (p) =>
      `${capitalised(cellAt('en', p))} holds ${
        p.code_point ? `the control character ${codePoint(p.code_point)}` : 'a NUL character (byte 0)'
      }, which is not text; remove it.`,
  },
  sheet_not_found: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} não está na pasta do lote ${quoted(folderName(p.folder))}.`,
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} no está en la carpeta del lote ${quoted(folderName(p.folder))}.`,
    en: (p) =>
      `Column ${quoted(p.header)}: ${quoted(p.value ?? '')} was not found in the batch folder ${p.folder}.`,
  },
  sheet_too_large: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} tem ${megabytes('pt', p.size_bytes ?? 0)}; ` +
      `o serviço aceita fichas técnicas de até ${megabytes('pt', p.limit_bytes ?? 0)}.`,
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} pesa ${megabytes('es', p.size_bytes ?? 0)}; ` +
      `el servicio acepta fichas técnicas de hasta ${megabytes('es', p.limit_bytes ?? 0)}.`,
    en: (p) =>
      `Column ${quoted(p.header)}: ${quoted(p.value ?? '')} is ${megabytes('en', p.size_bytes ?? 0)}; ` +
      `the service accepts technical sheets up to ${megabytes('en', p.limit_bytes ?? 0)}.`,
  },
  sheet_not_pdf: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} não é um arquivo PDF ` +
      '(o conteúdo não começa com "%PDF-").',
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} no es un archivo PDF ` +
      '(su contenido no empieza con "%PDF-").',
    en: (p) =>
      `Column ${quoted(p.header)}: ${quoted(p.value ?? '')} is not a PDF file ` +
      '(its content does not start with "%PDF-").',
  },
  sheet_damaged: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} está incompleto: não termina como um PDF termina ` +
      '(falta o marcador "%%EOF"), então não foi salvo ou copiado por inteiro. Salve ou exporte o PDF novamente.',
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} está incompleto: no termina como termina un PDF ` +
      '(falta la marca "%%EOF"), así que no se guardó o copió entero. Guarda o exporta el PDF de nuevo.',
    en: (p) =>
      `Column ${quoted(p.header)}: ${quoted(p.value ?? '')} is cut short: it does not end as a PDF does ` +
      '(no "%%EOF" marker), so it was not saved or copied whole. Save or export it again.',
  },
  sheet_outside_folder: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}: ${quoted(p.value ?? '')} é um link para um arquivo fora da pasta do lote; ` +
      'links para fora da pasta não são seguidos. Coloque o próprio arquivo na pasta.',
    es: (p) =>
      `Columna ${quoted(p.header)}: ${quoted(p.value ?? '')} es un enlace a un archivo fuera de la carpeta del lote; ` +
      'los enlaces hacia fuera de la carpeta no se siguen. Pon el archivo mismo en la carpeta.',
    en: (p) =>
      `Column ${quoted(p.header)}: ${quoted(p.value ?? '')} is a link to a file outside the batch folder; ` +
      'links out of the folder are not followed. Put the file itself in the folder.',
  },
};
