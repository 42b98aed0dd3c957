/**
 * What a row's `detail` says (results.xlsx, the console), in each language, for every outcome but
 * a rejection (rejections.ts): the notes beside a verdict, the questions waiting, why the service
 * could not classify, why the row was not sent or did not finish, where a row's outcome came from
 * (an earlier verdict, a row of the same product, another batch). results.csv keeps the English.
 * A detail is a list of these messages (`wordDetail`, index.ts).
 */

import type { Language } from '../spreadsheet/header-language.js';
import type { Operation } from '../tcs/schemas.js';
import { count, type Phrase, plural } from './phrasing.js';

/** Without parameters: the same sentence whatever the row. */
const fixed = (pt: string, es: string, en: string): Phrase<Record<string, never>> => ({
  pt: () => pt,
  es: () => es,
  en: () => en,
});

/** An operation in a sentence. */
const OPERATION_WORDS: Record<Language, Record<Operation, string>> = {
  pt: { import: 'importação', export: 'exportação' },
  es: { import: 'importación', export: 'exportación' },
  en: { import: 'import', export: 'export' },
};

/**
 * Why the service could not classify, in plain words: the spec names the reasons and not their
 * meaning, so these say what each name says. A reason it adds later is shown as it names it.
 */
const FAILURE_WORDS: Record<Language, Record<string, string>> = {
  pt: {
    unexpected_format: 'o produto chegou num formato que o serviço não esperava',
    no_valid_candidates: 'nenhuma NCM candidata serviu',
    timed_out: 'a classificação passou do tempo',
    service_unavailable: 'o serviço estava indisponível',
    unreadable_pdf: 'a ficha técnica em PDF não pôde ser lida',
    persist_failed: 'o serviço não conseguiu gravar o resultado',
  },
  es: {
    unexpected_format: 'el producto llegó en un formato que el servicio no esperaba',
    no_valid_candidates: 'ninguna NCM candidata sirvió',
    timed_out: 'la clasificación superó el tiempo',
    service_unavailable: 'el servicio no estaba disponible',
    unreadable_pdf: 'la ficha técnica en PDF no se pudo leer',
    persist_failed: 'el servicio no pudo guardar el resultado',
  },
  en: {
    unexpected_format: 'the product came in a format the service did not expect',
    no_valid_candidates: 'no candidate NCM fitted',
    timed_out: 'the classification ran out of time',
    service_unavailable: 'the service was unavailable',
    unreadable_pdf: 'the PDF technical sheet could not be read',
    persist_failed: 'the service could not save the result',
  },
};

const NO_REASON: Record<Language, string> = {
  pt: 'sem motivo informado',
  es: 'sin motivo informado',
  en: 'no reason given',
};

/** Takes a failed classification's reason (the service's name for it) and gives it in plain words in `language`. */
export const failureReasonWords = (reason: string | undefined, language: Language): string =>
  reason === undefined ? NO_REASON[language] : (FAILURE_WORDS[language][reason] ?? `"${reason}"`);

/** Remarks beside a verdict: what is still open about it. */
type VerdictNotes = {
  /** The SIM openings to choose among, dotted. */
  sim_options?: string[];
  /** The SIM openings are not yet confirmed by the official registry. */
  sim_verifying?: boolean;
  /** The official registry confirmed there is no SIM opening under the NCM. */
  sim_none?: boolean;
  /** Why the tariffs were not found, as the service says it. */
  tariffs_reason?: string;
  no_text_layer?: boolean;
};

const verdictNotes =
  (language: Language) =>
  (p: VerdictNotes): string => {
    const words = {
      pt: {
        choose: 'abertura SIM a escolher entre',
        verifying: 'aberturas SIM ainda não confirmadas pelo registro oficial',
        none: 'o registro oficial confirmou que não há abertura SIM para este NCM',
        tariffs: 'tarifas não encontradas',
        scan: 'a ficha técnica não tem camada de texto',
      },
      es: {
        choose: 'apertura SIM a elegir entre',
        verifying: 'aperturas SIM aún no confirmadas por el registro oficial',
        none: 'el registro oficial confirmó que no hay apertura SIM para este NCM',
        tariffs: 'aranceles no encontrados',
        scan: 'la ficha técnica no tiene capa de texto',
      },
      en: {
        choose: 'SIM opening to be chosen among',
        verifying: 'SIM openings not yet confirmed by the official registry',
        none: 'the official registry confirmed there is no SIM opening under this NCM',
        tariffs: 'tariffs not found',
        scan: 'the technical sheet has no text layer',
      },
    }[language];
    return [
      ...(p.sim_options ? [`${words.choose} ${p.sim_options.join(', ')}`] : []),
      ...(p.sim_verifying ? [words.verifying] : []),
      ...(p.sim_none ? [words.none] : []),
      ...(p.tariffs_reason !== undefined ? [`${words.tariffs} (${p.tariffs_reason})`] : []),
      ...(p.no_text_layer ? [words.scan] : []),
    ].join('; ');
  };

