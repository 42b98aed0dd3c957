/**
 * What an answers round says of each line of the file it read (pipeline/answers/plan-answers.ts,
 * take-resumed-rows.ts, resend-rows.ts): answers-report.csv's `detail`, in the batch's language
 * when it chose one (batch.json's `language`), else in English; its `outcome` column keeps the code
 * for machines. Each sentence names the row (or the file's line when the row is not known), what
 * happened and, when nothing was sent, why and what to do.
 */

import { STATUS_WORDS } from '../pipeline/core/row-statuses.js';
import type { Language } from '../spreadsheet/header-language.js';
import { count, list, type Phrase, plural, quoted, quotedList } from './phrasing.js';
import { reasonName } from './reason-names.js';

/** Where a line of the file is: its batch row, else its line in the file. */
type At = { row: number | null; line: number };

const where = (language: Language, p: At): string => {
  if (p.row !== null) return { pt: `Linha ${p.row}`, es: `Fila ${p.row}`, en: `Row ${p.row}` }[language];
  return { pt: `Linha ${p.line} do arquivo`, es: `Línea ${p.line} del archivo`, en: `Line ${p.line}` }[
    language
  ];
};

/**
 * One answer cell that matches no question of the row, or contradicts an earlier one: `empty_id`
 * (answer_N filled, its question id empty), `not_asked` (a question id the row is not asked),
 * `twice` (a question answered twice, differently).
 */
export type CellProblem =
  | { kind: 'empty_id'; n: number }
  | { kind: 'not_asked'; n: number; id: string }
  | { kind: 'twice'; id: string; first: number; second: number };

/** The answers of a row that cannot go as they are, as flat parameters (a message's are). */
type AnswerProblems = At & {
  /** Each cell problem's kind, its N (or first N), its question id and its second N, in order. */
  cell_kinds: string[];
  cell_ns: number[];
  cell_ids: string[];
  cell_seconds: number[];
  /** The question ids the classification asks. */
  known: string[];
  missing: string[];
  long_ids: string[];
  long_lengths: number[];
  max: number;
};

/** A row's cell problems as the message's flat parameters. */
export const cellProblemParams = (problems: readonly CellProblem[]) => ({
  cell_kinds: problems.map((problem) => problem.kind),
  cell_ns: problems.map((problem) => (problem.kind === 'twice' ? problem.first : problem.n)),
  cell_ids: problems.map((problem) => (problem.kind === 'empty_id' ? '' : problem.id)),
  cell_seconds: problems.map((problem) => (problem.kind === 'twice' ? problem.second : 0)),
});

const cellProblem = (language: Language, p: AnswerProblems, index: number): string => {
  const n = p.cell_ns[index] ?? 0;
  const id = p.cell_ids[index] ?? '';
  const second = p.cell_seconds[index] ?? 0;
  switch (p.cell_kinds[index]) {
    case 'empty_id':
      return {
        pt: `answer_${n} está preenchida, mas question_${n}_id está vazia`,
        es: `answer_${n} está completa, pero question_${n}_id está vacía`,
        en: `answer_${n} is filled but question_${n}_id is empty`,
      }[language];
    case 'twice':
      return {
        pt: `a pergunta "${id}" aparece duas vezes (answer_${n} e answer_${second}) com respostas diferentes`,
        es: `la pregunta "${id}" aparece dos veces (answer_${n} y answer_${second}) con respuestas distintas`,
        en: `question "${id}" appears twice (answer_${n} and answer_${second}) with different answers`,
      }[language];
    default:
      return {
        pt: `a pergunta "${id}" (question_${n}_id) não é uma das suas`,
        es: `la pregunta "${id}" (question_${n}_id) no es una de las suyas`,
        en: `question "${id}" (question_${n}_id) is not one of its questions`,
      }[language];
  }
};

