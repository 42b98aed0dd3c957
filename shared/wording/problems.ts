/**
 * What went wrong with a whole batch or an answers round, in each language: the file's own
 * problems (a row longer than the header, a quote not doubled), a file that cannot be read at
 * all, batch.json, the budget, the service's refusal, rows that did not finish, a round's answers.
 */

import type { Language } from '../spreadsheet/header-language.js';
import type { SpreadsheetErrorCode } from '../spreadsheet/schemas.js';
import { capitalised, count, list, type Phrase, plural, quoted, quotedList } from './phrasing.js';

/** `produtos.csv, linha 12`: the file, and the line where it applies. */
const at = (language: Language, file: string, line?: number, row?: number): string => {
  const lineWord = { pt: 'linha', es: 'línea', en: 'line' }[language];
  const rowWord = { pt: 'linha de dados', es: 'fila', en: 'row' }[language];
  return [file, line === undefined ? null : `${lineWord} ${line}`]
    .filter((part) => part !== null)
    .join(', ')
    .concat(row === undefined ? '' : ` (${rowWord} ${row})`);
};

/**
 * A file that cannot be read at all (spreadsheet/errors.ts `SpreadsheetError`): its code, where,
 * and the English sentence the reader wrote (`text`), which the English wording shows as is.
 */
export type FileRefusalParams = {
  reason: string;
  file: string;
  line?: number;
  column?: string;
  text: string;
  /** too_many_rows: the most rows a batch takes. */
  limit?: number;
  /** no_description_or_sheet_column: the columns the file has. */
  found?: string[];
  /** duplicate_column: the two columns and the field both mean. */
  columns?: string[];
  field?: string;
  /** xlsx_invalid, when the reader says what is damaged. */
  detail?: string;
  /** header_too_long: the column's letter and length. */
  letter?: string;
  length?: number;
  /** header_too_large: how many columns, their names' size and the most a batch keeps, in KB. */
  column_count?: number;
  size_kb?: number;
  limit_kb?: number;
  /** xlsx_*: the workbook's part (`xl/worksheets/sheet1.xml`), and the cell, row or shared text in it. */
  part?: string;
  cell?: string;
  row?: number;
  item?: number;
  /** nfe_not_an_invoice: the XML's root element (`procEventoNFe`, `html`). */
  root?: string;
  /** zip_no_invoices: how many files the ZIP holds beyond the ones `found` names. */
  more?: number;
  /** zip_damaged: the kind of damage (`directory`, `inflate`, `longer`, `shorter`); `detail` says it in English. */
  damage?: string;
  /** xlsx_part_too_large: the part's limit, in MB. */
  limit_mb?: number;
  /**
   * not_a_text_file: what the file looks like (`pdf`, `png`, `jpeg`, `gif`, `gzip`, `7z`, `rar`,
   * `rtf`, `elf`, `sqlite`, `html`; `binary`, control characters in its first `sampled` bytes, the
   * first `first_byte` at byte `offset`; `binary_further`, in a block of `characters` further in).
   */
  looks_like?: string;
  count?: number;
  sampled?: number;
  first_byte?: string;
  offset?: number;
  characters?: number;
};

/** What a file that is not text looks like, by its first bytes. */
const LOOKS_LIKE: Record<string, Record<'pt' | 'es', string>> = {
  pdf: { pt: 'um documento PDF (começa com "%PDF-")', es: 'un documento PDF (empieza con "%PDF-")' },
  png: { pt: 'uma imagem PNG', es: 'una imagen PNG' },
  jpeg: { pt: 'uma imagem JPEG', es: 'una imagen JPEG' },
  gif: { pt: 'uma imagem GIF', es: 'una imagen GIF' },
  gzip: { pt: 'um arquivo compactado gzip', es: 'un archivo comprimido gzip' },
  '7z': { pt: 'um arquivo compactado 7-Zip', es: 'un archivo comprimido 7-Zip' },
  rar: { pt: 'um arquivo compactado RAR', es: 'un archivo comprimido RAR' },
  rtf: { pt: 'um documento RTF (começa com "{\\rtf")', es: 'un documento RTF (empieza con "{\\rtf")' },
  elf: { pt: 'um programa (ELF)', es: 'un programa (ELF)' },
  sqlite: { pt: 'um banco de dados SQLite', es: 'una base de datos SQLite' },
};

const UPLOAD_TEXT = {
  pt: 'envie o catálogo como CSV, texto separado por tabulações (.txt, .tsv) ou XLSX',
  es: 'sube el catálogo como CSV, texto delimitado por tabulaciones (.txt, .tsv) o XLSX',
};

