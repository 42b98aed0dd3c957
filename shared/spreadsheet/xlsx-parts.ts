/**
 * An XLSX workbook written as text, without a library: the XML of cells and of a sheet's head and
 * tail, and the small parts around the sheets (content types, relationships, workbook.xml, styles,
 * document properties). Pure functions of what they are given, so the same workbook is the same
 * bytes; zip-in-legs.ts puts the parts into the archive (write-xlsx.ts streams a workbook through
 * it), xlsx-rules.ts writes the rules a sheet puts on the cells a person fills in.
 *
 * Every text is an inline string (`t="inlineStr"`): no shared-strings table, which would hold every
 * distinct text until the end, and never a formula, so a description that starts with `=` is shown,
 * not evaluated (OWASP "CSV Injection", CWE-1236). The only formulas are those a layout writes.
 */
import { columnLetter } from './column-letters.js';
import { BODY_FONT } from './xlsx-layout.js';

const XML_DECLARATION = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const MAIN_NS = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
const RELATIONSHIPS_NS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const PACKAGE_RELATIONSHIPS_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_RELATIONSHIP = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';

// ---------------------------------------------------------------------------
// Text
// ---------------------------------------------------------------------------

/**
 * Text as an attribute's value: `&`, `<`, `>` and `"` escaped, and line breaks and tabs as
 * character references, since a reader turns a raw one in an attribute into a space.
 */
export const escapeAttribute = (text: string): string =>
  text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/[\n\r\t]/g, (character) => `&#${character.charCodeAt(0)};`);

/** Text as an element's content, not a cell's (a rule's formula): `&`, `<` and `>` escaped. */
export const escapeText = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** What a cell's text must have escaped: XML's specials, and a `_x` that readers would take for `_xHHHH_`. */
const NEEDS_ESCAPE = /[&<>]|_x/;

/**
 * A cell's text as element content (the caller has passed it through `xlsxText`): XML's specials
 * escaped, and a literal `_xHHHH_` written `_x005F_xHHHH_`, since Excel, LibreOffice and our reader
 * (spreadsheet/xlsx-cells.ts) read `_xHHHH_` as the character it names.
 */
const escapeCellText = (text: string): string =>
  NEEDS_ESCAPE.test(text)
    ? text
        .replace(/&/g, '&amp;')
        .replace(/</g, '&lt;')
        .replace(/>/g, '&gt;')
        .replace(/_(?=x[0-9A-Fa-f]{4}_)/g, '_x005F_')
    : text;

/** Leading or trailing white space, which a reader trims unless told to keep it. */
const EDGE_SPACE = /^\s|\s$/;

// ---------------------------------------------------------------------------
// Cells
// ---------------------------------------------------------------------------

const styleAttribute = (style: number): string => (style === 0 ? '' : ` s="${style}"`);

/** A text cell; the text already passed through `xlsxText`. */
export const inlineStringCell = (ref: string, text: string, style = 0): string =>
  `<c r="${ref}"${styleAttribute(style)} t="inlineStr"><is><t${EDGE_SPACE.test(text) ? ' xml:space="preserve"' : ''}>${escapeCellText(text)}</t></is></c>`;

export const numberCell = (ref: string, value: number, style = 0): string =>
  `<c r="${ref}"${styleAttribute(style)}><v>${value}</v></c>`;

/** A formula with its text result cached: what every program shows before, or without, calculating. */
export const formulaTextCell = (ref: string, formula: string, result: string, style = 0): string =>
  `<c r="${ref}"${styleAttribute(style)} t="str"><f>${escapeCellText(formula)}</f><v>${escapeCellText(result)}</v></c>`;

/** A formula with its number result cached (a count of days), shown as is until it is calculated again. */
const formulaNumberCell = (ref: string, formula: string, result: number, style = 0): string =>
  `<c r="${ref}"${styleAttribute(style)}><f>${escapeCellText(formula)}</f><v>${result}</v></c>`;

/** An empty cell: only worth writing when it has a style (a header's fill), else nothing. */
export const emptyCell = (ref: string, style = 0): string =>
  style === 0 ? '' : `<c r="${ref}"${styleAttribute(style)}/>`;