const problemSentences = (language: Language, p: AnswerProblems): string[] => {
  const sentences: string[] = [];
  if (p.cell_kinds.length > 0) {
    const cells = p.cell_kinds.map((_, index) => cellProblem(language, p, index)).join('; ');
    const asks = quotedList(language, p.known);
    sentences.push(
      {
        pt: `${cells} (esta classificação pergunta ${asks}); confira se a linha não foi colada de outro arquivo nem mudou de coluna.`,
        es: `${cells} (esta clasificación pregunta ${asks}); revise que la fila no se haya pegado de otro archivo ni cambiado de columna.`,
        en: `${cells} (this classification asks ${asks}); check that the row was not pasted from another file or moved between columns.`,
      }[language],
    );
  }
  if (p.missing.length > 0) {
    const ids = quotedList(language, p.missing);
    const many = p.missing.length > 1;
    sentences.push(
      {
        pt: `${many ? `as perguntas ${ids} não têm resposta` : `a pergunta ${ids} não tem resposta`}; o classificador aceita uma rodada de respostas, então toda pergunta precisa de uma.`,
        es: `${many ? `las preguntas ${ids} no tienen respuesta` : `la pregunta ${ids} no tiene respuesta`}; el clasificador acepta una ronda de respuestas, así que cada pregunta necesita una.`,
        en: `${many ? `questions ${ids} have` : `question ${ids} has`} no answer; the classifier takes one round of answers, so every question needs one.`,
      }[language],
    );
  }
  if (p.long_ids.length > 0) {
    const said = p.long_ids
      .map((id, index) => {
        const length = p.long_lengths[index] ?? 0;
        return {
          pt: `a resposta a "${id}" tem ${count('pt', length)} caracteres`,
          es: `la respuesta a "${id}" tiene ${count('es', length)} caracteres`,
          en: `the answer to "${id}" has ${length} characters`,
        }[language];
      })
      .join('; ');
    sentences.push(
      {
        pt: `${said}; o serviço aceita no máximo ${count('pt', p.max)} por resposta.`,
        es: `${said}; el servicio acepta como máximo ${count('es', p.max)} por respuesta.`,
        en: `${said}; the service accepts at most ${p.max} per answer.`,
      }[language],
    );
  }
  return sentences;
};

/** A status (the row's or the service's) in words; English keeps the code, quoted, as it always said it. */
const statusWord = (language: Language, status: string): string =>
  language === 'en'
    ? `"${status}"`
    : ((STATUS_WORDS[language] as Readonly<Record<string, string>>)[status]?.toLocaleLowerCase(language) ??
      `"${status}"`);

/** What a person changed on a row sent again (`operation export`, `sheet x.pdf`, `description changed`), in words. */
const changedWords = (language: Language, changed: string): string => {
  const [field = '', ...rest] = changed.split(' ');
  const value = rest.join(' ');
  if (language === 'en') return changed;
  const words = {
    description: { pt: 'descrição corrigida', es: 'descripción corregida' },
    operation: {
      pt: `operação: ${value === 'export' ? 'exportação' : 'importação'}`,
      es: `operación: ${value === 'export' ? 'exportación' : 'importación'}`,
    },
    country: { pt: `país: ${value}`, es: `país: ${value}` },
    sheet: { pt: `nova ficha ${value}`, es: `nueva ficha ${value}` },
  } as const;
  return field in words ? words[field as keyof typeof words][language] : changed;
};