/** Why a file named like text is not text, in Portuguese or Spanish. */
const notText = (language: 'pt' | 'es', p: FileRefusalParams): string => {
  const upload = UPLOAD_TEXT[language];
  const kind = p.looks_like ?? 'binary';
  const known = LOOKS_LIKE[kind]?.[language];
  if (known)
    return language === 'pt'
      ? `não é um arquivo de texto: é ${known}; ${upload}`
      : `no es un archivo de texto: es ${known}; ${upload}`;
  if (kind === 'html') {
    return language === 'pt'
      ? `é uma página da web (HTML), não uma tabela de texto; abra no Excel e salve como CSV, ou ${upload}`
      : `es una página web (HTML), no una tabla de texto; ábrela en Excel y guárdala como CSV, o ${upload}`;
  }
  const n = count(language, p.count ?? 0);
  if (kind === 'binary_further') {
    return language === 'pt'
      ? `contém dados binários daqui em diante: ${n} de ${count('pt', p.characters ?? 0)} caracteres são ` +
          `caracteres de controle que um texto nunca tem; parece que dados de um programa foram gravados no arquivo. ${capitalised(upload)}`
      : `contiene datos binarios desde aquí: ${n} de ${count('es', p.characters ?? 0)} caracteres son caracteres ` +
          `de control que un texto nunca tiene; parece que se escribieron datos de un programa en el archivo. ${capitalised(upload)}`;
  }
  const first = p.first_byte === 'NUL' ? 'NUL' : (p.first_byte ?? '');
  return language === 'pt'
    ? `não é um arquivo de texto: ${n} dos seus primeiros ${count('pt', p.sampled ?? 0)} bytes são caracteres de ` +
        `controle que um texto nunca tem, o primeiro um ${first} no byte ${count('pt', p.offset ?? 0)}; parece dados ` +
        `binários de um programa. ${capitalised(upload)}`
    : `no es un archivo de texto: ${n} de sus primeros ${count('es', p.sampled ?? 0)} bytes son caracteres de ` +
        `control que un texto nunca tiene, el primero un ${first} en el byte ${count('es', p.offset ?? 0)}; parecen ` +
        `datos binarios de un programa. ${capitalised(upload)}`;
};

type Refusal = Phrase<FileRefusalParams>;

/** `produtos.xlsx, linha 3, coluna "País"`: where a refusal applies. */
const where = (language: Language, p: FileRefusalParams): string => {
  const columnWord = { pt: 'coluna', es: 'columna', en: 'column' }[language];
  return at(language, p.file, p.line) + (p.column === undefined ? '' : `, ${columnWord} ${quoted(p.column)}`);
};

/** `C100 (5.000), C170 (12.000)`: each register skipped and how many times. */
const registerCounts = (
  language: Language,
  registers: readonly string[],
  counts: readonly number[],
): string =>
  list(
    language,
    registers.map((register, i) => `${register} (${count(language, counts[i] ?? 0)})`),
  );

/** zip_damaged: what is wrong, in the reader's language when the reader named the kind of damage. */
const ZIP_DAMAGE: Record<string, Record<'pt' | 'es', string>> = {
  directory: {
    pt: 'seu diretório não pode ser lido: o arquivo está cortado, ou não é um ZIP',
    es: 'su directorio no se puede leer: el archivo está cortado, o no es un ZIP',
  },
  inflate: {
    pt: 'seus bytes compactados não se descompactam',
    es: 'sus bytes comprimidos no se descomprimen',
  },
  longer: {
    pt: 'descompacta em mais bytes do que o diretório do ZIP diz',
    es: 'se descomprime en más bytes de los que dice el directorio del ZIP',
  },
  shorter: {
    pt: 'descompacta em menos bytes do que o diretório do ZIP diz: está cortado',
    es: 'se descomprime en menos bytes de los que dice el directorio del ZIP: está cortado',
  },
};
const zipDamage = (language: 'pt' | 'es', p: FileRefusalParams): string => {
  const said = p.damage ? ZIP_DAMAGE[p.damage]?.[language] : undefined;
  if (said) return ` (${said})`;
  return p.detail ? ` (${p.detail})` : '';
};

/** `"a.pdf", "b.xml" e mais 3`: the names a sentence quotes, then how many more there are. */
const namesAndMore = (language: Language, names: readonly string[], more?: number): string => {
  if (!more) return quotedList(language, names);
  const rest = {
    pt: `e mais ${count('pt', more)}`,
    es: `y ${count('es', more)} más`,
    en: `and ${count('en', more)} more`,
  };
  return `${names.map((name) => quoted(name)).join(', ')} ${rest[language]}`;
};

/** One wording per reason a file is refused; English shows the reader's own sentence. */
const refusal = (pt: (p: FileRefusalParams) => string, es: (p: FileRefusalParams) => string): Refusal => ({
  pt: (p) => `${where('pt', p)}: ${pt(p)}`,
  es: (p) => `${where('es', p)}: ${es(p)}`,
  en: (p) => p.text,
});

