#!/usr/bin/env node
/**
 * `npm test`'s pretest: the programs outside npm that the tests drive, there before the suite
 * starts. Plain JavaScript with no dependencies, because it runs before anything is built:
 *
 *   all on PATH ─▶ nothing to do (no apt call: a look through PATH, no process started)
 *   some missing, apt-get present, root or passwordless sudo ─▶ one line saying what it runs, then
 *     apt-get update and apt-get install -y --no-install-recommends <exactly the missing packages>
 *   some missing otherwise ─▶ one line naming each program and its package, exit 1 at once
 *
 * Who is root is asked of `id -u` on PATH, as any shell script would.
 */
import { spawnSync } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** Each program the tests run, the Debian/Ubuntu package that brings it, and what it is. */
const PROGRAMS = [
  // Re-saves review.csv and review.xlsx as a user's spreadsheet would; prints the workbooks to PDF.
  { program: 'soffice', pkg: 'libreoffice-calc-nogui', name: 'LibreOffice' },
  // Reads back the PDFs LibreOffice prints.
  { program: 'pdftotext', pkg: 'poppler-utils', name: 'poppler' },
  // The console's browser tests (playwright-core; CHROMIUM_PATH names another Chromium).
  { program: 'chromium', pkg: 'chromium', name: 'Chromium' },
  // Runs DynamoDB Local, the real engine of the DynamoDB contract suites.
  { program: 'java', pkg: 'openjdk-17-jre-headless', name: 'Java 17' },
];

const isExecutable = (path) => {
  try {
    accessSync(path, constants.X_OK);
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const onPath = (program) =>
  (process.env.PATH ?? '')
    .split(delimiter)
    .filter(Boolean)
    .some((dir) => isExecutable(join(dir, program)));

const present = ({ program }) =>
  program === 'chromium' && process.env.CHROMIUM_PATH
    ? isExecutable(process.env.CHROMIUM_PATH)
    : onPath(program);

const stop = (line) => {
  console.error(line);
  process.exit(1);
};

const named = (programs) =>
  programs.map(({ program, pkg, name }) => `${program} (${name}, package ${pkg})`).join(', ');

const isRoot = () => {
  const id = spawnSync('id', ['-u'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] });
  return id.status === 0 && id.stdout.trim() === '0';
};

const canSudo = () => onPath('sudo') && spawnSync('sudo', ['-n', 'true'], { stdio: 'ignore' }).status === 0;

/** apt-get as root, or through sudo, asking no question; stops with one line if it fails. */
const aptGet = (sudo, args, needed) => {
  const command = sudo ? 'sudo' : 'apt-get';
  const argv = sudo ? ['-n', 'DEBIAN_FRONTEND=noninteractive', 'apt-get', ...args] : args;
  const run = spawnSync(command, argv, {
    stdio: ['ignore', 'ignore', 'inherit'],
    env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' },
  });
  if (run.status !== 0) {
    stop(
      `apt-get ${args[0]} failed (exit ${run.status ?? run.signal}); npm test still needs ${named(needed)}.`,
    );
  }
};

const missing = PROGRAMS.filter((program) => !present(program));
if (missing.length > 0) {
  const update = ['update', '-qq'];
  const install = ['install', '-y', '-qq', '--no-install-recommends', ...missing.map(({ pkg }) => pkg)];
  if (process.platform !== 'linux' || !onPath('apt-get')) {
    stop(`npm test needs ${named(missing)}, not found on PATH: install them, then run npm test again.`);
  }
  const sudo = !isRoot();
  if (sudo && !canSudo()) {
    stop(
      `npm test needs ${named(missing)}, not found on PATH: as root, apt-get ${install.join(' ')}; ` +
        'then run npm test again.',
    );
  }
  const as = sudo ? 'sudo apt-get' : 'apt-get';
  console.error(
    `Installing what npm test needs (${missing.map(({ program }) => program).join(', ')} missing): ` +
      `${as} ${update.join(' ')} && ${as} ${install.join(' ')}`,
  );
  aptGet(sudo, update, missing);
  aptGet(sudo, install, missing);
  const still = missing.filter((program) => !present(program));
  if (still.length > 0) stop(`apt-get installed, but npm test still finds no ${named(still)} on PATH.`);
}
