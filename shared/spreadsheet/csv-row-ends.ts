/**
 * Where a CSV's rows end, made plain before papaparse splits them, so that every line a row ends
 * on still ends it (read-csv.ts feeds it the text a chunk at a time):
 *
 * - A line break of another kind than the file's own, outside a quoted cell, is made the file's
 *   own: rows appended by another program (LF rows under an Excel CRLF header, a CR-only line
 *   pasted in) would otherwise run into the row before.
 * - A quoted cell holding a stray quote (`"12" pipe`, neither doubled nor closing it) is closed at
 *   the end of its line, as Excel closes it: papaparse would read on to the next quote that
 *   closes a cell, rows later, and the rows between would become part of that cell. The stray
 *   quote is still read as text and said (`csv_malformed_quotes`). A quoted cell with no stray
 *   quote keeps its line breaks, and one never closed is still refused.
 *
 * Quotes are read as papaparse reads them: a quoted cell opens only at a cell's start, `""` inside
 * it is a quote, and a quote followed (after spaces) by the delimiter, a line break or the end
 * closes it.
 */

import type { Delimiter } from './schemas.js';

const OUTSIDE = /\r\n|\r|\n|"/g;
const TAINTED_INSIDE = /["\r\n]/g;

/** A line ending a CSV file uses: CRLF, LF or a lone CR. */
export type Newline = '\r\n' | '\n' | '\r';

export const csvRowEnds = (newline: Newline, delimiter: Delimiter) => {
  let inQuotes = false;
  /** The quoted cell being read holds a stray quote: its line's end closes it. */
  let tainted = false;
  /** The character before the text to come: a cell's start when it is a delimiter or a break. */
  let previous = '\n';
  /** What waits for the next chunk: a CR (is an LF next?), a quote (what follows it?). */
  let held = '';

  const opensCell = (text: string, at: number): boolean => {
    const before = at > 0 ? text[at - 1] : previous;
    return before === delimiter || before === '\n' || before === '\r';
  };

  /** What follows the quote at `at` inside a quoted cell; `wait` when the text ends before it shows. */
  const afterQuote = (text: string, at: number, last: boolean): 'escaped' | 'closes' | 'stray' | 'wait' => {
    if (text[at + 1] === '"') return 'escaped';
    let next = at + 1;
    while (next < text.length && (text[next] === ' ' || (text[next] === '\t' && delimiter !== '\t'))) next++;
    if (next === text.length) return last ? 'closes' : 'wait';
    const char = text[next];
    return char === delimiter || char === '\n' || char === '\r' ? 'closes' : 'stray';
  };

  return (chunk: string, last: boolean): string => {
    const text = held + chunk;
    held = '';
    const parts: string[] = [];
    let from = 0;
    let end = text.length;
    let i = 0;
    while (i < end) {
      if (inQuotes) {
        let at: number;
        if (tainted) {
          TAINTED_INSIDE.lastIndex = i;
          at = TAINTED_INSIDE.exec(text)?.index ?? -1;
        } else at = text.indexOf('"', i);
        if (at === -1) break;
        if (text[at] !== '"') {
          // The line ends a cell with a stray quote: closed here, as Excel closes it.
          parts.push(text.slice(from, at), '"');
          from = at;
          inQuotes = false;
          tainted = false;
          i = at;
          continue;
        }
        const next = afterQuote(text, at, last);
        if (next === 'wait') {
          end = at;
          break;
        }
        if (next === 'escaped') i = at + 2;
        else {
          if (next === 'closes') inQuotes = false;
          else tainted = true;
          i = at + 1;
        }
        continue;
      }
      OUTSIDE.lastIndex = i;
      const found = OUTSIDE.exec(text);
      if (!found) break;
      const at = found.index;
      if (found[0] === '\r' && at === text.length - 1 && !last) {
        end = at;
        break;
      }
      if (found[0] === '"') inQuotes = opensCell(text, at);
      else if (found[0] !== newline) {
        parts.push(text.slice(from, at), newline);
        from = at + found[0].length;
      }
      i = at + found[0].length;
    }
    held = text.slice(end);
    // A cell with a stray quote that the file's end leaves open is closed there too.
    const close = last && inQuotes && tainted ? '"' : '';
    if (end > 0) previous = text[end - 1]!;
    if (parts.length === 0 && end === text.length) return text + close;
    parts.push(text.slice(from, end), close);
    return parts.join('');
  };
};
