/**
 * A column's letters as a spreadsheet program shows them (`A`, `Z`, `AA`): what users look for in
 * their sheet, named by the reports on a file and written into every sheet's cell references. A
 * module of its own, apart from the header matching (columns.ts), so that naming a column does not
 * load the aliases.
 */

/** Takes a column's index from 0 and gives Excel's letters for it (0 → A, 26 → AA). */
export const columnLetter = (index: number): string => {
  let letters = '';
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) {
    letters = String.fromCharCode(65 + ((n - 1) % 26)) + letters;
  }
  return letters;
};