export const FILE_REFUSAL_PHRASES: Record<SpreadsheetErrorCode, Refusal> = {
  file_empty: refusal(
    () => 'está vazio: não há linha de cabeçalho nem dados',
    () => 'está vacío: no hay fila de encabezado ni datos',
  ),
  no_data_rows: refusal(
    () =>
      'tem linha de cabeçalho, mas nenhuma linha de dados: coloque um produto por linha abaixo do cabeçalho',
    () =>
      'tiene fila de encabezado pero ninguna fila de datos: pon un producto por fila debajo del encabezado',
  ),
  not_a_text_file: refusal(
    (p) => notText('pt', p),
    (p) => notText('es', p),
  ),
  xlsx_invalid: refusal(
    (p) =>
      'não é uma pasta de trabalho XLSX válida (pode estar danificada ou ser outro tipo de arquivo renomeado ' +
      `para .xlsx)${p.detail ? ` (${p.detail})` : ''}; abra no Excel e salve de novo como .xlsx, ou envie um CSV`,
    (p) =>
      'no es un libro XLSX válido (puede estar dañado o ser otro tipo de archivo renombrado como .xlsx)' +
      `${p.detail ? ` (${p.detail})` : ''}; ábrelo en Excel y guárdalo de nuevo como .xlsx, o sube un CSV`,
  ),
  xls_not_supported: refusal(
    () => 'é uma pasta de trabalho antiga do Excel 97-2003 (.xls); salve como .xlsx ou CSV e envie de novo',
    () => 'es un libro antiguo de Excel 97-2003 (.xls); guárdalo como .xlsx o CSV y súbelo de nuevo',
  ),
  csv_unterminated_quote: refusal(
    () =>
      'uma célula entre aspas nunca é fechada (um " sem o " que o fecha), então o resto do arquivo não pode ' +
      'ser dividido em linhas; feche as aspas ou remova-as',
    () =>
      'una celda entre comillas nunca se cierra (un " sin el " que lo cierra), así que el resto del archivo no ' +
      'se puede dividir en filas; cierra las comillas o quítalas',
  ),
  duplicate_column: refusal(
    (p) =>
      `as colunas ${quotedList('pt', p.columns ?? [])} significam as duas ${quoted(p.field ?? '')}; ` +
      'mantenha uma e renomeie ou apague a outra',
    (p) =>
      `las columnas ${quotedList('es', p.columns ?? [])} significan ambas ${quoted(p.field ?? '')}; ` +
      'conserva una y cambia el nombre de la otra o elimínala',
  ),
  no_description_or_sheet_column: refusal(
    (p) =>
      'não tem coluna de descrição nem de ficha técnica; chame uma coluna de "Descrição" (ou "Descripción", ' +
      `"Description") ou "Ficha técnica". Colunas encontradas: ${p.found?.length ? list('pt', p.found) : '(nenhuma)'}`,
    (p) =>
      'no tiene columna de descripción ni de ficha técnica; llama a una columna "Descripción" (o "Descrição", ' +
      `"Description") o "Ficha técnica". Columnas encontradas: ${p.found?.length ? list('es', p.found) : '(ninguna)'}`,
  ),
  too_many_rows: refusal(
    (p) =>
      `tem mais de ${count('pt', p.limit ?? 0)} linhas de dados, o máximo que um lote aceita; divida em ` +
      `arquivos de até ${count('pt', p.limit ?? 0)} linhas e envie cada um`,
    (p) =>
      `tiene más de ${count('es', p.limit ?? 0)} filas de datos, el máximo que acepta un lote; divídelo en ` +
      `archivos de hasta ${count('es', p.limit ?? 0)} filas y sube cada uno`,
  ),
  header_too_long: refusal(
    (p) =>
      `a coluna ${p.letter ?? ''} do cabeçalho tem ${count('pt', p.length ?? 0)} caracteres; o nome de uma coluna ` +
      `pode ter no máximo ${count('pt', p.limit ?? 0)}. Confira se a primeira linha é a de cabeçalho`,
    (p) =>
      `la columna ${p.letter ?? ''} del encabezado tiene ${count('es', p.length ?? 0)} caracteres; el nombre de una ` +
      `columna puede tener como máximo ${count('es', p.limit ?? 0)}. Revisa que la primera fila sea la de encabezado`,
  ),
  header_too_large: refusal(
    (p) =>
      `os ${count('pt', p.column_count ?? 0)} nomes de coluna do cabeçalho somam ${count('pt', p.size_kb ?? 0)} KB ` +
      `de texto; um lote guarda no máximo ${count('pt', p.limit_kb ?? 0)} KB deles. Encurte os nomes ou retire ` +
      'colunas de que a classificação não precisa',
    (p) =>
      `los ${count('es', p.column_count ?? 0)} nombres de columna del encabezado suman ${count('es', p.size_kb ?? 0)} KB ` +
      `de texto; un lote guarda como máximo ${count('es', p.limit_kb ?? 0)} KB de ellos. Acorta los nombres o quita ` +
      'columnas que la clasificación no necesita',
  ),
  file_too_large: refusal(
    () => 'é grande demais para um lote; divida em pastas de trabalho menores ou salve como CSV UTF-8',
    () => 'es demasiado grande para un lote; divídelo en libros más pequeños o guárdalo como CSV UTF-8',
  ),
  line_too_long: refusal(
    (p) =>
      `segue por mais de ${count('pt', p.limit ?? 0)} caracteres a partir daqui sem quebra de linha, o que ` +
      'nenhuma linha de um catálogo tem; salve de novo como CSV, com um produto por linha',
    (p) =>
      `sigue por más de ${count('es', p.limit ?? 0)} caracteres desde aquí sin salto de línea, algo que ` +
      'ninguna fila de un catálogo tiene; guárdalo de nuevo como CSV, con un producto por línea',
  ),
  xlsx_entity_declared: refusal(
    (p) =>
      `a parte ${p.part ?? ''} declara uma entidade XML (<!DOCTYPE …>), o que uma pasta de trabalho salva pelo ` +
      'Excel ou pelo LibreOffice nunca tem; ela é recusada para que nenhuma entidade seja expandida ou buscada',
    (p) =>
      `la parte ${p.part ?? ''} declara una entidad XML (<!DOCTYPE …>), algo que un libro guardado por Excel o ` +
      'LibreOffice nunca contiene; se rechaza para que ninguna entidad se expanda ni se busque',
  ),
  xlsx_part_too_large: refusal(
    (p) =>
      `a parte ${p.part ?? ''} passa de ${count('pt', p.limit_mb ?? 0)} MB descompactada, mais do que um lote lê ` +
      'de uma pasta de trabalho; divida em pastas de trabalho menores ou salve como CSV UTF-8',
    (p) =>
      `la parte ${p.part ?? ''} supera los ${count('es', p.limit_mb ?? 0)} MB descomprimida, más de lo que un lote ` +
      'lee de un libro; divídelo en libros más pequeños o guárdalo como CSV UTF-8',
  ),
  xlsx_cell_too_large: refusal(
    (p) =>
      p.cell !== undefined
        ? `a célula ${p.cell} (em ${p.part ?? ''}) tem mais de ${count('pt', p.limit ?? 0)} caracteres, muito mais ` +
          `que os ${count('pt', 32_767)} de uma célula do Excel; ela é recusada antes de ser lida inteira: encurte ` +
          'essa célula e salve a pasta de trabalho de novo'
        : p.row !== undefined
          ? `a linha ${p.row} (em ${p.part ?? ''}) tem mais de ${count('pt', p.limit ?? 0)} caracteres nas suas ` +
            'células, o que nenhuma linha de catálogo precisa; ela é recusada antes de ser lida inteira: encurte ' +
            'as células e salve a pasta de trabalho de novo'
          : `um texto de célula em ${p.part ?? ''} (o item ${count('pt', p.item ?? 0)}) tem mais de ` +
            `${count('pt', p.limit ?? 0)} caracteres, muito mais que os ${count('pt', 32_767)} de uma célula do ` +
            'Excel; ele é recusado antes de ser lido inteiro: encurte essa célula e salve a pasta de trabalho de novo',
    (p) =>
      p.cell !== undefined
        ? `la celda ${p.cell} (en ${p.part ?? ''}) tiene más de ${count('es', p.limit ?? 0)} caracteres, mucho más ` +
          `que los ${count('es', 32_767)} de una celda de Excel; se rechaza antes de leerla entera: acorta esa ` +
          'celda y guarda el libro de nuevo'
        : p.row !== undefined
          ? `la fila ${p.row} (en ${p.part ?? ''}) tiene más de ${count('es', p.limit ?? 0)} caracteres en sus ` +
            'celdas, algo que ninguna fila de catálogo necesita; se rechaza antes de leerla entera: acorta sus ' +
            'celdas y guarda el libro de nuevo'
          : `un texto de celda en ${p.part ?? ''} (su elemento ${count('es', p.item ?? 0)}) tiene más de ` +
            `${count('es', p.limit ?? 0)} caracteres, mucho más que los ${count('es', 32_767)} de una celda de ` +
            'Excel; se rechaza antes de leerlo entero: acorta esa celda y guarda el libro de nuevo',
  ),
  sped_no_items: refusal(
    () =>
      'é um arquivo SPED EFD, mas não tem nenhum registro 0200 (a tabela de itens), então não há produto a ' +
      'classificar; gere o arquivo de novo com o bloco 0 completo',
    () =>
      'es un archivo SPED EFD, pero no tiene ningún registro 0200 (la tabla de ítems), así que no hay producto ' +
      'que clasificar; genera el archivo de nuevo con el bloque 0 completo',
  ),
  nfe_not_an_invoice: refusal(
    (p) =>
      `${p.part ? `${p.part}: ` : ''}é um XML, mas não uma NF-e (seu elemento raiz é <${p.root ?? '?'}>, onde ` +
      'uma NF-e tem <nfeProc> ou <NFe>); envie o XML da nota autorizada',
    (p) =>
      `${p.part ? `${p.part}: ` : ''}es un XML, pero no una NF-e (su elemento raíz es <${p.root ?? '?'}>, donde ` +
      'una NF-e tiene <nfeProc> o <NFe>); sube el XML de la factura autorizada',
  ),
  nfe_entity_declared: refusal(
    (p) =>
      `${p.part ? `${p.part}: ` : ''}o XML declara uma entidade (<!DOCTYPE …>), o que uma NF-e nunca tem; ` +
      'ele é recusado para que nenhuma entidade seja expandida ou buscada',
    (p) =>
      `${p.part ? `${p.part}: ` : ''}el XML declara una entidad (<!DOCTYPE …>), algo que una NF-e nunca tiene; ` +
      'se rechaza para que ninguna entidad se expanda ni se busque',
  ),
  nfe_xml_malformed: refusal(
    (p) =>
      `${p.part ? `${p.part}: ` : ''}o XML está danificado${p.detail ? ` (${p.detail})` : ''}; baixe de novo o ` +
      'XML da nota',
    (p) =>
      `${p.part ? `${p.part}: ` : ''}el XML está dañado${p.detail ? ` (${p.detail})` : ''}; descarga de nuevo el ` +
      'XML de la factura',
  ),
  zip_damaged: refusal(
    (p) =>
      `o arquivo ZIP está danificado${p.part ? ` em ${p.part}` : ''}${zipDamage('pt', p)}; ` +
      'compacte os XMLs de novo e envie',
    (p) =>
      `el archivo ZIP está dañado${p.part ? ` en ${p.part}` : ''}${zipDamage('es', p)}; ` +
      'comprime los XML de nuevo y súbelo',
  ),
  zip_no_invoices: refusal(
    (p) =>
      'é um arquivo ZIP sem nenhum XML de NF-e nem pasta de trabalho' +
      `${p.found && p.found.length > 0 ? ` (tem: ${namesAndMore('pt', p.found, p.more)})` : ''}; envie os XMLs das notas ` +
      'compactados, ou a planilha',
    (p) =>
      'es un archivo ZIP sin ningún XML de NF-e ni libro de Excel' +
      `${p.found && p.found.length > 0 ? ` (contiene: ${namesAndMore('es', p.found, p.more)})` : ''}; sube los XML de las ` +
      'facturas comprimidos, o la planilla',
  ),
  nfe_too_large: refusal(
    (p) =>
      `${p.part ? `${p.part}: ` : ''}o XML passa de ${count('pt', p.limit_mb ?? 0)} MB, muito mais do que uma NF-e ` +
      'de 990 itens tem; envie os XMLs das próprias notas',
    (p) =>
      `${p.part ? `${p.part}: ` : ''}el XML supera los ${count('es', p.limit_mb ?? 0)} MB, mucho más de lo que tiene ` +
      'una NF-e de 990 ítems; sube los XML de las propias facturas',
  ),
  zip_too_large: refusal(
    (p) =>
      (p.limit !== undefined
        ? `o ZIP tem mais de ${count('pt', p.limit)} arquivos`
        : `os XMLs do ZIP passam de ${count('pt', (p.limit_mb ?? 0) / 1024)} GB descompactados`) +
      ', mais do que um lote lê; divida-o em ZIPs menores',
    (p) =>
      (p.limit !== undefined
        ? `el ZIP tiene más de ${count('es', p.limit)} archivos`
        : `los XML del ZIP superan los ${count('es', (p.limit_mb ?? 0) / 1024)} GB descomprimidos`) +
      ', más de lo que lee un lote; divídelo en ZIP más pequeños',
  ),
};

