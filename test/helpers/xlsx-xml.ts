/**
 * The XML parts of an .xlsx unzipped with fflate, read (and written) as a program that opens one
 * would: sheets found through xl/workbook.xml and its relationships, cells by reference with shared
 * and inline strings resolved, the ranges of a `sqref` listed. Regular expressions, not an XML
 * parser: enough for the workbooks ExcelJS and LibreOffice write, where an element never holds
 * another of its own name.
 */
import { posix } from 'node:path';
import { strFromU8, type Unzipped } from 'fflate';

// ---------------------------------------------------------------------------
// Text, attributes and elements
// ---------------------------------------------------------------------------

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** XML text with its entities (`&amp;`, `&#10;`, `&#xE7;`) as characters; an unknown named entity stays as written. */
export const unescapeXml = (text: string): string =>
  text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, name: string) =>
    name.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(name.slice(2), 16))
      : name.startsWith('#')
        ? String.fromCodePoint(Number(name.slice(1)))
        : (ENTITIES[name] ?? whole),
  );

/** Text as it may stand in XML, in an element or an attribute: `&`, `<`, `>` and `"` escaped. */
const escapeXml = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

/**
 * The attributes in a tag's text (`r="A1" s="2"`) by name, their values unescaped. A name may hold
 * `:`, `.` and `-`: `r:id`, `xml:space`, `table:target-range-address`.
 */
const attributesOf = (tag: string): Record<string, string> =>
  Object.fromEntries(
    [...tag.matchAll(/([\w:.-]+)="([^"]*)"/g)].map(([, name, value]) => [name!, unescapeXml(value!)]),
  );

export type XmlElement = { attributes: Record<string, string>; inner: string };

/** Every element named `name` (`c`, `dataValidation`, `table:database-range`), in order: its attributes and its inner XML (`''` when it closes itself). */
export const elementsNamed = (xml: string, name: string): XmlElement[] =>
  [...xml.matchAll(new RegExp(`<${name}\\b([^>]*?)(?:/>|>([\\s\\S]*?)</${name}>)`, 'g'))].map((match) => ({
    attributes: attributesOf(match[1] ?? ''),
    inner: match[2] ?? '',
  }));

/** The text of a string item's inner XML (`<si>`, `<is>`): its `<t>` runs, plain or rich, joined and unescaped. */
const stringItemText = (xml: string): string =>
  elementsNamed(xml, 't')
    .map(({ inner }) => unescapeXml(inner))
    .join('');

// ---------------------------------------------------------------------------
// Cell references and ranges
// ---------------------------------------------------------------------------

/** A column's letters from its 1-based number: 1 → `A`, 28 → `AB`. */
export const columnLetters = (column: number): string => {
  let letters = '';
  for (let rest = column; rest > 0; rest = Math.floor((rest - 1) / 26))
    letters = String.fromCharCode(65 + ((rest - 1) % 26)) + letters;
  return letters;
};

/** A column's 1-based number from its letters or a cell reference: `AB`, `AB12` and `$AB$12` → 28. */
export const columnNumber = (reference: string): number =>
  [...reference.replace(/[$\d]/g, '')].reduce((n, letter) => n * 26 + letter.charCodeAt(0) - 64, 0);

/** A cell reference's row number: `J12` and `$J$12` → 12. */
export const rowNumber = (reference: string): number => Number(reference.replace(/[^\d]/g, ''));

type Box = { columns: [number, number]; rows: [number, number] };

/** The ranges of a `sqref` (`J2 J4:K5`), each as its first and last column and row. */
const boxesOf = (sqref: string): Box[] =>
  sqref
    .split(/\s+/)
    .filter((range) => range !== '')
    .map((range) => {
      const [from, to = from] = range.split(':') as [string, string?];
      return {
        columns: [columnNumber(from), columnNumber(to!)],
        rows: [rowNumber(from), rowNumber(to!)],
      };
    });

/** Every cell a `sqref` covers, range by range and row by row: `J2 J4:K5` → J2, J4, K4, J5, K5. */
export const cellsCoveredBy = (sqref: string): string[] =>
  boxesOf(sqref).flatMap(({ columns, rows }) => {
    const cells: string[] = [];
    for (let row = rows[0]; row <= rows[1]; row += 1)
      for (let column = columns[0]; column <= columns[1]; column += 1)
        cells.push(`${columnLetters(column)}${row}`);
    return cells;
  });

/** Whether a `sqref` (`J2 J4:K5`) covers the cell, without listing its cells (a whole column is a million). */
export const sqrefCovers = (sqref: string, reference: string): boolean => {
  const column = columnNumber(reference);
  const row = rowNumber(reference);
  return boxesOf(sqref).some(
    ({ columns, rows }) => column >= columns[0] && column <= columns[1] && row >= rows[0] && row <= rows[1],
  );
};

// ---------------------------------------------------------------------------
// The workbook's parts and sheets
// ---------------------------------------------------------------------------

/** A part's XML by its path in the archive (`xl/workbook.xml`); throws, naming the parts there are, when it is missing. */
export const partXml = (files: Unzipped, path: string): string => {
  const part = files[path];
  if (!part) throw new Error(`no part ${path} in the workbook: ${Object.keys(files).join(', ')}`);
  return strFromU8(part);
};

type Relationship = { id: string; type: string; path: string };

