/**
 * Declared NCMs and verdicts checked against the NCM table in force: a declared code not in force
 * is said in the plan's and the summary's warnings (with the table's date and act) and flagged on
 * its row, which is still classified; a verdict not in force is flagged on its row; a newer table
 * dropped into reference/ncm/ is the one checked against, and a file there that is no table is said.
 */
import Papa from 'papaparse';
import { describe, expect, it } from 'vitest';
import { carriedNcmTable } from '../../../../shared/ncm-table/carried-table.js';
import { REFERENCE_NCM_PREFIX } from '../../../../shared/ncm-table/reference-table.js';
import type { RowResult } from '../../../../shared/pipeline/core/result-columns.js';
import { awaitRows } from '../../../../shared/pipeline/finalize/await-rows.js';
import { finalizeBatch } from '../../../../shared/pipeline/finalize/finalize-batch.js';
import { BatchSummary } from '../../../../shared/pipeline/outbox/results-files.js';
import { batchSourceFromEvent } from '../../../../shared/pipeline/prepare/batch-source.js';
import { prepareBatch } from '../../../../shared/pipeline/prepare/prepare-batch.js';
import { memoryPipelinePorts, outboxFile } from '../../../helpers/memory-ports.js';
import { objectCreatedEvent } from '../../../helpers/s3-events.js';
import { siscomexEntry, siscomexTable } from '../../../helpers/siscomex-table.js';
import { ACCEPTED_COUNTRIES } from '../../spreadsheet/fixtures.js';

const FILE_KEY = 'inbox/tabela/produtos.csv';
const TOKEN = 'AQCEAAAAKgAAAAMAAAAAAAAAAf1Zsecret-task-token-value==';

/**
 * Row 1 declares a code in force; row 2 one Gecex 321/2022 split (1513.21.10, ended); row 3 the same
 * ended code; row 4 declares nothing; row 5 a 7-digit code whose zero was lost (0901.21.00).
 */
const INPUT = [
  'SKU;Descrição;País;Operação;NCM atual',
  'A-1;Rolamento de esferas de aço, diâmetro 22 mm;BR;importação;8482.10.10',
  'A-2;Óleo de palmiste em bruto, tambor de 200 litros;BR;importação;1513.21.10',
  'A-3;Óleo de palmiste em bruto, tambor de 50 litros;BR;importação;15132110',
  'A-4;Café torrado em grãos, pacote de 1 kg;BR;importação;',
  'A-5;Café torrado em grãos, pacote de 500 g;BR;importação;9012100',
].join('\r\n');

const verdict = (ncm: string): RowResult => ({
  status: 'resolved',
  classification_id: `cls_${ncm.replace(/\D/g, '')}AAAA`,
  ncm,
  cost_usd: '2.00',
});

/** The verdicts the rows get: row 3's is a code no longer in force (1513.21.10). */
const VERDICTS: Record<number, RowResult> = {
  1: verdict('8482.10.10'),
  2: verdict('1513.21.11'),
  3: verdict('1513.21.10'),
  4: verdict('0901.21.00'),
  5: verdict('0901.21.00'),
};

const runBatch = async (reference: Record<string, string | Uint8Array> = {}) => {
  const ports = memoryPipelinePorts({ [FILE_KEY]: INPUT, ...reference }, ACCEPTED_COUNTRIES);
  const event = objectCreatedEvent('catalogue-bucket', FILE_KEY);
  const batchId = batchSourceFromEvent(event)!.batchId;
  const prepared = await prepareBatch(ports, { event, execution_id: 'exec-1' });
  await awaitRows(ports, { batch_id: batchId, task_token: TOKEN });
  for (const [row, result] of Object.entries(VERDICTS)) {
    ports.batches.placeRow(batchId, Number(row), { status: 'resolved', result });
    await ports.batches.markRowDone(batchId, Number(row), {
      status: 'resolved',
      billed_cents: 200,
      at: ports.clock.now().toISOString(),
    });
  }
  ports.clock.advance(60_000);
  await finalizeBatch(ports, { ...event, prepare: prepared });
  const bytes = outboxFile(ports.objects, batchId);
  const summary = BatchSummary.parse(JSON.parse(Buffer.from(bytes('summary.json')).toString('utf8')));
  const results = Papa.parse<Record<string, string>>(
    Buffer.from(bytes('results.csv'))
      .toString('utf8')
      .replace(/^\uFEFF/, ''),
    {
      header: true,
      skipEmptyLines: true,
    },
  ).data;
  return { summary, results };
};