export const PROBLEM_PHRASES = {
  row_longer_than_header: {
    pt: (p) =>
      `${at('pt', p.file, p.line, p.row)}: ${p.cells} células para ${p.columns} colunas; as células a mais ` +
      `(${p.extra.map((cell) => quoted(cell)).join(', ')}${p.more ? ` e mais ${count('pt', p.more)}` : ''}) ` +
      'foram mantidas depois da última coluna',
    es: (p) =>
      `${at('es', p.file, p.line, p.row)}: ${p.cells} celdas para ${p.columns} columnas; las celdas de más ` +
      `(${p.extra.map((cell) => quoted(cell)).join(', ')}${p.more ? ` y ${count('es', p.more)} más` : ''}) ` +
      'se conservaron después de la última columna',
    en: (p) =>
      `${p.file}, line ${p.line} (row ${p.row}): ${p.cells} cells for ${p.columns} columns; the extra cells ` +
      `(${p.extra.map((cell) => quoted(cell)).join(', ')}${p.more ? ` and ${p.more} more` : ''}) are kept after the last column`,
  } satisfies Phrase<{
    file: string;
    line: number;
    row: number;
    cells: number;
    columns: number;
    extra: string[];
    more?: number;
  }>,
  csv_malformed_quotes: {
    pt: (p) =>
      `${at('pt', p.file, p.line)}: aspas dentro de uma célula entre aspas não estão duplicadas ("") ` +
      'e foram lidas como texto',
    es: (p) =>
      `${at('es', p.file, p.line)}: comillas dentro de una celda entre comillas no están duplicadas ("") ` +
      'y se leyeron como texto',
    en: (p) =>
      `${p.file}, line ${p.line}: a quote inside a quoted cell is not doubled ("") and was read as text`,
  } satisfies Phrase<{ file: string; line: number }>,
  text_looks_double_encoded: {
    pt: (p) =>
      `${p.file}: alguns acentos já estão embaralhados no arquivo (como "Ã§" no lugar de "ç"); ` +
      'ele provavelmente foi convertido duas vezes antes do envio. Exporte de novo a partir do original.',
    es: (p) =>
      `${p.file}: algunos acentos ya vienen alterados en el archivo (como "Ã§" en lugar de "ç"); ` +
      'probablemente se convirtió dos veces antes de subirlo. Expórtalo de nuevo desde el original.',
    en: (p) =>
      `${p.file}: some accents look garbled already in the file (like "Ã§" for "ç"); ` +
      'it was probably converted twice before upload. Re-export it from the original.',
  } satisfies Phrase<{ file: string }>,
  other_sheets_ignored: {
    pt: (p) =>
      `${p.file}: só a primeira planilha, ${quoted(p.first)}, foi lida; ignoradas: ${quotedList('pt', p.others)}`,
    es: (p) =>
      `${p.file}: solo se leyó la primera hoja, ${quoted(p.first)}; ignoradas: ${quotedList('es', p.others)}`,
    en: (p) =>
      `${p.file}: only the first sheet ${quoted(p.first)} was read; ignored: ` +
      p.others.map((sheet) => quoted(sheet)).join(', '),
  } satisfies Phrase<{ file: string; first: string; others: string[] }>,
  sped_registers_skipped: {
    pt: (p) =>
      `${p.file}: arquivo SPED EFD lido pelos seus ${count('pt', p.items)} itens (registros 0200); ` +
      `os outros registros não descrevem produtos e foram pulados: ${registerCounts('pt', p.registers, p.counts)}`,
    es: (p) =>
      `${p.file}: archivo SPED EFD leído por sus ${count('es', p.items)} ítems (registros 0200); ` +
      `los demás registros no describen productos y se omitieron: ${registerCounts('es', p.registers, p.counts)}`,
    en: (p) =>
      `${p.file}: SPED EFD file read for its ${count('en', p.items)} items (0200 registers); the other ` +
      `registers describe no product and were skipped: ${registerCounts('en', p.registers, p.counts)}`,
  } satisfies Phrase<{ file: string; items: number; registers: string[]; counts: number[] }>,
  sped_line_not_a_register: {
    pt: (p) =>
      `${at('pt', p.file, p.line)}: ${quoted(p.text)} não é um registro SPED (a linha de um registro começa ` +
      'com "|") e foi pulada; se for o resto da linha de cima, uma quebra de linha dentro de um campo a cortou ali',
    es: (p) =>
      `${at('es', p.file, p.line)}: ${quoted(p.text)} no es un registro SPED (la línea de un registro empieza ` +
      'con "|") y se omitió; si es el resto de la línea de arriba, un salto de línea dentro de un campo la cortó ahí',
    en: (p) =>
      `${p.file}, line ${p.line}: ${quoted(p.text)} is not a SPED register (a register's line starts with "|") ` +
      'and was skipped; if it is the rest of the line above, a line break inside a field cut it there',
  } satisfies Phrase<{ file: string; line: number; text: string }>,
  nfe_documents_read: {
    pt: (p) =>
      `${p.file}: ${count('pt', p.invoices)} ${plural(p.invoices, 'NF-e lida', 'NF-e lidas')}, ${count('pt', p.items)} ${plural(p.items, 'item', 'itens')}` +
      (p.skipped.length > 0 ? `; pulados por não serem NF-e: ${namesAndMore('pt', p.skipped, p.more)}` : ''),
    es: (p) =>
      `${p.file}: ${count('es', p.invoices)} ${plural(p.invoices, 'NF-e leída', 'NF-e leídas')}, ${count('es', p.items)} ${plural(p.items, 'ítem', 'ítems')}` +
      (p.skipped.length > 0 ? `; omitidos por no ser NF-e: ${namesAndMore('es', p.skipped, p.more)}` : ''),
    en: (p) =>
      `${p.file}: ${count('en', p.invoices)} ${plural(p.invoices, 'NF-e read', 'NF-e read')}, ${count('en', p.items)} ${plural(p.items, 'item', 'items')}` +
      (p.skipped.length > 0 ? `; skipped as not NF-e: ${namesAndMore('en', p.skipped, p.more)}` : ''),
  } satisfies Phrase<{ file: string; invoices: number; items: number; skipped: string[]; more?: number }>,
  nfe_country_unknown: {
    pt: (p) =>
      `${p.file}${p.part ? `, ${p.part}` : ''}: a NF-e ${p.invoice} é de importação ou exportação, mas o país ` +
      (p.code === ''
        ? 'do estrangeiro não tem código (cPais)'
        : `do estrangeiro, código ${quoted(p.code)}${p.name ? ` (${p.name})` : ''}, não está na tabela de países do BACEN`) +
      '; o país dos seus itens ficou vazio, e vale o país do batch.json',
    es: (p) =>
      `${p.file}${p.part ? `, ${p.part}` : ''}: la NF-e ${p.invoice} es de importación o exportación, pero el país ` +
      (p.code === ''
        ? 'de la parte extranjera no tiene código (cPais)'
        : `de la parte extranjera, código ${quoted(p.code)}${p.name ? ` (${p.name})` : ''}, no está en la tabla de países del BACEN`) +
      '; el país de sus ítems quedó vacío, y vale el país de batch.json',
    en: (p) =>
      `${p.file}${p.part ? `, ${p.part}` : ''}: the NF-e ${p.invoice} is an import or export, but the foreign ` +
      (p.code === ''
        ? "party's country has no code (cPais)"
        : `party's country code ${quoted(p.code)}${p.name ? ` (${p.name})` : ''} is not in BACEN's table of countries`) +
      "; its items' country is left empty, so batch.json's country applies",
  } satisfies Phrase<{ file: string; part: string | null; invoice: string; code: string; name: string }>,
  more_like_these: {
    pt: (p) =>
      `${p.file}: mais ${count('pt', p.more)} linhas como as acima (${count('pt', p.total)} ao todo).`,
    es: (p) =>
      `${p.file}: ${count('es', p.more)} filas más como las de arriba (${count('es', p.total)} en total).`,
    en: (p) => `${p.file}: ${p.more} more rows like the ones above (${p.total} in all).`,
  } satisfies Phrase<{ file: string; more: number; total: number }>,
  file_refused: {
    pt: (p) => (FILE_REFUSAL_PHRASES[p.reason as SpreadsheetErrorCode]?.pt ?? ((q) => q.text))(p),
    es: (p) => (FILE_REFUSAL_PHRASES[p.reason as SpreadsheetErrorCode]?.es ?? ((q) => q.text))(p),
    en: (p) => p.text,
  } satisfies Phrase<FileRefusalParams>,
  input_missing: {
    pt: (p) => `${p.file}: o arquivo ${p.key} não está mais no bucket; envie de novo.`,
    es: (p) => `${p.file}: el archivo ${p.key} ya no está en el bucket; súbelo de nuevo.`,
    en: (p) => `${p.file}: the file ${p.key} is no longer in the bucket; upload it again.`,
  } satisfies Phrase<{ file: string; key: string }>,
  options_not_json: {
    pt: (p) =>
      `${p.key} não é um JSON válido (${p.empty ? 'o arquivo está vazio' : p.reason}); escreva um objeto como {"country": "BR"}.`,
    es: (p) =>
      `${p.key} no es un JSON válido (${p.empty ? 'el archivo está vacío' : p.reason}); escribe un objeto como {"country": "BR"}.`,
    en: (p) => `${p.key} is not valid JSON (${p.reason}); write an object such as {"country": "BR"}.`,
  } satisfies Phrase<{ key: string; reason: string; empty?: boolean }>,
  options_invalid: {
    pt: (p) =>
      `${p.key} não é válido: ` +
      (p.fields.length > 0
        ? `confira ${plural(p.fields.length, 'o campo', 'os campos')} ${quotedList('pt', p.fields)} `
        : 'precisa ser um objeto JSON de opções ') +
      `(campos aceitos: ${p.accepted.join(', ')}).`,
    es: (p) =>
      `${p.key} no es válido: ` +
      (p.fields.length > 0
        ? `revisa ${plural(p.fields.length, 'el campo', 'los campos')} ${quotedList('es', p.fields)} `
        : 'debe ser un objeto JSON de opciones ') +
      `(campos aceptados: ${p.accepted.join(', ')}).`,
    en: (p) => p.text,
  } satisfies Phrase<{ key: string; fields: string[]; accepted: string[]; text: string }>,
  service_refused_batch: {
    pt: (p) => `O serviço recusou o lote: ${p.text}`,
    es: (p) => `El servicio rechazó el lote: ${p.text}`,
    en: (p) => `The service refused the batch: ${p.text}`,
  } satisfies Phrase<{ text: string }>,
  budget_exceeded: {
    pt: (p) =>
      `O orçamento de USD ${p.max_usd} (max_usd do batch.json) cobre ${count('pt', p.covered)} ` +
      `${plural(p.covered, 'classificação', 'classificações')}; ${count('pt', p.over)} ` +
      `${plural(p.over, 'linha depois delas não foi enviada', 'linhas depois delas não foram enviadas')}.`,
    es: (p) =>
      `El presupuesto de USD ${p.max_usd} (max_usd de batch.json) cubre ${count('es', p.covered)} ` +
      `${plural(p.covered, 'clasificación', 'clasificaciones')}; ${count('es', p.over)} ` +
      `${plural(p.over, 'fila posterior no se envió', 'filas posteriores no se enviaron')}.`,
    en: (p) =>
      `The budget of USD ${p.max_usd} (batch.json max_usd) covers ${p.covered} classification(s); ` +
      `${p.over} row(s) after them were not submitted.`,
  } satisfies Phrase<{ max_usd: number; covered: number; over: number }>,
  not_prepared: {
    pt: (p) => `Não foi possível preparar o lote: ${p.text}`,
    es: (p) => `No se pudo preparar el lote: ${p.text}`,
    en: (p) => `The batch could not be prepared: ${p.text}`,
  } satisfies Phrase<{ text: string }>,
  wait_stopped: {
    pt: (p) =>
      `O lote parou de esperar pelas suas linhas (${p.error}); as linhas que não tinham terminado ficam como erro.`,
    es: (p) =>
      `El lote dejó de esperar sus filas (${p.error}); las filas que no habían terminado quedan como error.`,
    en: (p) =>
      `The batch stopped waiting for its rows (${p.error}); rows that had not finished are marked error.`,
  } satisfies Phrase<{ error: string }>,
  rows_unfinished: {
    pt: (p) =>
      `${count('pt', p.count)} ${plural(p.count, 'linha não tinha terminado e ficou', 'linhas não tinham terminado e ficaram')} como erro.`,
    es: (p) =>
      `${count('es', p.count)} ${plural(p.count, 'fila no había terminado y quedó', 'filas no habían terminado y quedaron')} como error.`,
    en: (p) => `${p.count} row(s) had not finished and are marked error.`,
  } satisfies Phrase<{ count: number }>,
  batch_stopped: {
    pt: (p) => `O lote foi interrompido: ${p.title}: ${p.detail}`,
    es: (p) => `El lote se detuvo: ${p.title}: ${p.detail}`,
    en: (p) => `The batch was stopped: ${p.title}: ${p.detail}`,
  } satisfies Phrase<{ title: string; detail: string }>,
  never_prepared: {
    pt: () => 'O lote nunca foi preparado.',
    es: () => 'El lote nunca se preparó.',
    en: () => 'The batch was never prepared.',
  } satisfies Phrase<Record<string, never>>,
  answers_resumed: {
    pt: (p) =>
      `${count('pt', p.resumed)} de ${count('pt', p.of)} ${plural(p.of, 'linha', 'linhas')} de ${p.file} ` +
      `${plural(p.resumed, 'retomou', 'retomaram')} com as respostas.`,
    es: (p) =>
      `${count('es', p.resumed)} de ${count('es', p.of)} ${plural(p.of, 'fila', 'filas')} de ${p.file} ` +
      `${plural(p.resumed, 'se retomó', 'se retomaron')} con sus respuestas.`,
    en: (p) => `${p.resumed} of ${p.of} row(s) of ${p.file} resumed with their answers.`,
  } satisfies Phrase<{ resumed: number; of: number; file: string }>,
  rows_resent: {
    pt: (p) =>
      `${count('pt', p.resent)} de ${count('pt', p.of)} ${plural(p.of, 'linha', 'linhas')} de ${p.file} ` +
      `${plural(p.resent, 'foi reenviada', 'foram reenviadas')} para classificação.`,
    es: (p) =>
      `${count('es', p.resent)} de ${count('es', p.of)} ${plural(p.of, 'fila', 'filas')} de ${p.file} ` +
      `${plural(p.resent, 'se reenvió', 'se reenviaron')} a clasificar.`,
    en: (p) => `${p.resent} of ${p.of} row(s) of ${p.file} sent again to be classified.`,
  } satisfies Phrase<{ resent: number; of: number; file: string }>,
  round_failed: {
    pt: (p) => `A rodada de respostas falhou: ${p.text}`,
    es: (p) => `La ronda de respuestas falló: ${p.text}`,
    en: (p) => `The answers round failed: ${p.text}`,
  } satisfies Phrase<{ text: string }>,
  answers_unreadable: {
    pt: (p) => `Não foi possível ler o arquivo de respostas: ${p.text}`,
    es: (p) => `No se pudo leer el archivo de respuestas: ${p.text}`,
    en: (p) => `The answers file could not be read: ${p.text}`,
  } satisfies Phrase<{ text: string }>,
  answered_rows_unsent: {
    pt: (p) =>
      `${count('pt', p.count)} ${plural(p.count, 'linha respondida não foi enviada e espera', 'linhas respondidas não foram enviadas e esperam')} ` +
      'respostas de novo.',
    es: (p) =>
      `${count('es', p.count)} ${plural(p.count, 'fila respondida no se envió y espera', 'filas respondidas no se enviaron y esperan')} ` +
      'respuestas de nuevo.',
    en: (p) => `${p.count} answered row(s) were not sent and wait for answers again.`,
  } satisfies Phrase<{ count: number }>,
  answered_rows_unfinished: {
    pt: (p) =>
      `${count('pt', p.count)} ${plural(p.count, 'linha respondida não tinha terminado e ficou', 'linhas respondidas não tinham terminado e ficaram')} como erro.`,
    es: (p) =>
      `${count('es', p.count)} ${plural(p.count, 'fila respondida no había terminado y quedó', 'filas respondidas no habían terminado y quedaron')} como error.`,
    en: (p) => `${p.count} answered row(s) had not finished and are marked error.`,
  } satisfies Phrase<{ count: number }>,
  rows_abandoned: {
    pt: (p) =>
      `${count('pt', p.count)} ${plural(p.count, 'linha ficou', 'linhas ficaram')} sem resposta por 30 dias: ` +
      `o serviço ${plural(p.count, 'a abandonou', 'as abandonou')} (sem cobrança).`,
    es: (p) =>
      `${count('es', p.count)} ${plural(p.count, 'fila quedó', 'filas quedaron')} sin respuesta durante 30 días: ` +
      `el servicio ${plural(p.count, 'la abandonó', 'las abandonó')} (sin cargo).`,
    en: (p) => `${p.count} row(s) went unanswered for 30 days: the service abandoned them (not billed).`,
  } satisfies Phrase<{ count: number }>,
  rows_settled_elsewhere: {
    pt: (p) =>
      `${count('pt', p.count)} ${plural(p.count, 'linha pendente foi respondida', 'linhas pendentes foram respondidas')} ` +
      `fora deste lote e ${plural(p.count, 'terminou', 'terminaram')} no serviço.`,
    es: (p) =>
      `${count('es', p.count)} ${plural(p.count, 'fila pendiente se respondió', 'filas pendientes se respondieron')} ` +
      `fuera de este lote y ${plural(p.count, 'terminó', 'terminaron')} en el servicio.`,
    en: (p) => `${p.count} pending row(s) were answered outside this batch and have finished at the service.`,
  } satisfies Phrase<{ count: number }>,
};
