/**
 * What a person should look at in a file before paying for it, in each language: the file's
 * warnings (spreadsheet/input-report.ts) and its rows' (pipeline/prepare/row-warnings.ts).
 */

import type { Language } from '../spreadsheet/header-language.js';
import { columnAt, count, list, type Phrase, quoted, quotedList, rows } from './phrasing.js';

/** A column that is not read but whose cells look like technical sheets' file names. */
type SheetLikeColumn = {
  header: string;
  letter: string;
  examples: string[];
  /** The column read as the sheet, when the file has one. */
  sheet_header?: string;
  sheet_letter?: string;
};

/** Current NCMs of seven digits: a spreadsheet program dropped the leading zero. */
type LeadingZeroLost = { header: string; letter: string; count: number; first_row: number; example: string };

/** Declared NCMs that are no code in the NCM table in force: the first codes and rows, and the table. */
type DeclaredNotInForce = {
  header: string;
  codes: string[];
  more_codes: number;
  rows: number[];
  total: number;
  as_of: string | null;
  act: string;
};

/** A table dropped into reference/ncm/ that was not taken (shared/ncm-table/reference-table.ts). */
type TableNotTaken = {
  key: string;
  why: 'not_json' | 'not_a_table' | 'unreadable' | 'older';
  detail?: string;
  as_of: string | null;
  act: string;
};

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
];

/** `05/07/2026` (pt, es), `5 July 2026` (en); an ISO day. */
const day = (language: Language, iso: string | null | undefined): string => {
  if (!iso) return { pt: 'sem data', es: 'sin fecha', en: 'undated' }[language];
  const [year, month, date] = iso.split('-');
  return language === 'en'
    ? `${Number(date)} ${MONTHS[Number(month) - 1]} ${year}`
    : `${date}/${month}/${year}`;
};

/** `a tabela NCM vigente (de 05/07/2026, Resolução Gecex nº 812/2025)`. */
const tableNamed = (language: Language, p: { as_of: string | null; act: string }): string =>
  ({
    pt: `a tabela NCM vigente (de ${day('pt', p.as_of)}, ${p.act})`,
    es: `la tabla NCM vigente (del ${day('es', p.as_of)}, ${p.act})`,
    en: `the NCM table in force (of ${day('en', p.as_of)}, ${p.act})`,
  })[language];

const MORE_CODES: Record<Language, (more: number) => string> = {
  pt: (more) => ` e mais ${count('pt', more)}`,
  es: (more) => ` y ${count('es', more)} más`,
  en: (more) => ` and ${more} more`,
};

const codesNamed = (language: Language, p: DeclaredNotInForce): string =>
  list(language, p.codes) + (p.more_codes > 0 ? MORE_CODES[language](p.more_codes) : '');

const several = (p: DeclaredNotInForce): boolean => p.codes.length + p.more_codes > 1;

const NOT_TAKEN_WHY: Record<Language, (p: TableNotTaken) => string> = {
  pt: (p) =>
    ({
      not_json: `não é JSON${p.detail ? ` (${p.detail})` : ''}`,
      not_a_table:
        'é JSON, mas não a tabela como o Siscomex a publica (Data_Ultima_Atualizacao_NCM, Ato, Nomenclaturas)',
      unreadable: `não pôde ser lida${p.detail ? ` (${p.detail})` : ''}`,
      older: `é a tabela de ${day('pt', p.detail)}, mais antiga que a que o projeto traz`,
    })[p.why] ?? p.why,
  es: (p) =>
    ({
      not_json: `no es JSON${p.detail ? ` (${p.detail})` : ''}`,
      not_a_table:
        'es JSON, pero no la tabla como la publica Siscomex (Data_Ultima_Atualizacao_NCM, Ato, Nomenclaturas)',
      unreadable: `no se pudo leer${p.detail ? ` (${p.detail})` : ''}`,
      older: `es la tabla del ${day('es', p.detail)}, más antigua que la que trae el proyecto`,
    })[p.why] ?? p.why,
  en: (p) =>
    ({
      not_json: `it is not JSON${p.detail ? ` (${p.detail})` : ''}`,
      not_a_table:
        'it is JSON but not the table as Siscomex publishes it (Data_Ultima_Atualizacao_NCM, Ato, Nomenclaturas)',
      unreadable: `it cannot be read${p.detail ? ` (${p.detail})` : ''}`,
      older: `it is the table of ${day('en', p.detail)}, older than the one the project carries`,
    })[p.why] ?? p.why,
};

