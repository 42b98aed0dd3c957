/**
 * local/setup/system-programs.mjs, `npm test`'s pretest, run as npm runs it but with a PATH of
 * stubs alone: small shell scripts for the programs, apt-get, sudo and id, each writing what it
 * was asked to a log. apt-get's install puts the packages' programs on that PATH, as Debian would.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';

const SCRIPT = join(import.meta.dirname, '..', '..', '..', 'local', 'setup', 'system-programs.mjs');
const PROGRAM_OF: Record<string, string> = {
  'libreoffice-calc-nogui': 'soffice',
  'poppler-utils': 'pdftotext',
  chromium: 'chromium',
  'openjdk-17-jre-headless': 'java',
};
const ALL = Object.values(PROGRAM_OF);

let dir: string;
let bin: string;
let log: string;

const stub = (name: string, body: string) => {
  const path = join(bin, name);
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "${name} $*" >> '${log}'\n${body}\n`);
  chmodSync(path, 0o755);
};

/** The programs present, an apt-get that installs, and an `id -u` that answers `uid`. */
const machine = (options: {
  present: string[];
  apt?: boolean;
  uid?: number;
  sudo?: 'none' | 'ok' | 'password';
}) => {
  for (const program of options.present) stub(program, 'exit 0');
  if (options.apt ?? true) {
    const installs = Object.entries(PROGRAM_OF)
      .map(
        ([pkg, program]) =>
          `  ${pkg}) printf '#!/bin/sh\\n' > '${bin}/${program}'; /bin/chmod 755 '${bin}/${program}' ;;`,
      )
      .join('\n');
    stub('apt-get', `[ "$1" = install ] || exit 0\nfor p in "$@"; do case "$p" in\n${installs}\nesac; done`);
  }
  stub('id', `echo ${options.uid ?? 0}`);
  const sudo = options.sudo ?? 'none';
  if (sudo !== 'none') {
    // `sudo -n true` says whether sudo asks for a password; otherwise run the command after its options.
    stub(
      'sudo',
      `[ "$2" = true ] && exit ${sudo === 'ok' ? 0 : 1}\n` +
        'while case "$1" in -n) true;; *=*) export "$1";; *) false;; esac; do shift; done\nexec "$@"',
    );
  }
};

const run = (env: Record<string, string> = {}) => {
  const result = spawnSync(process.execPath, [SCRIPT], { env: { ...env, PATH: bin }, encoding: 'utf8' });
  const calls = existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : [];
  return { status: result.status, stdout: result.stdout, stderr: result.stderr, calls };
};

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ncm-system-programs-'));
  bin = join(dir, 'bin');
  log = join(dir, 'calls.log');
  mkdirSync(bin);
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe("npm test's pretest (local/setup/system-programs.mjs)", () => {
  it('does nothing when every program is on PATH: no apt-get, no sudo, exit 0', () => {
    machine({ present: ALL, sudo: 'ok' });
    const { status, stdout, stderr, calls } = run();
    expect(status).toBe(0);
    expect(stdout + stderr).toBe('');
    expect(calls.filter((call) => /^(apt-get|sudo) /.test(call))).toEqual([]);
  });

  it('takes the Chromium CHROMIUM_PATH names, as the browser tests do', () => {
    machine({ present: ['soffice', 'pdftotext', 'java'] });
    const elsewhere = join(dir, 'chrome');
    writeFileSync(elsewhere, '#!/bin/sh\n');
    chmodSync(elsewhere, 0o755);
    const { status, calls } = run({ CHROMIUM_PATH: elsewhere });
    expect(status).toBe(0);
    expect(calls.filter((call) => call.startsWith('apt-get '))).toEqual([]);
  });

  it('as root, updates then installs exactly the missing packages, saying so in one line', () => {
    machine({ present: ['soffice', 'pdftotext'] });
    const { status, stderr, calls } = run();
    expect(status).toBe(0);
    expect(calls.filter((call) => call.startsWith('apt-get '))).toEqual([
      'apt-get update -qq',
      'apt-get install -y -qq --no-install-recommends chromium openjdk-17-jre-headless',
    ]);
    expect(stderr.trim().split('\n')).toEqual([
      'Installing what npm test needs (chromium, java missing): apt-get update -qq && ' +
        'apt-get install -y -qq --no-install-recommends chromium openjdk-17-jre-headless',
    ]);
  });

  it('not root, with passwordless sudo: the same two apt-get calls through sudo -n', () => {
    machine({ present: ['chromium', 'java', 'pdftotext'], uid: 1000, sudo: 'ok' });
    const { status, calls } = run();
    expect(status).toBe(0);
    expect(calls.filter((call) => /^(apt-get|sudo) /.test(call))).toEqual([
      'sudo -n true',
      'sudo -n DEBIAN_FRONTEND=noninteractive apt-get update -qq',
      'apt-get update -qq',
      'sudo -n DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends libreoffice-calc-nogui',
      'apt-get install -y -qq --no-install-recommends libreoffice-calc-nogui',
    ]);
  });

  it.each([
    ['no sudo', 'none'],
    ['sudo asking for a password', 'password'],
  ] as const)('not root, %s: exit 1 at once, one line naming each program and package', (_, sudo) => {
    machine({ present: ['soffice', 'chromium'], uid: 1000, sudo });
    const { status, stdout, stderr, calls } = run();
    expect(status).toBe(1);
    expect(stdout).toBe('');
    expect(stderr.trim().split('\n')).toEqual([
      'npm test needs pdftotext (poppler, package poppler-utils), java (Java 17, package openjdk-17-jre-headless), ' +
        'not found on PATH: as root, apt-get install -y -qq --no-install-recommends poppler-utils openjdk-17-jre-headless; ' +
        'then run npm test again.',
    ]);
    expect(calls.filter((call) => call.startsWith('apt-get '))).toEqual([]);
  });

  it('on a machine without apt-get: exit 1 at once, one line naming each program and package', () => {
    machine({ present: ['pdftotext', 'java'], apt: false });
    const { status, stderr, calls } = run();
    expect(status).toBe(1);
    expect(stderr.trim().split('\n')).toEqual([
      'npm test needs soffice (LibreOffice, package libreoffice-calc-nogui), chromium (Chromium, package chromium), ' +
        'not found on PATH: install them, then run npm test again.',
    ]);
    expect(calls.filter((call) => /^(id|sudo) /.test(call))).toEqual([]);
  });
});
