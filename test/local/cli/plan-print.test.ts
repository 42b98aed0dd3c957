/**
 * `classify --plan` on a catalogue of 20,000 columns: the plan Prepare writes, printed as the
 * command prints it, names a few of the columns passed through rather than all of them, and says
 * that the workbooks hold only what a worksheet does.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { printPlan } from '../../../local/cli/plan.js';
import { WORKBOOK_INPUT_COLUMNS } from '../../../shared/pipeline/outbox/results-sheet-xml.js';
import { BatchPlan } from '../../../shared/pipeline/prepare/batch-plan.js';
import { batchSourceFromEvent } from '../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../shared/pipeline/prepare/prepare-batch.js';
import { memoryPipelinePorts } from '../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../helpers/s3-events.js';
import { ACCEPTED_COUNTRIES } from '../../unit/spreadsheet/fixtures.js';

const FILE_KEY = 'inbox/largo/produtos.csv';
const COLUMNS = 20_000;

const planOfWideFile = async (): Promise<BatchPlan> => {
  const header = [
    'SKU',
    'Descrição',
    'País',
    ...Array.from({ length: COLUMNS - 3 }, (_, i) => `Atributo ${i + 4}`),
  ];
  const row = ['SKU-1', 'Rolamento de esferas de aço, diâmetro 22 mm', 'BR', ...Array(COLUMNS - 3).fill('x')];
  const ports = memoryPipelinePorts(
    {
      [FILE_KEY]: [header.join(';'), row.join(';')].join('\r\n'),
      'inbox/largo/batch.json': '{"plan_only": true, "operation": "import"}',
    },
    ACCEPTED_COUNTRIES,
  );
  const event = objectCreatedEvent('catalogue-bucket', FILE_KEY);
  await prepareBatch(ports, { event, execution_id: 'exec-1' });
  const batchId = batchSourceFromEvent(event)!.batchId;
  return BatchPlan.parse(JSON.parse(ports.objects.text(`outbox/${batchId}/plan.json`)!));
};

afterEach(() => {
  vi.restoreAllMocks();
});

describe('the plan of a catalogue wider than a worksheet', () => {
  it('lists every column in plan.json, and prints a few names and what the workbooks keep', async () => {
    const plan = await planOfWideFile();
    expect(plan.columns).toHaveLength(COLUMNS);
    const printed: string[] = [];
    vi.spyOn(console, 'log').mockImplementation((text: string) => {
      printed.push(text);
    });

    printPlan(plan, 'produtos.csv', 'out/largo');

    const lines = printed.join('\n').split('\n');
    const untouched = lines.find((line) => line.startsWith('Passed through untouched: '));
    expect(untouched).toBe(
      `Passed through untouched: ${Array.from({ length: 12 }, (_, i) => `"Atributo ${i + 4}"`).join(', ')} ` +
        'and 19,985 more.',
    );
    expect(lines).toContain(
      `The file has 20,000 columns: the workbooks hold its first ${WORKBOOK_INPUT_COLUMNS.toLocaleString('en-US')} ` +
        'beside the results and say so; results.csv keeps them all.',
    );
  });
});
