#!/usr/bin/env node
/**
 * The entry of `npm run classify|answer|review|bench|console|audit`: makes a fresh clone work with one
 * command. Plain JavaScript with no dependencies, because it runs before anything is installed
 * (build-commands.mjs imports esbuild only when it builds):
 *
 *   node_modules missing or older than package-lock.json ─▶ npm ci (once)
 *   then ─▶ the commands built (build-commands.mjs: again only when a source changed)
 *   then ─▶ node <build>/<command>.mjs <args>   (signals passed on, exit code kept)
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { builtCommands, COMMANDS } from './build-commands.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const [command, ...args] = process.argv.slice(2);

if (!command || !COMMANDS.includes(command)) {
  console.error(`usage: node local/cli/bootstrap.mjs <${COMMANDS.join('|')}> [arguments]`);
  process.exit(2);
}
const major = Number(process.versions.node.split('.')[0]);
if (major < 20) {
  console.error(`Node.js 20 or newer is needed; this is ${process.version}.`);
  process.exit(1);
}

/** npm writes node_modules/.package-lock.json on every install: older than the lockfile means stale. */
const installed = () => {
  const marker = join(root, 'node_modules', '.package-lock.json');
  const lock = join(root, 'package-lock.json');
  return existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs;
};

if (!installed()) {
  console.error('Installing dependencies (first run, about a minute)…');
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const install = spawnSync(npm, ['ci', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: root,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  if (install.status !== 0) {
    console.error('npm ci failed; run it yourself to see why.');
    process.exit(install.status ?? 1);
  }
}

let built;
try {
  built = await builtCommands(root);
} catch (error) {
  // esbuild has printed each error above, with its file, line and column.
  const errors = Array.isArray(error?.errors) ? error.errors.length : 0;
  console.error(
    errors > 0
      ? `The commands did not build: ${errors} error(s) in the sources, shown above.`
      : `The commands did not build: ${error instanceof Error ? error.message : error}`,
  );
  process.exit(1);
}

const child = spawn(
  process.execPath,
  // s3rver, the local S3, needs the legacy provider for paged listings on Node 17+; the source
  // maps make a stack trace name the TypeScript line.
  ['--enable-source-maps', '--openssl-legacy-provider', join(built, `${command}.mjs`), ...args],
  // From the repository, wherever the command was typed; the user's own relative paths are
  // resolved against INIT_CWD (set by npm run, and here otherwise).
  { cwd: root, stdio: 'inherit', env: { ...process.env, INIT_CWD: process.env.INIT_CWD ?? process.cwd() } },
);
// Ctrl-C reaches the whole foreground process group, so the child already has it; staying
// alive (instead of Node's default exit) keeps its exit code. SIGTERM is sent to us alone.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => process.exit(code ?? (signal === 'SIGINT' ? 130 : 1)));
