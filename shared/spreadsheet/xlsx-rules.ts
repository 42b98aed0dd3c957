/**
 * The rules a sheet puts on the cells a person fills in, as the XML that follows its rows
 * (xlsx-parts.ts writes the rest of the sheet): its protection, and its data validations, each a
 * drop-down list, a text's length or only a hint, with the alert that a value out of rule raises,
 * or none. Neighbouring cells of a column under the same rule share one range, so a long sheet
 * lists a rule per run of rows, not per cell, and the rules are written one at a time as they are
 * read, never gathered.
 */
import { escapeAttribute, escapeText } from './xlsx-parts.js';

/** What a protected sheet still lets everyone do besides selecting cells and changing unlocked ones. */
export type SheetAllowance = 'formatColumns' | 'formatRows' | 'autoFilter';

/**
 * A sheet protected without a password, letting everyone do what `allow` names: its locked cells
 * cannot be changed by mistake, and anyone who needs to can lift the protection.
 */
export const sheetProtectionXml = (allow: readonly SheetAllowance[] = []): string =>
  // An attribute set to 0 is something the protection does not forbid.
  `<sheetProtection sheet="1"${allow.map((what) => ` ${what}="0"`).join('')}/>`;

/** A rule over cells, as Excel's and LibreOffice's data validation takes it. */
export type CellRule = {
  /** `list`: a drop-down of `formula`'s values; `textLength`: the text's length against `formula`; `none`: only the hint. */
  type: 'list' | 'textLength' | 'none';
  operator?: 'lessThanOrEqual';
  /** A range (`'Opções'!$A$1:$C$1`), a list written in the rule (`"a,b"`), or a number. */
  formula?: string;
  /** The hint shown beside a cell when it is chosen. */
  prompt?: { title?: string; text: string };
  /** What a value out of rule raises: `stop` refuses it, `warning` asks; no alert keeps any value. */
  alert?: { style: 'stop' | 'warning'; title: string; text: string };
};

/** A rule over a range of cells (`J2:J40`, or one cell, `J10`). */
export type RangeRule = { sqref: string; rule: CellRule };

const promptAttributes = (prompt: CellRule['prompt']): string =>
  prompt
    ? ` showInputMessage="1"${prompt.title ? ` promptTitle="${escapeAttribute(prompt.title)}"` : ''} prompt="${escapeAttribute(prompt.text)}"`
    : '';

const alertAttributes = (alert: CellRule['alert']): string =>
  alert
    ? ` showErrorMessage="1" errorStyle="${alert.style}" errorTitle="${escapeAttribute(alert.title)}" error="${escapeAttribute(alert.text)}"`
    : '';

/** One `<dataValidation>`: the rule over the cells `sqref` names; an empty cell is always allowed. */
const dataValidationXml = ({ sqref, rule }: RangeRule): string => {
  const attributes =
    (rule.type === 'none' ? '' : ` type="${rule.type}"`) +
    (rule.operator ? ` operator="${rule.operator}"` : '') +
    ' allowBlank="1"' +
    promptAttributes(rule.prompt) +
    alertAttributes(rule.alert) +
    ` sqref="${sqref}"`;
  return rule.formula === undefined
    ? `<dataValidation${attributes}/>`
    : `<dataValidation${attributes}><formula1>${escapeText(rule.formula)}</formula1></dataValidation>`;
};

/**
 * The rules of one column's cells from row `firstRow` down, given a row at a time (null: that
 * cell has none), as ranges: a run of neighbouring cells under the same rule is one range.
 */
export function* columnRules(
  letter: string,
  firstRow: number,
  rules: Iterable<CellRule | null>,
): Generator<RangeRule> {
  let run: { rule: CellRule; key: string; from: number; to: number } | null = null;
  const range = ({ from, to }: { from: number; to: number }) =>
    from === to ? `${letter}${from}` : `${letter}${from}:${letter}${to}`;
  let row = firstRow;
  for (const rule of rules) {
    const key = rule === null ? null : JSON.stringify(rule);
    if (run && key === run.key) run.to = row;
    else {
      if (run) yield { sqref: range(run), rule: run.rule };
      run = rule === null || key === null ? null : { rule, key, from: row, to: row };
    }
    row += 1;
  }
  if (run) yield { sqref: range(run), rule: run.rule };
}

/**
 * A sheet's `<dataValidations>` in pieces, one rule at a time from `rules` (read twice: once to
 * count them, as the element says, once to write them); nothing when there are none.
 */
export function* dataValidationsXml(rules: () => Iterable<RangeRule>): Generator<string> {
  let count = 0;
  for (const _ of rules()) count += 1;
  if (count === 0) return;
  yield `<dataValidations count="${count}">`;
  for (const rule of rules()) yield dataValidationXml(rule);
  yield '</dataValidations>';
}
