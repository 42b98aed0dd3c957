/**
 * What a person should look at in a file before paying for it, in each language: the file's
 * warnings (spreadsheet/input-report.ts) and its rows' (pipeline/batch/row-warnings.ts).
 */
import { columnAt, count, type Phrase, quoted, quotedList, rows } from './phrasing.js';

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
        `não ${several ? 'têm' : 'tem'} camada de texto (é digitalizada): o serviço não consegue lê-la` +
        (alone > 0
          ? `, e ${rows('pt', p.alone_rows, alone)} não ${alone === 1 ? 'tem' : 'têm'} descrição ao lado, ` +
            `então ${alone === 1 ? 'vai' : 'vão'} falhar (unreadable_pdf) se você não incluir uma ou um PDF com texto.`
          : '; só a descrição ao lado será classificada.')
      );
    },
    es: (p) => {
      const several = p.names.length > 1 || p.more_names;
      const names = quotedList('es', p.names) + (p.more_names ? ' y otras' : '');
      const alone = p.alone_total;
      return (
        `${several ? 'Las fichas técnicas' : 'La ficha técnica'} ${names} (${rows('es', p.rows, p.total)}) ` +
        `no ${several ? 'tienen' : 'tiene'} capa de texto (es un escaneo): el servicio no puede leerla` +
        (alone > 0
          ? `, y ${rows('es', p.alone_rows, alone)} no ${alone === 1 ? 'tiene' : 'tienen'} descripción al lado, ` +
            `así que ${alone === 1 ? 'fallará' : 'fallarán'} (unreadable_pdf) a menos que agregues una o un PDF con texto.`
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
            `${alone === 1 ? 'it' : 'they'} will fail (unreadable_pdf) unless you add one or a PDF with text.`
          : '; only the description beside it will be classified.')
      );
    },
  } satisfies Phrase<ScannedSheets>,
};
