/**
 * Contract: starting the sandbox — the CLI prints exactly one JSON line (base_url,
 * admin_url, the nine keys) on stdout, validates its flags, and stops cleanly on SIGTERM;
 * the programmatic start gives the same line; the server listens on loopback only.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { connect } from 'node:net';
import { networkInterfaces } from 'node:os';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../../local/sandbox/sandbox.js';
import { expectProblem, request } from '../helpers/http.js';

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const KEY_NAMES = [
  'classify',
  'read',
  'other_org_classify',
  'revoked',
  'plan_without_api',
  'api_suspended',
  'subscription_inactive',
  'organization_archived',
  'terms_acceptance_required',
];

type Run = { child: ChildProcess; stdout: () => string; stderr: () => string; exit: Promise<number | null> };

const runCli = (args: string[]): Run => {
  const child = spawn(process.execPath, ['--import', 'tsx', 'local/sandbox/cli.ts', ...args], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
  });
  child.stderr!.on('data', (chunk: Buffer) => {
    err += chunk.toString();
  });
  const exit = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, stdout: () => out, stderr: () => err, exit };
};

/** Resolves with the first stdout line, or rejects if the process exits first. */
const firstLine = (run: Run): Promise<string> =>
  new Promise((resolve, reject) => {
    const check = () => {
      const newline = run.stdout().indexOf('\n');
      if (newline >= 0) resolve(run.stdout().slice(0, newline));
    };
    run.child.stdout!.on('data', check);
    run.exit.then((code) => reject(new Error(`exited ${code} before ready: ${run.stderr()}`)));
  });

describe('npm run sandbox (local/sandbox/cli.ts)', () => {
  it('prints one JSON line with base_url, admin_url and the nine keys, serves them, and exits 0 on SIGTERM', async () => {
    const run = runCli(['--port', '0', '--time-scale', '0.01', '--seed', 'cli-test']);
    try {
      const line = JSON.parse(await firstLine(run));
      expect(Object.keys(line).sort()).toEqual(['admin_url', 'base_url', 'keys']);
      expect(line.base_url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      expect(line.admin_url).toBe(line.base_url.replace(/\/v1$/, '/__admin'));
      expect(Object.keys(line.keys).sort()).toEqual([...KEY_NAMES].sort());
      expect(new Set(Object.values(line.keys)).size).toBe(9);

      const ok = await request(line.base_url, 'GET', '/countries', { key: line.keys.classify });
      expect(ok.status).toBe(200);
      expectProblem(
        await request(line.base_url, 'GET', '/balance', { key: line.keys.revoked }),
        'unauthenticated',
        401,
      );
      expectProblem(
        await request(line.base_url, 'GET', '/balance', { key: line.keys.api_suspended }),
        'api-suspended',
        403,
      );
      expect((await fetch(`${line.admin_url}/stats`)).status).toBe(200);

      // The same seed gives the same keys as the programmatic start.
      const twin = await startSandbox({ log: 'silent', seed: 'cli-test' });
      expect(twin.keys).toEqual(line.keys);
      expect(JSON.parse(twin.readyLine).keys).toEqual(line.keys);
      await twin.close();

      run.child.kill('SIGTERM');
      expect(await run.exit).toBe(0);
      expect(run.stdout().trimEnd().split('\n')).toHaveLength(1);
      // Logs went to stderr.
      expect(run.stderr()).toContain('GET');
    } finally {
      if (run.child.exitCode === null) run.child.kill('SIGKILL');
    }
  });

  it.each([
    [['--time-scale', 'fast'], /time-scale/],
    [['--time-scale', '0'], /timeScale/],
    [['--port', '70000'], /port/],
    [['--faults', 'http5xx=2'], /http5xx/],
    [['--bogus'], /bogus/],
  ])('refuses %j with exit code 2 and a message on stderr', async (args, message) => {
    const run = runCli(args);
    expect(await run.exit).toBe(2);
    expect(run.stderr()).toMatch(message);
    expect(run.stdout()).toBe('');
  });
});

describe('startSandbox', () => {
  it('gives the ready line and listens on loopback only', async () => {
    const sb = await startSandbox({ log: 'silent' });
    try {
      expect(JSON.parse(sb.readyLine)).toEqual({
        base_url: sb.baseUrl,
        admin_url: sb.adminUrl,
        keys: sb.keys,
      });
      expect(sb.baseUrl).toBe(`http://127.0.0.1:${sb.port}/v1`);
      const external = Object.values(networkInterfaces())
        .flat()
        .filter((a) => a && a.family === 'IPv4' && !a.internal)
        .map((a) => a!.address);
      for (const address of external) {
        const refused = await new Promise<boolean>((resolve) => {
          const socket = connect({ host: address, port: sb.port });
          socket.once('connect', () => {
            socket.destroy();
            resolve(false);
          });
          socket.once('error', () => resolve(true));
        });
        expect(refused, `reachable on ${address}`).toBe(true);
      }
    } finally {
      await sb.close();
    }
  });

  it('refuses options that cannot work', async () => {
    await expect(startSandbox({ log: 'silent', timeScale: -1 })).rejects.toThrow(/timeScale/);
    await expect(startSandbox({ log: 'silent', concurrencyLimit: 0 })).rejects.toThrow(/concurrencyLimit/);
  });
});