describe('the NCM table in force', () => {
  it('is the carried table, where 1513.21.10 ended and its two successors are in force', () => {
    const table = carriedNcmTable();
    expect(table.inForce('1513.21.10')).toBe(false);
    expect(table.codesUnder('1513.21.1').map((entry) => entry.dotted)).toEqual(['1513.21.11', '1513.21.19']);
  });

  it('says the declared codes not in force before paying, and flags them on their rows, which are classified', async () => {
    const { summary, results } = await runBatch();
    const warning = summary.warnings.find((w) => w.code === 'declared_ncm_not_in_force');
    expect(warning?.params).toMatchObject({
      header: 'NCM atual',
      codes: ['1513.21.10'],
      rows: [2, 3],
      total: 2,
      as_of: '2026-07-05',
      act: 'Resolução Gecex nº 812/2025',
    });
    // The summary is worded in the file's language (Portuguese), naming the table.
    expect(warning?.text).toContain(
      'a NCM declarada 1513.21.10 não está na tabela NCM vigente (de 05/07/2026',
    );
    expect(results.map((row) => [row.SKU, row.status, row.current_ncm_in_force, row.ncm_in_force])).toEqual([
      ['A-1', 'resolved', 'yes', 'yes'],
      ['A-2', 'resolved', 'no', 'yes'],
      ['A-3', 'resolved', 'no', 'no'],
      ['A-4', 'resolved', '', 'yes'],
      ['A-5', 'resolved', 'yes', 'yes'],
    ]);
    expect(summary.ncm_table).toEqual({
      as_of: '2026-07-05',
      act: 'Resolução Gecex nº 812/2025',
      source: 'carried',
    });
    expect(summary.declared_ncm_not_in_force).toBe(2);
    expect(summary.ncm_not_in_force).toBe(1);
  });

  it('checks against a newer table dropped into reference/ncm/, and says one that is no table', async () => {
    const carried = carriedNcmTable();
    // A newer publication in which 8482.10.10 ended: built from entries as Siscomex writes them.
    const newer = siscomexTable(
      '01/01/2027',
      'Resolução Gecex nº 999/2026',
      ['0901.21.00', '1513.21.11', '1513.21.19'].map((code) =>
        siscomexEntry(code, carried.entry(code)!.description),
      ),
    );
    const { summary, results } = await runBatch({
      [`${REFERENCE_NCM_PREFIX}Tabela_NCM_Vigente_20270101.json`]: JSON.stringify(newer),
    });
    expect(summary.ncm_table).toMatchObject({
      as_of: '2027-01-01',
      source: 'reference/ncm/Tabela_NCM_Vigente_20270101.json',
    });
    expect(results[0]).toMatchObject({ SKU: 'A-1', current_ncm_in_force: 'no', ncm_in_force: 'no' });

    const refused = await runBatch({ [`${REFERENCE_NCM_PREFIX}tabela.json`]: '{"not": "a table"}' });
    expect(refused.summary.ncm_table?.source).toBe('carried');
    expect(refused.summary.warnings.find((w) => w.code === 'ncm_table_not_taken')?.text).toContain(
      'reference/ncm/tabela.json não foi usado como tabela NCM: é JSON, mas não a tabela como o Siscomex a publica',
    );
  });
});