export const ANSWERS_REPORT_PHRASES = {
  answers_resumed_row: {
    pt: (p) =>
      `${where('pt', p)}: ${p.ids.length === 1 ? 'pergunta' : 'todas as perguntas'} ${quotedList('pt', p.ids)} ` +
      `${p.ids.length === 1 ? 'respondida' : 'respondidas'}${p.sheet ? `, com a ficha "${p.sheet}"` : ''}; a classificação continua com essas respostas.`,
    es: (p) =>
      `${where('es', p)}: ${p.ids.length === 1 ? 'pregunta' : 'todas las preguntas'} ${quotedList('es', p.ids)} ` +
      `${p.ids.length === 1 ? 'respondida' : 'respondidas'}${p.sheet ? `, con la ficha "${p.sheet}"` : ''}; la clasificación sigue con esas respuestas.`,
    en: (p) =>
      `${where('en', p)}: ${plural(p.ids.length, 'question', 'all questions')} ${quotedList('en', p.ids)} ` +
      `answered${p.sheet ? `, with the sheet "${p.sheet}"` : ''}; the classification resumes with these answers.`,
  } satisfies Phrase<At & { ids: string[]; sheet: string }>,
  answers_none: {
    pt: (p) =>
      `${where('pt', p)}: sem respostas; a linha continua à espera e pode ser respondida depois${p.abandons_at ? `, antes de ${p.abandons_at}, quando o serviço a abandona` : ''}.` +
      `${p.sheet ? ` A ficha "${p.sheet}" só é enviada junto com as respostas.` : ''}`,
    es: (p) =>
      `${where('es', p)}: sin respuestas; la fila sigue en espera y puede responderse después${p.abandons_at ? `, antes del ${p.abandons_at}, cuando el servicio la abandona` : ''}.` +
      `${p.sheet ? ` La ficha "${p.sheet}" solo se envía junto con las respuestas.` : ''}`,
    en: (p) =>
      `${where('en', p)}: no answers; the row stays pending and can be answered later${p.abandons_at ? ` before ${p.abandons_at}, when the service abandons it` : ''}.` +
      `${p.sheet ? ` The sheet "${p.sheet}" is sent only together with answers.` : ''}`,
  } satisfies Phrase<At & { abandons_at: string; sheet: string }>,
  answers_id_empty: {
    pt: (p) =>
      `${where('pt', p)}: a célula classification_id está vazia, então as respostas não têm a que classificação se referir.`,
    es: (p) =>
      `${where('es', p)}: la celda classification_id está vacía, así que las respuestas no se pueden asociar a una clasificación.`,
    en: (p) =>
      `${where('en', p)}: the classification_id cell is empty, so the answers cannot be matched to a classification.`,
  } satisfies Phrase<At>,
  answers_not_of_batch: {
    pt: (p) =>
      `${where('pt', p)}: ${p.id} não é uma classificação à espera de revisão neste lote; a linha foi copiada do review.csv de outro lote?`,
    es: (p) =>
      `${where('es', p)}: ${p.id} no es una clasificación en espera de revisión en este lote; ¿la fila se copió del review.csv de otro lote?`,
    en: (p) =>
      `${where('en', p)}: ${p.id} is not a classification waiting for review in this batch; was the row copied from another batch's review.csv?`,
  } satisfies Phrase<At & { id: string }>,
  answers_not_an_id: {
    pt: (p) =>
      `${where('pt', p)}: ${quoted(p.id)} não é um identificador de classificação (eles têm a forma cls_7KQ2M9XW4RTB); a célula foi editada?`,
    es: (p) =>
      `${where('es', p)}: ${quoted(p.id)} no es un identificador de clasificación (tienen la forma cls_7KQ2M9XW4RTB); ¿se editó la celda?`,
    en: (p) =>
      `${where('en', p)}: ${quoted(p.id)} is not a classification id (they look like cls_7KQ2M9XW4RTB); was the cell edited?`,
  } satisfies Phrase<At & { id: string }>,
  answers_unknown_to_service: {
    pt: (p) => `${where('pt', p)}: o serviço não conhece a classificação ${p.id}; nada foi enviado.`,
    es: (p) => `${where('es', p)}: el servicio no conoce la clasificación ${p.id}; no se envió nada.`,
    en: (p) => `${where('en', p)}: the service does not know classification ${p.id}; nothing was sent.`,
  } satisfies Phrase<At & { id: string }>,
  answers_sent_before: {
    pt: (p) =>
      `${where('pt', p)}: essas respostas já foram enviadas${p.when ? ` em ${p.when}` : ''}; não são enviadas duas vezes.`,
    es: (p) =>
      `${where('es', p)}: esas respuestas ya se enviaron${p.when ? ` el ${p.when}` : ''}; no se envían dos veces.`,
    en: (p) =>
      `${where('en', p)}: these answers were already sent${p.when ? ` on ${p.when}` : ''}; they are not sent twice.`,
  } satisfies Phrase<At & { when: string }>,
  answers_other_running: {
    pt: (p) =>
      `${where('pt', p)}: outras respostas já foram enviadas${p.when ? ` em ${p.when}` : ''} e essa rodada ainda está em andamento (${statusWord('pt', p.status)}); o serviço aceita uma rodada de respostas, então estas não foram enviadas.`,
    es: (p) =>
      `${where('es', p)}: otras respuestas ya se enviaron${p.when ? ` el ${p.when}` : ''} y esa ronda sigue en curso (${statusWord('es', p.status)}); el servicio acepta una ronda de respuestas, así que estas no se enviaron.`,
    en: (p) =>
      `${where('en', p)}: different answers were already sent${p.when ? ` on ${p.when}` : ''} and that round is still running (status ` +
      `"${p.status}"); the service takes one round of answers, so these were not sent.`,
  } satisfies Phrase<At & { when: string; status: string }>,
  answers_abandoned: {
    pt: (p) =>
      `${where('pt', p)}: o serviço abandonou esta classificação porque as perguntas ficaram sem resposta por ${p.days} dias (prazo ${p.deadline}); ela não pode mais ser respondida e não foi cobrada. Envie o produto de novo num novo lote para classificá-lo.`,
    es: (p) =>
      `${where('es', p)}: el servicio abandonó esta clasificación porque sus preguntas quedaron sin respuesta durante ${p.days} días (plazo ${p.deadline}); ya no puede responderse y no se cobró. Envíe el producto de nuevo en un nuevo lote para clasificarlo.`,
    en: (p) =>
      `${where('en', p)}: the service abandoned this classification because its questions went unanswered for ` +
      `${p.days} days (deadline ${p.deadline}); it can no longer be ` +
      'answered and was not billed. Submit the product again in a new batch to classify it.',
  } satisfies Phrase<At & { days: number; deadline: string }>,
  answers_running_again: {
    pt: (p) =>
      `${where('pt', p)}: a classificação já está em andamento de novo no serviço (em andamento), então provavelmente foi respondida em outro lugar (o aplicativo web); nada foi enviado.`,
    es: (p) =>
      `${where('es', p)}: la clasificación ya está en curso de nuevo en el servicio (en curso), así que probablemente se respondió en otro lugar (la aplicación web); no se envió nada.`,
    en: (p) =>
      `${where('en', p)}: the classification is already running again at the service (status "in_progress"), ` +
      'so it was probably answered elsewhere (the web app); nothing was sent.',
  } satisfies Phrase<At>,
  answers_no_longer_pending: {
    pt: (p) =>
      `${where('pt', p)}: a classificação está ${statusWord('pt', p.status)} no serviço, não espera mais respostas; nada foi enviado.`,
    es: (p) =>
      `${where('es', p)}: la clasificación está ${statusWord('es', p.status)} en el servicio, ya no espera respuestas; no se envió nada.`,
    en: (p) =>
      `${where('en', p)}: the classification is "${p.status}" at the service, no longer waiting for answers; nothing was sent.`,
  } satisfies Phrase<At & { status: string }>,
  answers_problems: {
    pt: (p) =>
      `${where('pt', p)}: ${problemSentences('pt', p).join(' ')} Nada foi enviado; corrija e envie o arquivo de novo.`,
    es: (p) =>
      `${where('es', p)}: ${problemSentences('es', p).join(' ')} No se envió nada; corríjalo y envíe el archivo de nuevo.`,
    en: (p) =>
      `${where('en', p)}: ${problemSentences('en', p).join(' ')} Nothing was sent; fix it and send the file again.`,
  } satisfies Phrase<AnswerProblems>,
  answers_duplicate: {
    pt: (p) =>
      `${where('pt', p)}: ${p.id} aparece de novo neste arquivo (primeiro na linha ${p.first_line}); só essa primeira linha vale.`,
    es: (p) =>
      `${where('es', p)}: ${p.id} aparece de nuevo en este archivo (primero en la línea ${p.first_line}); solo vale esa primera fila.`,
    en: (p) =>
      `${where('en', p)}: ${p.id} appears again in this file (first on line ${p.first_line}); only that first row is used.`,
  } satisfies Phrase<At & { id: string; first_line: number }>,
  answers_sheet_missing: {
    pt: (p) =>
      `${where('pt', p)}: a ficha "${p.sheet}": ${reasonName(p.reason, 'pt')}. O serviço aceita uma ficha só junto com as respostas, então nada foi enviado e a linha continua à espera; ponha o PDF em ${p.folder} (ou esvazie a célula da ficha) e envie o arquivo de novo.`,
    es: (p) =>
      `${where('es', p)}: la ficha "${p.sheet}": ${reasonName(p.reason, 'es')}. El servicio acepta una ficha solo junto con las respuestas, así que no se envió nada y la fila sigue en espera; ponga el PDF en ${p.folder} (o vacíe la celda de la ficha) y envíe el archivo de nuevo.`,
    en: (p) =>
      `${where('en', p)}: the sheet "${p.sheet}" ${p.why} (${p.reason}). The service takes a sheet only ` +
      `together with the answers, so nothing was sent and the row stays pending; put the PDF in ${p.folder} ` +
      '(or empty the sheet cell) and send the file again.',
  } satisfies Phrase<At & { sheet: string; why: string; reason: string; folder: string }>,
  answers_row_moved_on: {
    pt: (p) =>
      `${where('pt', p)}: ${p.why === 'no_row' ? 'o lote não tem essa linha' : p.why === 'other_classification' ? `a linha agora tem outra classificação (${p.now || 'nenhuma'})` : `a linha está ${statusWord('pt', p.status)}, não espera mais respostas${p.other_round ? ' (outra rodada de respostas a tem)' : ''}`}; nada foi enviado.`,
    es: (p) =>
      `${where('es', p)}: ${p.why === 'no_row' ? 'el lote no tiene esa fila' : p.why === 'other_classification' ? `la fila ahora tiene otra clasificación (${p.now || 'ninguna'})` : `la fila está ${statusWord('es', p.status)}, ya no espera respuestas${p.other_round ? ' (otra ronda de respuestas la tiene)' : ''}`}; no se envió nada.`,
    en: (p) =>
      `${where('en', p)}: ${p.why === 'no_row' ? 'the batch has no such row' : p.why === 'other_classification' ? `the row now holds another classification (${p.now || 'none'})` : `the row is "${p.status}", no longer pending_data${p.other_round ? ' (another answers round has it)' : ''}`}; nothing was sent.`,
  } satisfies Phrase<
    At & {
      why: 'no_row' | 'other_classification' | 'not_pending';
      now: string;
      status: string;
      other_round: boolean;
    }
  >,
  resend_sent: {
    pt: (p) =>
      `${where('pt', p)} reenviada${
        p.changed.length > 0
          ? ` (${list(
              'pt',
              p.changed.map((c) => changedWords('pt', c)),
            )})`
          : ''
      }: uma nova classificação, cobrada só se resolver.`,
    es: (p) =>
      `${where('es', p)} reenviada${
        p.changed.length > 0
          ? ` (${list(
              'es',
              p.changed.map((c) => changedWords('es', c)),
            )})`
          : ''
      }: una nueva clasificación, cobrada solo si se resuelve.`,
    en: (p) =>
      `${where('en', p)} sent again${p.changed.length > 0 ? ` (${p.changed.join(', ')})` : ''}: a new classification, billed only if it resolves.`,
  } satisfies Phrase<At & { changed: string[] }>,
  resend_no_row_number: {
    pt: (p) => `Linha ${p.line} do arquivo: resend_row não tem um número de linha; nada foi enviado.`,
    es: (p) => `Línea ${p.line} del archivo: resend_row no tiene un número de fila; no se envió nada.`,
    en: (p) => `Line ${p.line}: resend_row holds no row number; nothing was sent.`,
  } satisfies Phrase<At>,
  resend_twice: {
    pt: (p) => `${where('pt', p)} aparece duas vezes; vale a primeira linha.`,
    es: (p) => `${where('es', p)} aparece dos veces; vale la primera línea.`,
    en: (p) => `${where('en', p)} is named twice; the first line was read.`,
  } satisfies Phrase<At>,
  resend_no_such_row: {
    pt: (p) => `${where('pt', p)}: o lote não tem essa linha; nada foi enviado.`,
    es: (p) => `${where('es', p)}: el lote no tiene esa fila; no se envió nada.`,
    en: (p) => `${where('en', p)}: the batch has no such row; nothing was sent.`,
  } satisfies Phrase<At>,
  resend_follower: {
    pt: (p) =>
      `${where('pt', p)} é o mesmo produto da linha ${p.leader} e mostra o resultado dela; reenvie a linha ${p.leader}.`,
    es: (p) =>
      `${where('es', p)} es el mismo producto que la fila ${p.leader} y muestra su resultado; reenvíe la fila ${p.leader}.`,
    en: (p) =>
      `${where('en', p)} is the same product as row ${p.leader} and shows its outcome; send row ${p.leader} again instead.`,
  } satisfies Phrase<At & { leader: number }>,
  resend_not_ended_so: {
    pt: (p) =>
      `${where('pt', p)} está ${statusWord('pt', p.status)}: só uma linha rejeitada ou com falha é reenviada; nada foi enviado.`,
    es: (p) =>
      `${where('es', p)} está ${statusWord('es', p.status)}: solo una fila rechazada o fallida se reenvía; no se envió nada.`,
    en: (p) =>
      `${where('en', p)} is "${p.status}": only a rejected or failed row is sent again; nothing was sent.`,
  } satisfies Phrase<At & { status: string }>,
  resend_moved_meanwhile: {
    pt: (p) => `${where('pt', p)} mudou enquanto era reenviada; nada foi enviado.`,
    es: (p) => `${where('es', p)} cambió mientras se reenviaba; no se envió nada.`,
    en: (p) => `${where('en', p)} changed while it was being sent again; nothing was sent.`,
  } satisfies Phrase<At>,
  resend_still_rejected: {
    pt: (p) => `${where('pt', p)} ainda não pode ser enviada; nada foi enviado:`,
    es: (p) => `${where('es', p)} todavía no se puede enviar; no se envió nada:`,
    en: (p) => `${where('en', p)} still cannot be sent; nothing was sent:`,
  } satisfies Phrase<At>,
};
