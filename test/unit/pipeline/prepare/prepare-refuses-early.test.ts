/**
 * Prepare refuses a file that cannot be taken before it plans a single row: it reads the file
 * through once, only counting its rows, so a file with more rows than a batch takes, or one the
 * reader refuses further on, fails in the seconds a read takes and not after minutes of planning
 * (each chunk's cache lookups). The reader's sentence reaches the batch whole.
 */
import { strToU8, zipSync } from 'fflate';
import { describe, expect, it } from 'vitest';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import {
  PREPARE_SETTINGS,
  type PrepareSettings,
} from '../../../../shared/pipeline/prepare/prepare-passes.js';
import {
  countingKick,
  fixedClock,
  memoryBatchStore,
  memoryObjectStore,
  memoryProductCache,
  memoryRowQueue,
  preparingService,
} from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { ACCEPTED_COUNTRIES, xlsx } from '../../spreadsheet/fixtures.js';

const BUCKET = 'catalogue-bucket';

const prepare = async (key: string, bytes: Uint8Array, settings: PrepareSettings) => {
  const clock = fixedClock('2026-11-21T12:00:00.000Z');
  const { service, countryCalls } = preparingService(ACCEPTED_COUNTRIES);
  const cache = memoryProductCache();
  let cacheReads = 0;
  const getMany = cache.getMany;
  cache.getMany = async (keys) => {
    cacheReads += 1;
    return getMany(keys);
  };
  const batches = memoryBatchStore();
  const ports = {
    clock,
    service,
    objects: memoryObjectStore({ [key]: bytes }),
    queue: memoryRowQueue(clock),
    batches,
    cache,
    kick: countingKick(),
  };
  const event = objectCreatedEvent(BUCKET, key);
  await prepareBatch(ports, { event, execution_id: 'exec-1' }, settings);
  const batch = batches.batches.get(batchSourceFromEvent(event)!.batchId)!;
  return { batch, countryCalls: countryCalls(), cacheReads, sent: ports.queue.sent };
};

const products = (count: number) => [
  ['Descrição', 'País', 'Operação'],
  ...Array.from({ length: count }, (_, i) => [`Motor elétrico trifásico ${i + 1} CV`, 'BR', 'import']),
];

describe('Prepare refuses a file it cannot take before planning any row', () => {
  it('refuses a workbook with more rows than the limit without planning one of them', async () => {
    const settings = { ...PREPARE_SETTINGS, rowsPerChunk: 50, maxRows: 1_000 };

    const run = await prepare('inbox/grande/catalogo.xlsx', await xlsx(products(1_200)), settings);

    expect(run.batch).toMatchObject({ state: 'failed', rows_total: 0 });
    expect(run.batch.stop).toMatchObject({
      type: 'too_many_rows',
      detail:
        'catalogo.xlsx, line 1002: has more than 1,000 data rows, the most one batch takes; split it into ' +
        'files of at most 1,000 rows and upload each',
    });
    // Not one chunk was planned: no cache lookup, not even the service's countries.
    expect(run.cacheReads).toBe(0);
    expect(run.countryCalls).toBe(0);
    expect(run.sent).toEqual([]);
  });

  it('records the reader’s own sentence for a workbook declaring an XML entity, not a generic one', async () => {
    const ns = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main';
    const rel = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
    const bytes = zipSync({
      'xl/workbook.xml': strToU8(
        `<workbook xmlns="${ns}" xmlns:r="${rel}"><sheets><sheet name="P" sheetId="1" r:id="rId1"/></sheets></workbook>`,
      ),
      'xl/_rels/workbook.xml.rels': strToU8(
        '<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships">' +
          `<Relationship Id="rId1" Type="${rel}/worksheet" Target="worksheets/sheet1.xml"/></Relationships>`,
      ),
      'xl/worksheets/sheet1.xml': strToU8(
        `<!DOCTYPE x [<!ENTITY e "Motor">]><worksheet xmlns="${ns}"><sheetData>` +
          '<row r="1"><c r="A1" t="inlineStr"><is><t>Descrição</t></is></c></row>' +
          '<row r="2"><c r="A2" t="inlineStr"><is><t>&e; elétrico</t></is></c></row></sheetData></worksheet>',
      ),
    });

    const run = await prepare('inbox/entidade/catalogo.xlsx', bytes, PREPARE_SETTINGS);

    expect(run.batch).toMatchObject({ state: 'failed', rows_total: 0 });
    expect(run.batch.stop).toMatchObject({
      type: 'xlsx_entity_declared',
      detail:
        'catalogo.xlsx: the part xl/worksheets/sheet1.xml declares an XML entity (<!DOCTYPE …>), which a ' +
        'workbook saved by Excel or LibreOffice never holds; it is refused so no entity is ever expanded or fetched',
    });
    expect(run.cacheReads).toBe(0);
  });
});