/** Descriptions that name a group of things rather than a product. */
type VagueDescriptions = { header: string; rows: number[]; total: number; example: string };

/** Sheets without a text layer (scans), and the rows that have nothing else to be read by. */
type ScannedSheets = {
  names: string[];
  /** More sheets than those named. */
  more_names: boolean;
  rows: number[];
  total: number;
  alone_rows: number[];
  alone_total: number;
};

/**
 * Text read from bytes that were not UTF-8 (spreadsheet/encoding-report.ts): how they were read,
 * where the first was, the rows (the first ten and `total`) and columns to check.
 */
type TextNotUtf8 = {
  file: string;
  /** `windows-1252`: bytes read as Windows-1252; `cesu-8`: UTF-16 surrogates encoded as UTF-8. */
  read_as: 'windows-1252' | 'cesu-8';
  line: number;
  /** The first such byte's offset in the file, and the bytes (`0xE7`, `0xED 0xA0 0x80`). */
  offset: number;
  bytes: string;
  header_row: boolean;
  rows: number[];
  total: number;
  /** The columns holding such text: each one's header ('' when it has none) and letter. */
  headers?: string[];
  letters?: string[];
  more_columns?: number;
};

const COLUMNS_WORD: Record<Language, [string, string]> = {
  pt: ['coluna', 'colunas'],
  es: ['columna', 'columnas'],
  en: ['column', 'columns'],
};

/** `columns "Descrição" (column B) and K`: a column without a header by its letter alone. */
const columnsOf = (language: Language, p: TextNotUtf8): string => {
  const [letters, headers, extra] = [p.letters ?? [], p.headers ?? [], p.more_columns ?? 0];
  const named = letters.map((letter, i) => (headers[i] ? columnAt(language, headers[i]!, letter) : letter));
  const [one, many] = COLUMNS_WORD[language];
  const word = letters.length + extra === 1 ? one : many;
  if (extra === 0) return `${word} ${list(language, named)}`;
  const more = { pt: `e mais ${extra}`, es: `y ${extra} más`, en: `and ${extra} more` };
  return `${word} ${named.join(', ')} ${more[language]}`;
};

/** Where to look, in English: `the header row and rows 2 and 4 in column "Descrição" (column B)`. */
const whereEn = (p: TextNotUtf8): string => {
  const parts = [p.header_row ? 'the header row' : '', p.total > 0 ? rows('en', p.rows ?? [], p.total) : ''];
  const said = list(
    'en',
    parts.filter((part) => part !== ''),
  );
  const columns = (p.letters ?? []).length > 0 ? ` in ${columnsOf('en', p)}` : '';
  return said === '' ? 'the file' : `${said}${columns}`;
};

/** `no cabeçalho e nas linhas 2 e 4, colunas …` / `en el encabezado y en las filas 2 y 4, columnas …`. */
const whereIn = (language: 'pt' | 'es', p: TextNotUtf8): string => {
  const header = { pt: 'no cabeçalho', es: 'en el encabezado' }[language];
  const into = p.total === 1 ? { pt: 'na', es: 'en la' }[language] : { pt: 'nas', es: 'en las' }[language];
  const parts = [p.header_row ? header : '', p.total > 0 ? `${into} ${rows(language, p.rows, p.total)}` : ''];
  const said = list(
    language,
    parts.filter((part) => part !== ''),
  );
  const columns = (p.letters ?? []).length > 0 ? `, ${columnsOf(language, p)}` : '';
  return said === '' ? { pt: 'no arquivo', es: 'en el archivo' }[language] : `${said}${columns}`;
};

const examples = (p: { examples: string[] }): string => p.examples.join(', ');

