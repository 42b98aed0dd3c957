/**
 * The chain that shows audit.csv was not changed (docs/architecture.md, "audit.csv"): each line's
 * last cell, `hash`, is the SHA-256 of the hash of the line before it and of the line's own cells,
 * so changing one byte of a line, or removing a line, breaks every hash from there on. Checking a
 * file recomputes the chain from its first line and names the first line that does not match.
 *
 * The chain's head (the last line's hash) is also kept on the batch record with audit.csv's
 * position: a file that lost its last lines still holds together on its own, and only the head
 * the batch kept shows it.
 */
import { createHash } from 'node:crypto';
import type { ByteSource } from '../../spreadsheet/byte-source.js';
import { openCsv } from '../../spreadsheet/read-csv.js';

/** The name of audit.csv's last column, the chain's hash of each line. */
export const HASH_COLUMN = 'hash';

/** What the first line's hash chains to: nothing before it. */
export const CHAIN_START = '';

/**
 * Takes the hash of the line before (`CHAIN_START` for the first) and a line's cells without its
 * hash, and gives that line's hash: hex SHA-256 of both, the cells as JSON, so quoting and the list
 * separator do not matter, only the text of each cell.
 */
export const chainedHash = (previous: string, cells: readonly string[]): string =>
  createHash('sha256').update(previous).update('\n').update(JSON.stringify(cells)).digest('hex');

/** What checking audit.csv found: the file holds, or the first line that breaks the chain. */
export type ChainCheck =
  | { holds: true; lines: number; head: string }
  | {
      holds: false;
      /** The file's line number (1 is the header), or null when the lines hold but the head does not. */
      line: number | null;
      /** Why, in plain words: which line, and what it means. */
      reason: string;
      lines: number;
    };

/**
 * Takes an audit.csv (its bytes by ranges) and, when known, the head its batch kept, and says
 * whether every line's hash follows from the lines before it, naming the first line that does not;
 * reads the file a chunk at a time, whatever its size.
 */
export const checkAuditChain = async (
  source: ByteSource,
  name: string,
  expected?: { head: string },
): Promise<ChainCheck> => {
  const file = await openCsv(source, name);
  let previous = CHAIN_START;
  let lines = 0;
  let hashAt = -1;
  let fileLine = 0;
  for await (const record of file.read().records) {
    fileLine = record.line;
    if (hashAt < 0) {
      hashAt = record.cells.indexOf(HASH_COLUMN);
      if (hashAt < 0 || hashAt !== record.cells.length - 1)
        return {
          holds: false,
          line: record.line,
          reason: `line ${record.line}: the header has no "${HASH_COLUMN}" column at its end: this file was not written with a chain (or its header was changed).`,
          lines,
        };
      continue;
    }
    const cells = record.cells.slice(0, hashAt);
    const hash = chainedHash(previous, cells);
    if (record.cells[hashAt] !== hash || record.cells.length !== hashAt + 1)
      return {
        holds: false,
        line: record.line,
        reason: `line ${record.line} (row ${cells[1] ?? '?'}, ${cells[3] ?? '?'}) does not follow from the lines before it: it was changed, or a line before it was removed or changed.`,
        lines,
      };
    previous = hash;
    lines += 1;
  }
  if (expected && expected.head !== previous)
    return {
      holds: false,
      line: null,
      reason: `the last line (line ${fileLine}) is not the last one the pipeline wrote: lines were removed from the end, or the file is an older copy.`,
      lines,
    };
  return { holds: true, lines, head: previous };
};