/** The workbook's relationships (xl/_rels/workbook.xml.rels), each target as a path in the archive. */
const workbookRelationships = (files: Unzipped): Relationship[] =>
  elementsNamed(partXml(files, 'xl/_rels/workbook.xml.rels'), 'Relationship').map(({ attributes }) => {
    const target = attributes.Target ?? '';
    return {
      id: attributes.Id ?? '',
      type: attributes.Type ?? '',
      path: target.startsWith('/') ? target.slice(1) : posix.normalize(posix.join('xl', target)),
    };
  });

/** The path of the workbook's part of a kind (`sharedStrings`, `styles`), as its relationships name it; undefined when it has none. */
export const workbookPartPath = (files: Unzipped, kind: string): string | undefined =>
  workbookRelationships(files).find((relationship) => relationship.type.endsWith(`/${kind}`))?.path;

export type XlsxSheet = { name: string; state: string; path: string };

/** The sheets in tab order (xl/workbook.xml): name, state (`visible` unless it says) and the part each is in, through xl/_rels/workbook.xml.rels. */
export const workbookSheets = (files: Unzipped): XlsxSheet[] => {
  const relationships = workbookRelationships(files);
  return elementsNamed(partXml(files, 'xl/workbook.xml'), 'sheet').map(({ attributes }) => {
    const relationship = relationships.find((r) => r.id === attributes['r:id']);
    if (!relationship)
      throw new Error(`no relationship ${attributes['r:id']} for sheet "${attributes.name}"`);
    return { name: attributes.name ?? '', state: attributes.state ?? 'visible', path: relationship.path };
  });
};

/** The sheet named `name`; throws, naming the sheets there are, when there is none. */
export const sheetNamed = (files: Unzipped, name: string): XlsxSheet => {
  const sheets = workbookSheets(files);
  const sheet = sheets.find((entry) => entry.name === name);
  if (!sheet) throw new Error(`no sheet "${name}": ${sheets.map((entry) => entry.name).join(', ')}`);
  return sheet;
};

/** The XML of the sheet named `name`. */
export const sheetXml = (files: Unzipped, name: string): string =>
  partXml(files, sheetNamed(files, name).path);

/**
 * A sheet's links written as `HYPERLINK("target","text")` formulas (how results.xlsx links its
 * verdict PDFs: no relationship per row), by cell reference.
 */
export const sheetFormulaLinks = (files: Unzipped, name: string): Map<string, string> =>
  new Map(
    [...sheetCells(files, name)].flatMap(([at, cell]) => {
      const target = /^HYPERLINK\("([^"]+)"/.exec(cell.formula ?? '')?.[1];
      return target === undefined ? [] : [[at, target] as const];
    }),
  );

/** The shared strings (`<si>` of the sharedStrings part, or xl/sharedStrings.xml) in order; none when the workbook has none (ExcelJS writes none). */
const sharedStrings = (files: Unzipped): string[] => {
  const path =
    workbookPartPath(files, 'sharedStrings') ??
    (files['xl/sharedStrings.xml'] ? 'xl/sharedStrings.xml' : undefined);
  return path === undefined
    ? []
    : elementsNamed(partXml(files, path), 'si').map(({ inner }) => stringItemText(inner));
};

// ---------------------------------------------------------------------------
// Cells
// ---------------------------------------------------------------------------

export type XlsxCell = {
  /** Its `cellXfs` index (`s`), 0 when it has none. */
  style: number;
  /** Its `t`: `s`, `str`, `inlineStr`, `b`, … or undefined for a number. */
  type: string | undefined;
  formula: string | undefined;
  /** Its text: a shared string resolved, an inline string's runs joined, any other value as written. */
  text: string;
};

/** Every cell of the sheet named `name` by reference (`J3`): its style, type, formula and text, shared strings resolved. */
export const sheetCells = (files: Unzipped, name: string): Map<string, XlsxCell> => {
  const strings = sharedStrings(files);
  return new Map(
    elementsNamed(sheetXml(files, name), 'c').map(({ attributes, inner }): [string, XlsxCell] => {
      const reference = attributes.r;
      if (reference === undefined) throw new Error(`a cell of sheet "${name}" has no reference`);
      const value = elementsNamed(inner, 'v')[0]?.inner;
      const formula = elementsNamed(inner, 'f')[0]?.inner;
      let text: string;
      if (attributes.t === 's') {
        const shared = strings[Number(value)];
        if (shared === undefined) throw new Error(`${reference} refers to shared string ${value}, not there`);
        text = shared;
      } else if (attributes.t === 'inlineStr') {
        text = stringItemText(elementsNamed(inner, 'is')[0]?.inner ?? '');
      } else {
        text = unescapeXml(value ?? '');
      }
      return [
        reference,
        {
          style: Number(attributes.s ?? 0),
          type: attributes.t,
          formula: formula === undefined ? undefined : unescapeXml(formula),
          text,
        },
      ];
    }),
  );
};

/**
 * A sheet's XML with the cell at `reference` holding `text` (escaped) as an inline string, as a
 * spreadsheet program writes what is typed: whatever the cell held is replaced, its other attributes
 * (its style) are kept. Throws when the sheet has no such cell.
 */
export const withInlineString = (xml: string, reference: string, text: string): string => {
  const match = new RegExp(`<c r="${reference}"((?:\\s[^>]*?)?)(?:/>|>[\\s\\S]*?</c>)`).exec(xml);
  if (!match) throw new Error(`no cell ${reference} in the sheet`);
  const attributes = (match[1] ?? '').replace(/\s+t="[^"]*"/, '');
  const cell = `<c r="${reference}"${attributes} t="inlineStr"><is><t xml:space="preserve">${escapeXml(text)}</t></is></c>`;
  return xml.slice(0, match.index) + cell + xml.slice(match.index + match[0].length);
};