const MS_PER_DAY = 86_400_000;
/** 1970-01-01 in Excel's 1900 date system. */
const EPOCH_SERIAL = 25_569;

/** A date as Excel's serial number of days, in UTC (as ExcelJS wrote dates). */
export const excelSerial = (date: Date): number => date.getTime() / MS_PER_DAY + EPOCH_SERIAL;

/**
 * What a cell holds: text (already through `xlsxText`), a number, a date, a formula with its
 * result cached, or nothing.
 */
export type CellValue = null | number | string | Date | { formula: string; result: string | number };

/**
 * A cell's XML from its value: text always as an inline string, so it is never evaluated (only a
 * `{ formula }` value is a formula); nothing for an empty cell without a style.
 */
export const valueCell = (ref: string, value: CellValue, style = 0): string => {
  if (value === null || value === '') return emptyCell(ref, style);
  if (typeof value === 'number') return numberCell(ref, value, style);
  if (typeof value === 'string') return inlineStringCell(ref, value, style);
  if (value instanceof Date) return numberCell(ref, excelSerial(value), style);
  return typeof value.result === 'number'
    ? formulaNumberCell(ref, value.formula, value.result, style)
    : formulaTextCell(ref, value.formula, value.result, style);
};

// ---------------------------------------------------------------------------
// A sheet's head and tail, around its rows
// ---------------------------------------------------------------------------

export type SheetColumn = { width: number; style?: number; hidden?: boolean };

/** The frozen pane: rows only (scrolling down), or rows and columns (scrolling both ways). */
const paneXml = (rows: number, columns: number): string => {
  if (columns === 0) {
    return rows > 0
      ? `<pane ySplit="${rows}" topLeftCell="A${rows + 1}" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft"/>`
      : '';
  }
  const corner = `${columnLetter(columns)}${rows + 1}`;
  const pane = rows > 0 ? 'bottomRight' : 'topRight';
  return (
    `<pane xSplit="${columns}"${rows > 0 ? ` ySplit="${rows}"` : ''} topLeftCell="${corner}" activePane="${pane}" state="frozen"/>` +
    `<selection pane="${pane}"/>`
  );
};

/**
 * Everything before the first row: the view (its first rows, and columns when asked, frozen), the
 * columns' widths, styles and whether they are hidden.
 */
export const sheetHead = (input: {
  frozenRows: number;
  frozenColumns?: number;
  columns: readonly SheetColumn[];
}): string => {
  const pane = paneXml(input.frozenRows, input.frozenColumns ?? 0);
  const columns = input.columns
    .map(
      ({ width, style, hidden }, i) =>
        `<col min="${i + 1}" max="${i + 1}" width="${width}"${style ? ` style="${style}"` : ''}${hidden ? ' hidden="1"' : ''} customWidth="1"/>`,
    )
    .join('');
  return (
    `${XML_DECLARATION}<worksheet xmlns="${MAIN_NS}" xmlns:r="${RELATIONSHIPS_NS}">` +
    `<sheetViews><sheetView workbookViewId="0">${pane}</sheetView></sheetViews>` +
    `<sheetFormatPr defaultRowHeight="15"/>${columns === '' ? '' : `<cols>${columns}</cols>`}<sheetData>`
  );
};

/**
 * One row's XML around its cells' (row numbers from 1), `height` in points when it is written:
 * neither program makes a row taller for wrapped text of a file it opens.
 */
export const rowXml = (row: number, cells: string, height?: number): string =>
  `<row r="${row}"${height === undefined ? '' : ` ht="${height}" customHeight="1"`}>${cells}</row>`;

/**
 * What the last row is followed by before a sheet's rules (xlsx-rules.ts): its protection when it
 * has one, then its autofilter when it has one.
 */
export const sheetDataEnd = (input: { protection?: string; autoFilter?: string | undefined }): string =>
  `</sheetData>${input.protection ?? ''}${input.autoFilter ? `<autoFilter ref="${input.autoFilter}"/>` : ''}`;

/** A sheet's last XML, after its rules: Excel's default margins, the orientation. */
export const sheetEnd = (orientation: 'landscape' | 'portrait'): string =>
  '<pageMargins left="0.7" right="0.7" top="0.75" bottom="0.75" header="0.3" footer="0.3"/>' +
  `<pageSetup orientation="${orientation}"/></worksheet>`;