export const ROW_DETAIL_PHRASES = {
  verdict_notes: {
    pt: verdictNotes('pt'),
    es: verdictNotes('es'),
    en: verdictNotes('en'),
  } satisfies Phrase<VerdictNotes>,
  verdict_pdf_missing: {
    pt: (p) => `o PDF do parecer não foi baixado: ${p.text}`,
    es: (p) => `el PDF del dictamen no se descargó: ${p.text}`,
    en: (p) => `verdict PDF not downloaded: ${p.text}`,
  } satisfies Phrase<{ text: string }>,
  awaiting_answers: {
    pt: (p) =>
      `aguardando respostas a ${count('pt', p.questions)} ${plural(p.questions, 'pergunta', 'perguntas')} ` +
      '(veja review.csv)' +
      (p.provisional ? `; proposta provisória ${p.provisional}, não é um parecer` : ''),
    es: (p) =>
      `esperando respuestas a ${count('es', p.questions)} ${plural(p.questions, 'pregunta', 'preguntas')} ` +
      '(ver review.csv)' +
      (p.provisional ? `; propuesta provisoria ${p.provisional}, no es un dictamen` : ''),
    en: (p) =>
      `awaiting answers to ${p.questions} question${p.questions === 1 ? '' : 's'} (see review.csv)` +
      (p.provisional ? `; provisional proposal ${p.provisional}, not a verdict` : ''),
  } satisfies Phrase<{ questions: number; provisional?: string }>,
  failed: {
    pt: (p) =>
      `o serviço não conseguiu classificar o produto: ${failureReasonWords(p.reason, 'pt')}; sem cobrança`,
    es: (p) => `el servicio no pudo clasificar el producto: ${failureReasonWords(p.reason, 'es')}; sin cargo`,
    en: (p) =>
      `the service could not classify the product: ${failureReasonWords(p.reason, 'en')}; not billed`,
  } satisfies Phrase<{ reason?: string }>,
  abandoned: fixed(
    'as perguntas não foram respondidas em 30 dias; sem cobrança',
    'las preguntas no se respondieron en 30 días; sin cargo',
    'the questions were not answered within 30 days; not billed',
  ),
  /** The pipeline could not finish the row: `text` is the error as kept (scrubbed), in English. */
  row_error: {
    pt: (p) => `não foi possível concluir a linha: ${p.text}`,
    es: (p) => `no se pudo completar la fila: ${p.text}`,
    en: (p) => p.text,
  } satisfies Phrase<{ text: string }>,
  row_no_outcome: fixed(
    'o fluxo da linha terminou sem um resultado',
    'el flujo de la fila terminó sin un resultado',
    'row workflow ended without an outcome',
  ),
  row_no_product: fixed(
    'a linha não tem produto para classificar',
    'la fila no tiene un producto para clasificar',
    'the row has no product to classify',
  ),
  row_timed_out: fixed(
    'a linha não terminou antes de o lote esgotar o tempo',
    'la fila no terminó antes de que se agotara el tiempo del lote',
    'the row did not finish before the batch timed out',
  ),
  row_prepare_failed: fixed(
    'o lote falhou antes de a linha ser processada',
    'el lote falló antes de que se procesara la fila',
    'the batch failed before the row could be processed',
  ),
  row_unfinished: fixed(
    'a linha não tinha terminado quando o lote foi finalizado',
    'la fila no había terminado cuando se finalizó el lote',
    'the row had not finished when the batch was finalized',
  ),
  row_wait_stopped: {
    pt: (p) => `o lote parou de esperar pelas suas linhas (${p.error}) antes de a linha terminar`,
    es: (p) => `el lote dejó de esperar sus filas (${p.error}) antes de que la fila terminara`,
    en: (p) => `the batch stopped waiting for its rows (${p.error}) before the row finished`,
  } satisfies Phrase<{ error: string }>,
  answered_row_timed_out: fixed(
    'a linha respondida não terminou antes de a rodada de respostas esgotar o tempo; o serviço ainda pode ' +
      'processar as respostas (veja app_url)',
    'la fila respondida no terminó antes de que se agotara el tiempo de la ronda de respuestas; el servicio ' +
      'todavía puede procesar las respuestas (ver app_url)',
    'the answered row did not finish before the answers round timed out; its answers may still be processed ' +
      'by the service (see app_url)',
  ),
  answered_row_failed: fixed(
    'a rodada de respostas falhou antes de a linha respondida terminar',
    'la ronda de respuestas falló antes de que terminara la fila respondida',
    'the answers round failed before the answered row finished',
  ),
  answered_row_unfinished: fixed(
    'a linha respondida não tinha terminado quando a rodada de respostas foi finalizada',
    'la fila respondida no había terminado cuando se finalizó la ronda de respuestas',
    'the answered row had not finished when the answers round was finalized',
  ),
  answered_row_wait_stopped: {
    pt: (p) => `a rodada de respostas parou de esperar (${p.error}) antes de a linha respondida terminar`,
    es: (p) =>
      `la ronda de respuestas dejó de esperar (${p.error}) antes de que terminara la fila respondida`,
    en: (p) => `the answers round stopped waiting (${p.error}) before the answered row finished`,
  } satisfies Phrase<{ error: string }>,
  /** Not sent: a batch-level stop (`reason`, the service's problem) with its detail as the service said it. */
  not_submitted: {
    pt: (p) => `não enviada (${p.reason}): ${p.text}`,
    es: (p) => `no enviada (${p.reason}): ${p.text}`,
    en: (p) => p.text,
  } satisfies Phrase<{ reason: string; text: string }>,
  options_invalid_row: {
    pt: () => 'Nenhuma linha foi enviada: o batch.json do lote não é válido (veja os problemas do lote).',
    es: () => 'No se envió ninguna fila: el batch.json del lote no es válido (ver los problemas del lote).',
    en: (p) => `No row was submitted: ${p.text}`,
  } satisfies Phrase<{ text: string }>,
  over_budget: {
    pt: (p) =>
      `O orçamento do lote (max_usd ${p.max_usd} no batch.json) cobre ${count('pt', p.covered)} ` +
      `${plural(p.covered, 'classificação', 'classificações')} a USD ${p.price.replace('.', ',')}; esta linha veio depois delas e não foi enviada.`,
    es: (p) =>
      `El presupuesto del lote (max_usd ${p.max_usd} en batch.json) cubre ${count('es', p.covered)} ` +
      `${plural(p.covered, 'clasificación', 'clasificaciones')} a USD ${p.price.replace('.', ',')}; esta fila vino después y no se envió.`,
    en: (p) =>
      `The batch budget (max_usd ${p.max_usd} in batch.json) covers ${p.covered} ` +
      `classification(s) at USD ${p.price}; this row came after them and was not submitted.`,
  } satisfies Phrase<{ max_usd: number; covered: number; price: string }>,
  /**
   * Not sent: the line is a service, not goods, as the file's own field says (`field` and its
   * `value`: a SPED item's TIPO_ITEM 09, an NF-e item's NCM 00). Only goods have an NCM.
   */
  service_item: {
    pt: (p) =>
      `Não enviada: é um serviço, não uma mercadoria (${p.field} ${p.value} no arquivo); só mercadorias têm NCM, ` +
      'então nada foi cobrado.',
    es: (p) =>
      `No enviada: es un servicio, no una mercadería (${p.field} ${p.value} en el archivo); solo las mercaderías ` +
      'tienen NCM, así que no se cobró nada.',
    en: (p) =>
      `Not submitted: a service, not goods (${p.field} ${p.value} in the file); only goods have an NCM, so ` +
      'nothing was charged.',
  } satisfies Phrase<{ field: string; value: string }>,
  /** `reclassify: ended_codes` classifies only products whose earlier verdict's code ended. */
  no_earlier_verdict: fixed(
    'Não enviada: o lote reclassifica só os produtos cujo NCM de uma classificação anterior deixou de vigorar (reclassify: ended_codes no batch.json), e este produto, como está agora, não tem classificação anterior. Use reclassify: changed para classificá-lo.',
    'No enviada: el lote reclasifica solo los productos cuyo NCM de una clasificación anterior dejó de estar vigente (reclassify: ended_codes en batch.json), y este producto, tal como está ahora, no tiene clasificación anterior. Use reclassify: changed para clasificarlo.',
    'Not submitted: the batch re-classifies only products whose earlier verdict has an NCM no longer in force (reclassify: ended_codes in batch.json), and this product, as it is now, has no earlier verdict to re-check. Run it with reclassify: changed to classify it.',
  ),
  answers_not_sent: {
    pt: (p) =>
      `respostas não enviadas${p.why ? ` (${p.why})` : ''}; ainda aguardando respostas (veja review.csv)`,
    es: (p) =>
      `respuestas no enviadas${p.why ? ` (${p.why})` : ''}; todavía esperando respuestas (ver review.csv)`,
    en: (p) => `answers not sent${p.why ? ` (${p.why})` : ''}; still awaiting answers (see review.csv)`,
  } satisfies Phrase<{ why?: string }>,
  queued: fixed(
    'Esperando um espaço livre no limite do serviço.',
    'Esperando un cupo libre del servicio.',
    'Waiting for a free slot of the cap.',
  ),
  submitting: fixed('Sendo enviada ao serviço.', 'Enviándose al servicio.', 'Being sent to the service.'),
  in_progress: fixed(
    'Sendo classificada pelo serviço.',
    'El servicio la está clasificando.',
    'Being classified by the service.',
  ),
  following: fixed(
    'Esperando a linha do mesmo produto com que compartilha a classificação.',
    'Esperando la fila del mismo producto con la que comparte la clasificación.',
    'Waiting for the row of the same product it shares a classification with.',
  ),
  /** A row of the same product as an earlier one (`leader`), sharing its classification. */
  same_product: {
    pt: (p) => {
      const shared = `Mesmo produto da linha ${p.leader} (mesma descrição e ficha técnica)`;
      if (p.leader_status === 'resolved')
        return `${shared}: classificado uma vez, lá; sem cobrança nesta linha.`;
      if (p.leader_status === 'pending_data') {
        return `${shared}: responda as perguntas uma vez, na linha ${p.leader} do review.csv; esta linha retoma junto.`;
      }
      return `${shared}: esta linha tem o mesmo resultado.`;
    },
    es: (p) => {
      const shared = `Mismo producto que la fila ${p.leader} (misma descripción y ficha técnica)`;
      if (p.leader_status === 'resolved')
        return `${shared}: clasificado una vez, allí; sin cargo por esta fila.`;
      if (p.leader_status === 'pending_data') {
        return `${shared}: responde las preguntas una vez, en la fila ${p.leader} de review.csv; esta fila se retoma con ella.`;
      }
      return `${shared}: esta fila comparte su resultado.`;
    },
    en: (p) => {
      const shared = `Same product as row ${p.leader} (same description and technical sheet)`;
      if (p.leader_status === 'resolved') return `${shared}: classified once, there; no charge for this row.`;
      if (p.leader_status === 'pending_data') {
        return `${shared}: answer the questions once, on row ${p.leader} of review.csv; this row resumes with it.`;
      }
      return `${shared}: this row shares its outcome.`;
    },
  } satisfies Phrase<{ leader: number; leader_status: string }>,
  /**
   * A row that takes a verdict made for another origin (country or operation): the NCM is the
   * product's, the tariffs (and, for another operation, the SIM openings) are looked up for the row's own.
   */
  other_origin: {
    pt: (p) =>
      `Parecer da classificação ${p.classification_id}, feita para ${OPERATION_WORDS.pt[p.operation]} ` +
      `(${p.country}): o NCM é do produto, seja qual for a origem; ` +
      (p.looked_up
        ? `tarifas consultadas para ${OPERATION_WORDS.pt[p.own_operation]} (${p.own_country})`
        : `tarifas de ${OPERATION_WORDS.pt[p.own_operation]} (${p.own_country}) ainda não consultadas`),
    es: (p) =>
      `Dictamen de la clasificación ${p.classification_id}, hecha para ${OPERATION_WORDS.es[p.operation]} ` +
      `(${p.country}): el NCM es del producto, sea cual sea el origen; ` +
      (p.looked_up
        ? `aranceles consultados para ${OPERATION_WORDS.es[p.own_operation]} (${p.own_country})`
        : `aranceles de ${OPERATION_WORDS.es[p.own_operation]} (${p.own_country}) aún no consultados`),
    en: (p) =>
      `Verdict of classification ${p.classification_id}, made for ${OPERATION_WORDS.en[p.operation]} ` +
      `(${p.country}): the NCM is the product's, whatever its origin; ` +
      (p.looked_up
        ? `tariffs looked up for ${OPERATION_WORDS.en[p.own_operation]} (${p.own_country})`
        : `tariffs for ${OPERATION_WORDS.en[p.own_operation]} (${p.own_country}) not looked up yet`),
  } satisfies Phrase<{
    classification_id: string;
    country: string;
    operation: Operation;
    own_country: string;
    own_operation: Operation;
    looked_up: boolean;
  }>,
  reused: {
    pt: (p) =>
      `Sem mudanças desde o parecer de ${p.date} (lote ${p.batch}); reaproveitado sem nova classificação.`,
    es: (p) =>
      `Sin cambios desde el dictamen del ${p.date} (lote ${p.batch}); reutilizado sin una nueva clasificación.`,
    en: (p) =>
      `Unchanged since the verdict of ${p.date} (batch ${p.batch}); reused without a new classification.`,
  } satisfies Phrase<{ date: string; batch: string }>,
  earlier_pdf_gone: fixed(
    'O PDF do parecer do lote anterior não está mais guardado.',
    'El PDF del dictamen del lote anterior ya no está guardado.',
    'The verdict PDF of the earlier batch is no longer stored.',
  ),
  settled_with: {
    pt: (p) =>
      `Resolvida com a classificação ${p.classification_id} do lote ${p.batch}, linha ${p.row}, que esta linha ` +
      `aguardava${p.pdf ? ` (PDF do parecer: ${p.pdf})` : ''}; cobrada uma vez lá, sem cobrança aqui`,
    es: (p) =>
      `Resuelta con la clasificación ${p.classification_id} del lote ${p.batch}, fila ${p.row}, que esta fila ` +
      `esperaba${p.pdf ? ` (PDF del dictamen: ${p.pdf})` : ''}; facturada una vez allí, sin cargo aquí`,
    en: (p) =>
      `Settled with classification ${p.classification_id} of batch ${p.batch}, row ${p.row}, that this row ` +
      `waited on${p.pdf ? ` (verdict PDF: ${p.pdf})` : ''}; billed there once, no charge here`,
  } satisfies Phrase<{ classification_id: string; batch: string; row: number; pdf?: string }>,
  resolved_elsewhere: fixed(
    'respondida fora deste lote (por exemplo, no app web) e resolvida lá; o PDF do parecer não foi guardado ' +
      'com este lote: abra-o pelo app_url',
    'respondida fuera de este lote (por ejemplo, en la app web) y resuelta allí; el PDF del dictamen no se ' +
      'guardó con este lote: ábrelo desde app_url',
    'answered outside this batch (e.g. in the web app) and resolved there; the verdict PDF was not stored ' +
      'with this batch: open it from app_url',
  ),
  billed_elsewhere: fixed(
    'cobrada uma vez, não neste lote',
    'facturada una vez, no en este lote',
    'billed once, not in this batch',
  ),
  joined: {
    pt: (p) =>
      `Aguarda as respostas da classificação ${p.classification_id}, perguntadas pela linha ${p.row} do lote ` +
      `${p.batch} (mesmo produto, sem mudanças): não é classificada de novo, sem cobrança. Responda as perguntas ` +
      'uma vez, aqui ou naquele lote, e todas as linhas que aguardam retomam.',
    es: (p) =>
      `Espera las respuestas de la clasificación ${p.classification_id}, preguntadas por la fila ${p.row} del lote ` +
      `${p.batch} (mismo producto, sin cambios): no se clasifica de nuevo, sin cargo. Responde las preguntas ` +
      'una vez, aquí o en ese lote, y todas las filas que esperan se retoman.',
    en: (p) =>
      `Waits on the answers of classification ${p.classification_id}, asked by row ${p.row} of ` +
      `batch ${p.batch} (same product, unchanged): not classified again, no charge. Answer its ` +
      'questions once, here or in that batch, and every row waiting on it resumes.',
  } satisfies Phrase<{ classification_id: string; row: number; batch: string }>,
};
