/**
 * Prepare on Brazil's files with lines that are not goods: a SPED item whose TIPO_ITEM is 09 and an
 * NF-e item whose NCM is 00 are services, never sent and never billed; a COD_NCM of 00000000 is no
 * NCM declared, not a code out of force.
 */
import { describe, expect, it } from 'vitest';
import type { RowRecord } from '../../../../shared/pipeline/core/records.js';
import { planTally } from '../../../../shared/pipeline/prepare/batch-plan.js';
import { parseCurrentNcm } from '../../../../shared/spreadsheet/normalise-row.js';
import { wordDetail } from '../../../../shared/wording/index.js';
import { cnpj, nfeXml } from '../../../helpers/nfe-xml.js';
import { prepareWorld } from '../../../helpers/prepare-world.js';
import { ACCEPTED_COUNTRIES, crlf, utf8 } from '../../spreadsheet/fixtures.js';

/** Brazil's files name no operation nor country: the batch's options give them, as batch.json does. */
const world = (key: string, bytes: Uint8Array) =>
  prepareWorld(
    key,
    { [key]: bytes, [key.replace(/[^/]+$/, 'batch.json')]: utf8('{"operation":"import","country":"BR"}') },
    ACCEPTED_COUNTRIES,
  );

/** A SPED EFD file of three 0200 items: goods, a service (09, COD_LST, no NCM), use and consumption (00000000). */
const SPED = crlf(
  '|0000|019|0|01102026|31102026|PAULISTA IMPORTADORA LTDA|12345678000195||SP|123456789012|3550308|||A|1|',
  '|0001|0|',
  '|0200|CAF-0101|CAFE TORRADO EM GRAOS 1KG|7896012345016||KG|00|09012100||||18,00||',
  '|0200|SRV-MANUT|SERVICO DE MANUTENCAO DE EMPILHADEIRA|||UN|09|||||14.01|0,00||',
  '|0200|MAT-LIMP|DETERGENTE NEUTRO PARA LIMPEZA 5 L|||UN|07|00000000||||18,00||',
  '|0990|5|',
  '|9999|7|',
);

const notSubmitted = (row: RowRecord) => ({
  status: row.status,
  reason: row.result?.reason,
  cost: row.result?.cost_usd,
});

describe('lines that are services, not goods', () => {
  it('a SPED item of TIPO_ITEM 09 is not sent, at no cost, its detail naming the field in each language', async () => {
    const w = world('inbox/sped/efd.txt', utf8(SPED));

    expect(await w.run()).toMatchObject({ next: 'wait' });

    const [goods, service] = w.rows();
    expect(goods!.status).toBe('queued');
    expect(notSubmitted(service!)).toEqual({ status: 'not_submitted', reason: 'service_item', cost: '0.00' });
    expect(wordDetail(service!.result!, 'en')).toBe(
      'Not submitted: a service, not goods (TIPO_ITEM 09 in the file); only goods have an NCM, so nothing was charged.',
    );
    expect(wordDetail(service!.result!, 'pt')).toContain(
      'é um serviço, não uma mercadoria (TIPO_ITEM 09 no arquivo)',
    );
    expect(wordDetail(service!.result!, 'es')).toContain(
      'es un servicio, no una mercadería (TIPO_ITEM 09 en el archivo)',
    );
    // Only the goods are queued: the service takes no place in the queue nor the budget.
    expect(w.batch()).toMatchObject({ rows_total: 3, rows_dispatched: 2 });
    expect(w.queue.sent.map((sent) => sent.message.row)).toEqual([1, 3]);

    const tally = planTally();
    tally.add(w.rows());
    expect(tally.counts()).toMatchObject({ total: 3, classify: 2, service_item: 1, over_budget: 0 });
  });

  it('a COD_NCM of 00000000 is no NCM declared: the item is classified and no warning calls it out of force', async () => {
    const w = world('inbox/sped/efd.txt', utf8(SPED));

    await w.run();

    const consumption = w.rows()[2]!;
    expect(consumption.status).toBe('queued');
    expect(consumption.product?.current_ncm).toBeNull();
    expect(JSON.stringify(w.batch().warnings ?? [])).not.toContain('declared_ncm_not_in_force');
    expect(parseCurrentNcm('0000.00.00')).toEqual({ current_ncm: null, flags: [] });
  });

  it('an NF-e item whose NCM is 00 is not sent, naming the NCM field', async () => {
    const xml = nfeXml({
      cUF: '35',
      dhEmi: '2026-10-05T10:15:00-03:00',
      nNF: 1521,
      cNF: '10000153',
      natOp: 'COMPRA E SERVICO',
      tpNF: '0',
      emit: { cnpj: cnpj('987654320001'), xNome: 'FORNECEDOR PAULISTA LTDA' },
      dest: {
        cnpj: cnpj('123456780001'),
        xNome: 'PAULISTA IMPORTADORA LTDA',
        cPais: '1058',
        xPais: 'BRASIL',
      },
      items: [
        {
          cProd: 'ROL-6204',
          xProd: 'ROLAMENTO DE ESFERAS 6204-2RS',
          NCM: '84821010',
          CFOP: '1102',
          uCom: 'UN',
          qCom: '100',
          vUnCom: '12.9',
        },
        {
          cProd: 'SRV-INST',
          xProd: 'SERVICO DE INSTALACAO DE BOMBA',
          NCM: '00',
          CFOP: '1933',
          uCom: 'UN',
          qCom: '1',
          vUnCom: '350',
        },
      ],
    });
    const w = world('inbox/notas/nfe.xml', utf8(xml));

    await w.run();

    const [goods, service] = w.rows();
    expect(goods!.status).toBe('queued');
    expect(notSubmitted(service!)).toEqual({ status: 'not_submitted', reason: 'service_item', cost: '0.00' });
    expect(service!.result?.detail).toContain('(NCM 00 in the file)');
  });
});