/** Everything after the last row of a sheet without protection or rules: the autofilter, if any, the page. */
export const sheetTail = (input: { autoFilter?: string; orientation: 'landscape' | 'portrait' }): string =>
  sheetDataEnd({ autoFilter: input.autoFilter }) + sheetEnd(input.orientation);

// ---------------------------------------------------------------------------
// The parts around the sheets
// ---------------------------------------------------------------------------

/**
 * A sheet as workbook.xml names it: its filter's range (`A1:AE9`), whether row 1 prints on every
 * page, whether it is hidden from its tabs.
 */
export type WorkbookSheet = { name: string; autoFilter?: string; printTitleRow?: boolean; hidden?: boolean };

export const sheetPath = (position: number): string => `xl/worksheets/sheet${position + 1}.xml`;

export const contentTypesXml = (sheets: number): string => {
  const override = (part: string, type: string) =>
    `<Override PartName="/${part}" ContentType="application/vnd.openxmlformats-${type}"/>`;
  return (
    `${XML_DECLARATION}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
    '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
    '<Default Extension="xml" ContentType="application/xml"/>' +
    override('xl/workbook.xml', 'officedocument.spreadsheetml.sheet.main+xml') +
    Array.from({ length: sheets }, (_, i) =>
      override(sheetPath(i), 'officedocument.spreadsheetml.worksheet+xml'),
    ).join('') +
    override('xl/theme/theme1.xml', 'officedocument.theme+xml') +
    override('xl/styles.xml', 'officedocument.spreadsheetml.styles+xml') +
    override('docProps/core.xml', 'package.core-properties+xml') +
    override('docProps/app.xml', 'officedocument.extended-properties+xml') +
    '</Types>'
  );
};

const relationship = (id: number, type: string, target: string): string =>
  `<Relationship Id="rId${id}" Type="${type}" Target="${target}"/>`;

export const rootRelationshipsXml = (): string =>
  `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS_NS}">` +
  relationship(1, `${OFFICE_RELATIONSHIP}/officeDocument`, 'xl/workbook.xml') +
  relationship(2, `${PACKAGE_RELATIONSHIPS_NS}/metadata/core-properties`, 'docProps/core.xml') +
  relationship(3, `${OFFICE_RELATIONSHIP}/extended-properties`, 'docProps/app.xml') +
  '</Relationships>';

/** Styles rId1, theme rId2, the sheets from rId3 (workbook.xml refers to them so). */
export const workbookRelationshipsXml = (sheets: number): string =>
  `${XML_DECLARATION}<Relationships xmlns="${PACKAGE_RELATIONSHIPS_NS}">` +
  relationship(1, `${OFFICE_RELATIONSHIP}/styles`, 'styles.xml') +
  relationship(2, `${OFFICE_RELATIONSHIP}/theme`, 'theme/theme1.xml') +
  Array.from({ length: sheets }, (_, i) =>
    relationship(i + 3, `${OFFICE_RELATIONSHIP}/worksheet`, `worksheets/sheet${i + 1}.xml`),
  ).join('') +
  '</Relationships>';

/** A sheet's name as a formula refers to it: quoted, its quotes doubled. */
const quotedSheet = (name: string): string => `'${name.replace(/'/g, "''")}'`;

/** `A1:AE9` → `$A$1:$AE$9`. */
const absolute = (range: string): string => range.replace(/([A-Z]+)(\d+)/g, '$$$1$$$2');

/**
 * workbook.xml. A sheet with a filter gets the hidden `_xlnm._FilterDatabase` name Excel writes:
 * LibreOffice shows a sheet's filter only when that name says where it is.
 */
export const workbookXml = (sheets: readonly WorkbookSheet[]): string => {
  const names = [
    ...sheets.flatMap((sheet, i) =>
      sheet.autoFilter
        ? [
            `<definedName name="_xlnm._FilterDatabase" localSheetId="${i}" hidden="1">${escapeAttribute(`${quotedSheet(sheet.name)}!${absolute(sheet.autoFilter)}`)}</definedName>`,
          ]
        : [],
    ),
    ...sheets.flatMap((sheet, i) =>
      sheet.printTitleRow
        ? [
            `<definedName name="_xlnm.Print_Titles" localSheetId="${i}">${escapeAttribute(`${quotedSheet(sheet.name)}!$1:$1`)}</definedName>`,
          ]
        : [],
    ),
  ].join('');
  return (
    `${XML_DECLARATION}<workbook xmlns="${MAIN_NS}" xmlns:r="${RELATIONSHIPS_NS}">` +
    '<workbookPr defaultThemeVersion="164011" filterPrivacy="1"/><sheets>' +
    sheets
      .map(
        (sheet, i) =>
          `<sheet name="${escapeAttribute(sheet.name)}" sheetId="${i + 1}"${sheet.hidden ? ' state="hidden"' : ''} r:id="rId${i + 3}"/>`,
      )
      .join('') +
    `</sheets>${names === '' ? '' : `<definedNames>${names}</definedNames>`}<calcPr calcId="171027"/></workbook>`
  );
};

/** docProps/app.xml: the sheets' names, as Excel lists them in the file's properties. */
export const appPropertiesXml = (sheetNames: readonly string[]): string =>
  `${XML_DECLARATION}<Properties xmlns="http://schemas.openxmlformats.org/officeDocument/2006/extended-properties" xmlns:vt="http://schemas.openxmlformats.org/officeDocument/2006/docPropsVTypes">` +
  '<Application>Microsoft Excel</Application><DocSecurity>0</DocSecurity><ScaleCrop>false</ScaleCrop>' +
  `<HeadingPairs><vt:vector size="2" baseType="variant"><vt:variant><vt:lpstr>Worksheets</vt:lpstr></vt:variant><vt:variant><vt:i4>${sheetNames.length}</vt:i4></vt:variant></vt:vector></HeadingPairs>` +
  `<TitlesOfParts><vt:vector size="${sheetNames.length}" baseType="lpstr">${sheetNames.map((name) => `<vt:lpstr>${escapeAttribute(name)}</vt:lpstr>`).join('')}</vt:vector></TitlesOfParts>` +
  '<LinksUpToDate>false</LinksUpToDate><SharedDoc>false</SharedDoc><HyperlinksChanged>false</HyperlinksChanged><AppVersion>16.0300</AppVersion></Properties>';

/** docProps/core.xml: created and modified at `at`, to the second. */
export const corePropertiesXml = (at: Date): string => {
  const when = `${at.toISOString().slice(0, 19)}Z`;
  return (
    `${XML_DECLARATION}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:dcmitype="http://purl.org/dc/dcmitype/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
    `<dcterms:created xsi:type="dcterms:W3CDTF">${when}</dcterms:created>` +
    `<dcterms:modified xsi:type="dcterms:W3CDTF">${when}</dcterms:modified></cp:coreProperties>`
  );
};

// ---------------------------------------------------------------------------
// Styles
// ---------------------------------------------------------------------------

/**
 * A cell style: every font is `BODY_FONT`, bold, underlined or coloured; colours are ARGB
 * (`FF1F4E78`); `border` a thin line under the cell in its colour; `unlocked` a cell a person may
 * change in a protected sheet (every other cell is locked, as Excel's default).
 */
export type CellStyle = {
  numFmt?: string;
  font?: { bold?: boolean; underline?: boolean; color?: string };
  fill?: string;
  border?: { bottom: string };
  alignment?: { horizontal?: 'left'; vertical?: 'top' | 'center'; wrapText?: boolean };
  unlocked?: boolean;
};

/** The header row of every sheet: white on dark blue, bold. */
export const HEADER_CELL_STYLE: CellStyle = {
  font: { bold: true, color: 'FFFFFFFF' },
  fill: 'FF1F4E78',
  alignment: { vertical: 'center' },
};

/** Formats Excel knows by number, written without a `<numFmt>`. */
const BUILT_IN_FORMATS: Readonly<Record<string, number>> = { General: 0, '0%': 9, '0.00%': 10, '@': 49 };
/** The first number a workbook's own formats take. */
const FIRST_CUSTOM_FORMAT = 164;

/** The theme's font (Calibri 11, the minor font) that unstyled cells show. */
const DEFAULT_FONT =
  '<font><sz val="11"/><color theme="1"/><name val="Calibri"/><family val="2"/><scheme val="minor"/></font>';

const fontXml = ({ bold, underline, color }: NonNullable<CellStyle['font']>): string =>
  `<font>${bold ? '<b/>' : ''}${underline ? '<u/>' : ''}<sz val="${BODY_FONT.size}"/>` +
  `${color ? `<color rgb="${color}"/>` : ''}<name val="${BODY_FONT.name}"/><family val="2"/></font>`;

const fillXml = (argb: string): string =>
  `<fill><patternFill patternType="solid"><fgColor rgb="${argb}"/></patternFill></fill>`;

const NO_BORDER = '<border><left/><right/><top/><bottom/><diagonal/></border>';

const borderXml = ({ bottom }: NonNullable<CellStyle['border']>): string =>
  `<border><left/><right/><top/><bottom style="thin"><color rgb="${bottom}"/></bottom><diagonal/></border>`;

const alignmentXml = ({ horizontal, vertical, wrapText }: NonNullable<CellStyle['alignment']>): string =>
  `<alignment${horizontal ? ` horizontal="${horizontal}"` : ''}${vertical ? ` vertical="${vertical}"` : ''}${wrapText ? ' wrapText="1"' : ''}/>`;

/** The index of `item` in `list`, added at its end the first time. */
const indexIn = (list: string[], item: string): number => {
  const at = list.indexOf(item);
  return at >= 0 ? at : list.push(item) - 1;
};

/** styles.xml with one cell style (`cellXfs`) per entry of `styles`, in order: a cell's `s` is its index. */
export const stylesXml = (styles: readonly CellStyle[]): string => {
  const formats: string[] = [];
  const fonts = [DEFAULT_FONT];
  const fills = [
    '<fill><patternFill patternType="none"/></fill>',
    '<fill><patternFill patternType="gray125"/></fill>',
  ];
  const borders = [NO_BORDER];
  const xfs = styles.map(({ numFmt, font, fill, border, alignment, unlocked }) => {
    const format =
      numFmt === undefined ? 0 : (BUILT_IN_FORMATS[numFmt] ?? FIRST_CUSTOM_FORMAT + indexIn(formats, numFmt));
    const fontId = font ? indexIn(fonts, fontXml(font)) : 0;
    const fillId = fill ? indexIn(fills, fillXml(fill)) : 0;
    const borderId = border ? indexIn(borders, borderXml(border)) : 0;
    const applied = [
      format ? ' applyNumberFormat="1"' : '',
      fontId ? ' applyFont="1"' : '',
      fillId ? ' applyFill="1"' : '',
      borderId ? ' applyBorder="1"' : '',
      alignment ? ' applyAlignment="1"' : '',
      unlocked ? ' applyProtection="1"' : '',
    ].join('');
    const open = `<xf numFmtId="${format}" fontId="${fontId}" fillId="${fillId}" borderId="${borderId}" xfId="0"${applied}`;
    const inner = (alignment ? alignmentXml(alignment) : '') + (unlocked ? '<protection locked="0"/>' : '');
    return inner === '' ? `${open}/>` : `${open}>${inner}</xf>`;
  });
  const numFmts = formats
    .map((code, i) => `<numFmt numFmtId="${FIRST_CUSTOM_FORMAT + i}" formatCode="${escapeAttribute(code)}"/>`)
    .join('');
  return (
    `${XML_DECLARATION}<styleSheet xmlns="${MAIN_NS}">` +
    (formats.length > 0 ? `<numFmts count="${formats.length}">${numFmts}</numFmts>` : '') +
    `<fonts count="${fonts.length}">${fonts.join('')}</fonts>` +
    `<fills count="${fills.length}">${fills.join('')}</fills>` +
    `<borders count="${borders.length}">${borders.join('')}</borders>` +
    '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
    `<cellXfs count="${xfs.length}">${xfs.join('')}</cellXfs>` +
    '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles>' +
    '<dxfs count="0"/><tableStyles count="0" defaultTableStyle="TableStyleMedium2" defaultPivotStyle="PivotStyleLight16"/>' +
    '</styleSheet>'
  );
};
