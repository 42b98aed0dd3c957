/**
 * End to end: the functions' calls are weighed against the roles the template gives them. With
 * one grant taken out of the synthesized template (row-store may no longer put objects in the
 * outbox), the step that needs it fails with AWS's AccessDenied, its row ends as an error row,
 * and every other row and the batch itself finish as usual: nothing is lost.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startLocalPipeline } from '../../local/runtime/pipeline.js';
import type { StackTemplate } from '../../local/runtime/template.js';
import {
  column,
  E2E_ASSEMBLY_DIR,
  E2E_TIME_SCALE,
  makeTempDir,
  readResults,
  sumOf,
  writeCsv,
} from './helpers.js';

const temp = makeTempDir('permissions');
afterAll(() => temp.remove());

type Statement = { Action: string | string[]; Effect: string };

/** Takes `action` out of every statement of the policies attached to `roleFragment`'s role. */
const withoutGrant = (roleFragment: string, action: string) => (stacks: StackTemplate[]) => {
  let removed = 0;
  for (const { template } of stacks) {
    for (const resource of Object.values(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::IAM::Policy') continue;
      const roles = JSON.stringify(resource.Properties?.Roles ?? []);
      if (!roles.includes(roleFragment)) continue;
      const document = resource.Properties?.PolicyDocument as { Statement: Statement[] };
      for (const statement of document.Statement) {
        const actions = [statement.Action].flat();
        if (!actions.includes(action)) continue;
        statement.Action = actions.filter((candidate) => candidate !== action);
        removed += 1;
      }
    }
  }
  if (removed === 0) throw new Error(`no statement of ${roleFragment} grants ${action}`);
};

describe('permission checks on the local runtime', () => {
  it('fails the step whose grant is missing with AccessDenied, and its row ends as an error row', async () => {
    // Prepare: row-store loses s3:PutObject (it stores the verdict PDFs in the outbox).
    const file = writeCsv(
      join(temp.dir, 'products.csv'),
      ['sku', 'description', 'operation', 'country'],
      [
        ['P-001', 'Café torrado em grãos', 'import', 'BR'],
        ['P-002', 'Peças diversas', 'import', 'BR'],
      ],
    );
    const denials: string[] = [];
    const pipeline = await startLocalPipeline({
      dataDir: join(temp.dir, 'data'),
      fresh: true,
      timeScale: E2E_TIME_SCALE,
      assemblyDir: E2E_ASSEMBLY_DIR,
      sandbox: { seed: 'e2e-permissions' },
      editTemplates: withoutGrant('FunctionsRowStoreRole', 's3:PutObject'),
      log: (line) => {
        if (line.startsWith('permission denied:')) denials.push(line);
      },
    });
    try {
      // Act
      const { batchId } = await pipeline.submit({ file, sheetsDir: temp.dir });
      const outcome = await pipeline.waitForBatch(batchId);

      // Assess: the resolved row could not be stored; the question still went to review.
      expect(outcome.state).toBe('completed');
      const byStatus = outcome.summary.by_status as Record<string, number>;
      expect(byStatus).toMatchObject({ error: 1, pending_data: 1 });
      expect(sumOf(byStatus)).toBe(2);
      expect(denials.length).toBeGreaterThan(0);
      expect(
        denials.every((line) =>
          /^permission denied: row-store s3:PutObject on arn:aws:s3:::.+\/outbox\//.test(line),
        ),
      ).toBe(true);
      const outDir = join(temp.dir, 'out');
      await pipeline.copyOutbox(batchId, outDir);
      const results = await readResults(join(outDir, 'results.csv'));
      const status = column(results, 'status');
      expect(results.rows.map((row) => row.fields.sku)).toEqual(['P-001', 'P-002']);
      const errorRow = results.rows.find((row) => row.cells[status] === 'error');
      expect(errorRow?.fields.sku).toBe('P-001');
      expect(errorRow?.cells.join(' ')).toMatch(/AccessDenied/);
    } finally {
      await pipeline.close();
    }
  });
});
