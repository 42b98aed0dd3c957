/**
 * Contract: `dataDir` persistence — a later sandbox on the same directory finds earlier
 * classifications, idempotency records, uploaded sheets, meter and clock offset, and keeps
 * running what was in flight.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { STATE_FILE } from '../../../local/sandbox/persistence.js';
import { startSandbox } from '../../../local/sandbox/sandbox.js';
import { admin, api, creation, newKey, PAST_ANY_RUN_SECONDS, request } from '../helpers/http.js';
import { textPdf } from '../helpers/pdf.js';

const dirs: string[] = [];
const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'tcs-sandbox-'));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe('dataDir', () => {
  it('a restarted sandbox finds classifications, keys, sheets, the meter and the clock', async () => {
    const dataDir = tempDir();
    const first = await startSandbox({ log: 'silent', dataDir, seed: 'persist' });
    const key = newKey('persist');
    const resolved = await api(first).post('/classifications', creation(), { idempotencyKey: key });
    const pending = await api(first).post(
      '/classifications',
      creation({ description: 'Peças diversas [sandbox:ask]' }),
      {
        idempotencyKey: newKey(),
      },
    );
    const bytes = await textPdf(['Café torrado em grão']);
    const grant = await api(first).post('/uploads', {
      content_type: 'application/pdf',
      byte_size: bytes.byteLength,
      filename: 'sheet.pdf',
    });
    expect(
      (
        await request('', 'PUT', grant.body.upload_url, {
          raw: bytes,
          headers: { 'Content-Type': 'application/pdf' },
        })
      ).status,
    ).toBe(200);
    await admin(first).advance(PAST_ANY_RUN_SECONDS);
    const running = await api(first).post('/classifications', creation({ file_url: grant.body.file_url }), {
      idempotencyKey: newKey(),
    });
    const before = (await api(first).get(`/classifications/${resolved.body.id}`)).body;
    const clockBefore = first.now().getTime();
    await first.close();

    const second = await startSandbox({ log: 'silent', dataDir, seed: 'persist' });
    try {
      expect(second.keys).toEqual(first.keys);
      expect(second.now().getTime()).toBeGreaterThanOrEqual(clockBefore);
      const after = (await api(second).get(`/classifications/${resolved.body.id}`)).body;
      expect({ ...after, pdf_url: null }).toEqual({ ...before, pdf_url: null });
      expect((await api(second).get(`/classifications/${pending.body.id}`)).body.status).toBe('pending_data');
      const replay = await api(second).post('/classifications', creation(), { idempotencyKey: key });
      expect(replay.headers.get('idempotent-replayed')).toBe('true');
      expect(replay.body.id).toBe(resolved.body.id);
      expect(second.stats()).toMatchObject({ created: 3, billed_count: 1, in_progress_now: 1 });

      // What was in flight keeps running, and its sheet came along.
      const inFlight = (await api(second).get(`/classifications/${running.body.id}`)).body;
      expect(inFlight.has_file).toBe(true);
      expect(inFlight.file_has_text_layer).toBe(true);
      await admin(second).advance(PAST_ANY_RUN_SECONDS);
      expect((await api(second).get(`/classifications/${running.body.id}`)).body.status).toBe('resolved');
      expect(second.stats().billed_count).toBe(2);
      // A file_url granted before the restart still works.
      const reuse = await api(second).post('/classifications', creation({ file_url: grant.body.file_url }), {
        idempotencyKey: newKey(),
      });
      expect(reuse.status).toBe(202);
      // New ids do not collide with the old ones.
      expect([resolved.body.id, pending.body.id, running.body.id]).not.toContain(reuse.body.id);
    } finally {
      await second.close();
    }
  });

  it('a state file of another kind is refused, not overwritten', async () => {
    const dataDir = tempDir();
    writeFileSync(join(dataDir, STATE_FILE), JSON.stringify({ hello: 'world' }));
    await expect(startSandbox({ log: 'silent', dataDir })).rejects.toThrow(/sandbox state/);
  });
});
