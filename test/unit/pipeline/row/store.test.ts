/**
 * The Store task, on the resolved path: a row run from Submit through Poll to Store and Complete.
 */
import { describe, expect, it } from 'vitest';
import { makeWorld, sandbox } from '../../../helpers/sandbox-world.js';
import { BATCH, dispatch, rowOf, runRowWorkflow, seedBatch, startRowSandbox } from './row-fixture.js';

startRowSandbox();

describe('resolved path', () => {
  it('stores the verdict PDF, the result and the cache entry, releases the lease and wakes the batch', async () => {
    const w = makeWorld();
    await seedBatch(w, [{ sku: 'CAF-1', current_ncm: '09012100' }]);

    const { report, steps } = await runRowWorkflow(w, await dispatch(w, 1));

    expect(steps[0]).toBe('Submit');
    expect(steps).toContain('Poll');
    expect(steps.slice(-2)).toEqual(['Store', 'Complete']);
    expect(report).toMatchObject({
      outcome: 'final',
      status: 'resolved',
      changed: true,
      batchComplete: true,
      woke: true,
    });
    const row = await rowOf(w);
    expect(row.status).toBe('resolved');
    expect(row.finished_at).toBeDefined();
    expect(row.result).toMatchObject({
      status: 'resolved',
      classification_id: row.classification_id,
      ncm: '0901.21.00',
      verdict_pdf: 'pdfs/00001-CAF-1.pdf',
      current_ncm_matches: 'yes',
      cost_usd: '2.00',
    });
    const pdf = w.objects.objects.get(`outbox/${BATCH}/pdfs/00001-CAF-1.pdf`);
    expect(pdf?.contentType).toBe('application/pdf');
    expect(new TextDecoder().decode(pdf?.bytes.slice(0, 5))).toBe('%PDF-');
    expect(w.cache.entries.get('sku:CAF-1')).toMatchObject({
      fingerprint: 'fp-1',
      classification_id: row.classification_id,
      pdf_key: `outbox/${BATCH}/pdfs/00001-CAF-1.pdf`,
      batch_id: BATCH,
      result: row.result,
    });
    // And under the fingerprint alone: any SKU of the same product reuses it next time.
    expect(w.cache.entries.get('h:fp-1')).toEqual({
      ...w.cache.entries.get('sku:CAF-1'),
      product_key: 'h:fp-1',
    });
    expect(w.leases.holders.size).toBe(0);
    // Poll frees the slot and kicks as the run leaves in_progress; Complete, freeing nothing, does not.
    expect(w.kick.reasons).toEqual(['slot_freed']);
    expect(w.wakes).toEqual([BATCH]);
    expect(sandbox.stats().billed_usd).toBe(2);
  });
});