export const WARNING_PHRASES = {
  sheet_like_column: {
    pt: (p) =>
      `A coluna ${columnAt('pt', p.header, p.letter)} não é lida, mas suas células parecem nomes de ` +
      `arquivos de ficha técnica (${examples(p)}): ` +
      (p.sheet_header !== undefined
        ? `só a coluna ${columnAt('pt', p.sheet_header, p.sheet_letter ?? '')} é lida como ficha técnica.`
        : 'chame essa coluna de "ficha técnica" para enviar as fichas com as linhas.'),
    es: (p) =>
      `La columna ${columnAt('es', p.header, p.letter)} no se lee, pero sus celdas parecen nombres de ` +
      `archivos de ficha técnica (${examples(p)}): ` +
      (p.sheet_header !== undefined
        ? `solo la columna ${columnAt('es', p.sheet_header, p.sheet_letter ?? '')} se lee como ficha técnica.`
        : 'llama a esa columna "ficha técnica" para enviar las fichas con las filas.'),
    en: (p) =>
      `Column ${columnAt('en', p.header, p.letter)} is not read, but its cells look like technical sheet ` +
      `file names (${examples(p)}): ` +
      (p.sheet_header !== undefined
        ? `only column ${columnAt('en', p.sheet_header, p.sheet_letter ?? '')} is read as the sheet.`
        : 'name that column "sheet" (or "ficha técnica") to send the sheets with the rows.'),
  } satisfies Phrase<SheetLikeColumn>,
  leading_zero_lost: {
    pt: (p) =>
      (p.count === 1
        ? `A linha ${p.first_row} declara uma NCM de 7 dígitos (${p.example}) na coluna ${columnAt('pt', p.header, p.letter)}`
        : `${count('pt', p.count)} linhas declaram uma NCM de 7 dígitos na coluna ${columnAt('pt', p.header, p.letter)}, ` +
          `a primeira na linha ${p.first_row} (${p.example})`) +
      ': provavelmente um programa de planilhas tirou o zero à esquerda, então ela foi lida com o zero de volta. ' +
      'Formate essa coluna como texto para manter os zeros.',
    es: (p) =>
      (p.count === 1
        ? `La fila ${p.first_row} declara una NCM de 7 dígitos (${p.example}) en la columna ${columnAt('es', p.header, p.letter)}`
        : `${count('es', p.count)} filas declaran una NCM de 7 dígitos en la columna ${columnAt('es', p.header, p.letter)}, ` +
          `la primera en la fila ${p.first_row} (${p.example})`) +
      ': probablemente un programa de hojas de cálculo quitó el cero inicial, así que se leyó con el cero repuesto. ' +
      'Da formato de texto a esa columna para conservar los ceros.',
    en: (p) =>
      (p.count === 1
        ? `Row ${p.first_row} declares a 7-digit NCM (${p.example}) in column ${columnAt('en', p.header, p.letter)}`
        : `${p.count} rows declare a 7-digit NCM in column ${columnAt('en', p.header, p.letter)}, ` +
          `the first on row ${p.first_row} (${p.example})`) +
      ': a spreadsheet program probably dropped the leading zero, so it was read with one put back. ' +
      'Format that column as text to keep the zeros.',
  } satisfies Phrase<LeadingZeroLost>,
  declared_ncm_not_in_force: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}, ${rows('pt', p.rows, p.total)}: ` +
      `${several(p) ? 'as NCMs declaradas' : 'a NCM declarada'} ${codesNamed('pt', p)} ` +
      `não ${several(p) ? 'estão' : 'está'} n${tableNamed('pt', p)}; uma NF-e com uma NCM fora da tabela é ` +
      'rejeitada pela SEFAZ (rejeição 778). Essas linhas são classificadas mesmo assim: corrija a NCM no ERP ' +
      'com a do resultado.',
    es: (p) =>
      `Columna ${quoted(p.header)}, ${rows('es', p.rows, p.total)}: ` +
      `${several(p) ? 'las NCM declaradas' : 'la NCM declarada'} ${codesNamed('es', p)} ` +
      `no ${several(p) ? 'están' : 'está'} en ${tableNamed('es', p)}; en Brasil, la SEFAZ rechaza una NF-e ` +
      'con una NCM fuera de la tabla (rechazo 778). Esas filas se clasifican igual: corrige la NCM en el ERP ' +
      'con la del resultado.',
    en: (p) =>
      `Column ${quoted(p.header)}, ${rows('en', p.rows, p.total)}: the declared ` +
      `${several(p) ? 'NCMs' : 'NCM'} ${codesNamed('en', p)} ${several(p) ? 'are' : 'is'} not in ` +
      `${tableNamed('en', p)}; SEFAZ rejects an NF-e whose NCM is not in the table (rejection 778). The rows ` +
      'are classified all the same: correct the NCM in the ERP from the result.',
  } satisfies Phrase<DeclaredNotInForce>,
  ncm_table_not_taken: {
    pt: (p) =>
      `${p.key} não foi usado como tabela NCM: ${NOT_TAKEN_WHY.pt(p)}. Os códigos foram conferidos com ${tableNamed('pt', p)}.`,
    es: (p) =>
      `${p.key} no se usó como tabla NCM: ${NOT_TAKEN_WHY.es(p)}. Los códigos se verificaron con ${tableNamed('es', p)}.`,
    en: (p) =>
      `${p.key} was not taken as the NCM table: ${NOT_TAKEN_WHY.en(p)}. The codes were checked against ${tableNamed('en', p)}.`,
  } satisfies Phrase<TableNotTaken>,
  vague_descriptions: {
    pt: (p) =>
      `Coluna ${quoted(p.header)}, ${rows('pt', p.rows, p.total)}: a descrição nomeia um grupo de coisas, ` +
      `não um produto (ex.: ${quoted(p.example)}); o classificador provavelmente fará perguntas antes de ` +
      'decidir. Diga o que é o produto, de quê e para quê, ou inclua uma ficha técnica.',
    es: (p) =>
      `Columna ${quoted(p.header)}, ${rows('es', p.rows, p.total)}: la descripción nombra un grupo de cosas, ` +
      `no un producto (p. ej. ${quoted(p.example)}); lo más probable es que el clasificador haga preguntas ` +
      'antes de decidir. Indica qué es el producto, de qué y para qué, o agrega una ficha técnica.',
    en: (p) =>
      `Column ${quoted(p.header)}, ${rows('en', p.rows, p.total)}: the description names a group of things ` +
      `rather than a product (e.g. ${quoted(p.example)}); the classifier will most likely ask questions ` +
      'before it decides. Say what the product is, of what, for what, or add a technical sheet.',
  } satisfies Phrase<VagueDescriptions>,
  scanned_sheets: {
    pt: (p) => {
      const several = p.names.length > 1 || p.more_names;
      const names = quotedList('pt', p.names) + (p.more_names ? ' e outras' : '');
      const alone = p.alone_total;
      return (
        `${several ? 'As fichas técnicas' : 'A ficha técnica'} ${names} (${rows('pt', p.rows, p.total)}) ` +
        `não ${several ? 'têm camada de texto (são digitalizadas): o serviço não consegue lê-las' : 'tem camada de texto (é digitalizada): o serviço não consegue lê-la'}` +
        (alone > 0
          ? `, e ${alone === 1 ? 'a' : 'as'} ${rows('pt', p.alone_rows, alone)} não ${alone === 1 ? 'tem' : 'têm'} descrição ao lado, ` +
            `então ${alone === 1 ? 'vai' : 'vão'} falhar se você não incluir uma descrição ou um PDF com texto.`
          : '; só a descrição ao lado será classificada.')
      );
    },
    es: (p) => {
      const several = p.names.length > 1 || p.more_names;
      const names = quotedList('es', p.names) + (p.more_names ? ' y otras' : '');
      const alone = p.alone_total;
      return (
        `${several ? 'Las fichas técnicas' : 'La ficha técnica'} ${names} (${rows('es', p.rows, p.total)}) ` +
        `no ${several ? 'tienen capa de texto (son escaneos): el servicio no puede leerlas' : 'tiene capa de texto (es un escaneo): el servicio no puede leerla'}` +
        (alone > 0
          ? `, y ${alone === 1 ? 'la' : 'las'} ${rows('es', p.alone_rows, alone)} no ${alone === 1 ? 'tiene' : 'tienen'} descripción al lado, ` +
            `así que ${alone === 1 ? 'fallará' : 'fallarán'} a menos que agregues una descripción o un PDF con texto.`
          : '; solo se clasificará la descripción que la acompaña.')
      );
    },
    en: (p) => {
      const several = p.names.length > 1 || p.more_names;
      const names = p.names.map((name) => quoted(name)).join(', ') + (p.more_names ? ' and others' : '');
      const alone = p.alone_total;
      return (
        `Technical sheet${several ? 's' : ''} ${names} (${rows('en', p.rows, p.total)}) ` +
        `${several ? 'have' : 'has'} no text layer (a scan): the service cannot read it` +
        (alone > 0
          ? `, and ${rows('en', p.alone_rows, alone)} ${alone === 1 ? 'has' : 'have'} no description beside it, so ` +
            `${alone === 1 ? 'it' : 'they'} will fail unless you add a description or a PDF with text.`
          : '; only the description beside it will be classified.')
      );
    },
  } satisfies Phrase<ScannedSheets>,
  text_not_utf8: {
    pt: (p) =>
      p.read_as === 'cesu-8'
        ? `${p.file} não é UTF-8 válido: a linha ${p.line} tem os bytes ${p.bytes ?? ''} (byte ${p.offset ?? 0} do arquivo), ` +
          'um substituto (surrogate) UTF-16 gravado como se fosse um caractere (CESU-8, o que alguns programas ' +
          'Java e bancos de dados gravam), que o UTF-8 não permite. Um par deles foi lido como o caractere que ' +
          `representa; um substituto sem par, como "\uFFFD". Confira o texto ${whereIn('pt', p)}, e salve o ` +
          'arquivo como UTF-8.'
        : `${p.file} não está em UTF-8: a linha ${p.line} tem o byte ${p.bytes ?? ''} (byte ${p.offset ?? 0} do arquivo), ` +
          'que o UTF-8 não permite, então esses bytes foram lidos como Windows-1252, o que o "CSV" simples do ' +
          `Excel grava. Confira as letras acentuadas ${whereIn('pt', p)}; se alguma estiver errada, salve o ` +
          'arquivo como "CSV UTF-8" e envie-o de novo.',
    es: (p) =>
      p.read_as === 'cesu-8'
        ? `${p.file} no es UTF-8 válido: la línea ${p.line} tiene los bytes ${p.bytes ?? ''} (byte ${p.offset ?? 0} del ` +
          'archivo), un sustituto (surrogate) UTF-16 escrito como si fuera un carácter (CESU-8, lo que escriben ' +
          'algunos programas Java y bases de datos), que UTF-8 no permite. Un par de ellos se leyó como el ' +
          `carácter que representa; un sustituto sin par, como "\uFFFD". Revisa el texto ${whereIn('es', p)}, ` +
          'y guarda el archivo como UTF-8.'
        : `${p.file} no está en UTF-8: la línea ${p.line} tiene el byte ${p.bytes ?? ''} (byte ${p.offset ?? 0} del ` +
          'archivo), que UTF-8 no permite, así que esos bytes se leyeron como Windows-1252, lo que escribe el ' +
          `"CSV" simple de Excel. Revisa las letras con acento ${whereIn('es', p)}; si alguna está mal, guarda ` +
          'el archivo como "CSV UTF-8" y vuelve a subirlo.',
    en: (p) =>
      p.read_as === 'cesu-8'
        ? `${p.file} is not valid UTF-8: line ${p.line} holds the bytes ${p.bytes ?? ''} (byte ${p.offset ?? 0} of the ` +
          'file), a UTF-16 surrogate written as if it were a character (CESU-8, what some Java programs and ' +
          'databases write), which UTF-8 does not allow. A pair of them was read as the character it stands ' +
          `for, a surrogate without its pair as "\uFFFD". Check ${whereEn(p)}, and save the file as UTF-8.`
        : `${p.file} is not UTF-8 text: line ${p.line} holds the byte ${p.bytes ?? ''} (byte ${p.offset ?? 0} of the ` +
          "file), which UTF-8 does not allow, so such bytes were read as Windows-1252, what Excel's plain " +
          `"CSV" writes. Check the accented letters of ${whereEn(p)}; if any look wrong, save the file as ` +
          '"CSV UTF-8" and upload it again.',
  } satisfies Phrase<TextNotUtf8>,
};
