/**
 * The bench's workbook part (`npm run bench -- --workbook 10000,100000`; `--workbook ''` skips
 * it): what writing results.xlsx adds to memory. Finalize holds every row record anyway; the
 * question is whether streaming the workbook out of them stays bounded or grows with the file.
 *
 * Each size runs in a child process of its own (workbook-memory-child.ts), so its memory is
 * its own: the records built, a full collection, then results.xlsx streamed to a file with
 * `resultsWorkbook` while memory is sampled; then results.csv with `buildResultsCsv`, to compare.
 */
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { WorkbookMeasured } from './workbook-memory-child.js';

const here = dirname(fileURLToPath(import.meta.url));
const ROOT = join(here, '..', '..');
const CHILD = join(here, 'workbook-memory-child.ts');

/** `10000,100000` → the sizes, in order; `''` → none. */
export const parseWorkbookSizes = (text: string): number[] =>
  text
    .split(',')
    .map((part) => part.trim().replaceAll('_', ''))
    .filter(Boolean)
    .map((part) => {
      const rows = Number(part);
      if (!Number.isInteger(rows) || rows < 1) throw new Error(`--workbook: "${part}" is not a row count`);
      return rows;
    });

/** Writes results.xlsx (and results.csv) of `rows` rows in a child process, into `workDir`. */
export const measureWorkbook = (workDir: string, rows: number): Promise<WorkbookMeasured> => {
  const dir = join(workDir, 'workbook');
  mkdirSync(dir, { recursive: true });
  return new Promise((resolve, reject) => {
    // tsx as the bench itself runs; --expose-gc so the child measures from a collected heap.
    const child = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', CHILD, String(rows), dir], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) => {
      const last = out.trim().split('\n').at(-1) ?? '';
      if (code !== 0 || !last.startsWith('{')) {
        reject(new Error(`workbook bench of ${rows} rows ended with ${signal ?? `exit status ${code}`}`));
        return;
      }
      resolve(JSON.parse(last) as WorkbookMeasured);
    });
  });
};

const mib = (value: number, digits = 0) => `${value.toFixed(digits)} MiB`;
const added = (value: number) => `${value >= 0 ? '+' : ''}${value.toFixed(0)}`;
const count = (value: number) => Math.round(value).toLocaleString('en-US');

/** What the writer holds once every row is written: heap and external above the start, after a full GC. */
const heldMb = (w: WorkbookMeasured['workbook']): number | null =>
  w.atLastRow && w.atLastRow.heapUsed + w.atLastRow.external - (w.before.heapUsed + w.before.external);

const held = (w: WorkbookMeasured['workbook']): string => {
  const total = heldMb(w);
  if (total === null || !w.atLastRow) return '?';
  return `${added(total)} MiB (${added(w.atLastRow.heapUsed - w.before.heapUsed)} / ${added(w.atLastRow.external - w.before.external)})`;
};

/** The sizes as a Markdown table, and how the memory writing added at the largest compares to the smallest. */
export const workbookReport = (measured: readonly WorkbookMeasured[]): string => {
  if (measured.length === 0) return '';
  const table = [
    '| rows | results.xlsx | write time | rows/s | RSS before writing | peak RSS | added by writing (peak − before) | held at the last row, after GC (heap / external) | results.csv (buildResultsCsv) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...measured.map(({ rows, workbook: w, csv: c }) => {
      const peakRss = Math.max(w.peak.rss, w.peakRssKernelMb ?? 0);
      return [
        '',
        count(rows),
        mib(w.fileMb, 1),
        `${w.seconds.toFixed(1)} s`,
        count(w.rowsPerSecond),
        mib(w.before.rss),
        mib(peakRss),
        `**${added(w.addedRssMb)} MiB**`,
        held(w),
        `${mib(c.fileMb, 1)} in ${c.seconds.toFixed(2)} s, ${added(c.addedRssMb)} MiB RSS`,
        '',
      ]
        .join(' | ')
        .trim();
    }),
  ].join('\n');
  if (measured.length < 2) return table;
  const smallest = measured.reduce((a, b) => (a.rows <= b.rows ? a : b));
  const largest = measured.reduce((a, b) => (a.rows >= b.rows ? a : b));
  const times = (a: number, b: number) => `${(a / Math.max(1, b)).toFixed(1)}×`;
  const heldLargest = heldMb(largest.workbook);
  const heldSmallest = heldMb(smallest.workbook);
  const heldText =
    heldLargest === null || heldSmallest === null
      ? ''
      : `; it held ${mib(heldLargest)} at its last row, ${times(heldLargest, heldSmallest)} the ${mib(heldSmallest)}`;
  return `${table}\n\nWith ${times(largest.rows, smallest.rows)} the rows (${count(largest.rows)} against ${count(smallest.rows)}), writing results.xlsx added ${mib(largest.workbook.addedRssMb)} of RSS, ${times(largest.workbook.addedRssMb, smallest.workbook.addedRssMb)} the ${mib(smallest.workbook.addedRssMb)}${heldText}.`;
};
