/**
 * The verdict PDF of a resolved classification, a real document a PDF reader opens: the
 * chosen NCM in dotted form, the description, the rationale, the candidates, the SIM
 * opening and the tariffs, stamped as a simulated verdict. Built with pdfkit's standard
 * Helvetica, so no font file is needed; its dates come from the record, so the same
 * classification always gives the same text.
 */
import PDFDocument from 'pdfkit';
import type { Candidate, TariffLookup } from '../../../shared/tcs/schemas.js';
import type { ClassificationRecord } from '../core/records.js';

const SANDBOX_STAMP = 'SANDBOX — simulated verdict';

/** `09012100` → `0901.21.00`. */
const dottedNcm = (ncm: string): string => `${ncm.slice(0, 4)}.${ncm.slice(4, 6)}.${ncm.slice(6, 8)}`;

/** `0901210010` → `0901.21.00.10`. */
const dottedSim = (code: string): string => `${dottedNcm(code.slice(0, 8))}.${code.slice(8)}`;

/**
 * The standard PDF fonts cover Latin-1 (plus a few typographic signs): enough for
 * Portuguese and Spanish. Anything else is shown as "?" rather than as a wrong glyph.
 */
const printable = (text: string): string => text.replace(/[^\n\t\x20-\x7e\xa0-\xff—–‘’“”•…€]/gu, '?');

const clip = (text: string, max: number): string => (text.length > max ? `${text.slice(0, max - 1)}…` : text);

const tariffLines = (tariffs: TariffLookup | null): string[] => {
  if (!tariffs) return ['Not queried.'];
  if (!tariffs.found) return [`No tariff data (${tariffs.reason}).`, `Source: ${tariffs.source}`];
  if (tariffs.operation === 'export') {
    return [
      `Export duty: ${tariffs.export_duty} %`,
      `Export refund: ${tariffs.export_refund} %`,
      `Source: ${tariffs.source}`,
    ];
  }
  if (tariffs.operation === 'import') {
    return [
      `Import duty applicable: ${tariffs.import_duty_applicable} % (${tariffs.duty_kind})`,
      `Intra-zone: ${tariffs.import_duty_intrazone} %   Extra-zone: ${tariffs.import_duty_extrazone} %`,
      `Statistical rate: ${tariffs.statistical_rate} %   AEC: ${tariffs.aec === null ? '—' : `${tariffs.aec} %`}`,
      `Source: ${tariffs.source}`,
    ];
  }
  return [];
};

export const renderVerdictPdf = (record: ClassificationRecord): Promise<Buffer> => {
  const chosen: Candidate | undefined =
    record.candidates.find((c) => c.ncm === record.chosenNcm) ?? record.candidates[0];
  const ncm = record.chosenNcm ?? chosen?.ncm ?? '00000000';
  const resolvedAt = new Date(record.resolvedAt ?? record.createdAt);

  const doc = new PDFDocument({
    size: 'A4',
    margin: 56,
    info: {
      Title: `Verdict ${record.id} — NCM ${dottedNcm(ncm)}`,
      Author: 'Tariff Classification Service sandbox',
      Subject: SANDBOX_STAMP,
      CreationDate: resolvedAt,
      ModDate: resolvedAt,
    },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });

  const heading = (text: string) => {
    doc.moveDown(0.6).font('Helvetica-Bold').fontSize(11).fillColor('#1a1a1a').text(printable(text));
    doc.font('Helvetica').fontSize(10).fillColor('#222222');
  };
  const line = (text: string) => doc.text(printable(text));

  doc.font('Helvetica-Bold').fontSize(9).fillColor('#b00020').text(SANDBOX_STAMP, { align: 'right' });
  doc.moveDown(0.5).fontSize(18).fillColor('#000000').text('Tariff classification verdict');
  doc.font('Helvetica').fontSize(10).fillColor('#444444');
  line(`Classification ${record.id}`);
  line(`Resolved ${resolvedAt.toISOString()}   ·   ${record.operation} · country ${record.country}`);
  if (record.externalReference) line(`Reference: ${record.externalReference}`);

  doc
    .moveDown(0.8)
    .font('Helvetica-Bold')
    .fontSize(22)
    .fillColor('#000000')
    .text(`NCM ${dottedNcm(ncm)}`);
  doc.font('Helvetica').fontSize(11).fillColor('#222222');
  if (chosen) line(chosen.description);
  if (record.title) line(`Product: ${record.title}`);
  line(`SIM opening: ${record.chosenSimCode ? dottedSim(record.chosenSimCode) : 'none chosen'}`);

  heading('Description sent');
  line(record.description ? clip(record.description, 1500) : '(none — technical sheet only)');
  if (record.sheet)
    line(`Technical sheet attached${record.sheet.text.trim() === '' ? ' (no text layer)' : ''}.`);

  if (chosen) {
    heading('Rationale');
    line(chosen.rationale);
    if (chosen.applied_rules.length > 0)
      line(`General Interpretation Rules applied: ${chosen.applied_rules.join(', ')}`);
    for (const note of chosen.cited_notes) line(`${note.id}: ${clip(note.text, 400)}`);
  }

  if (record.answers.length > 0) {
    heading('Answers given');
    for (const answer of record.answers) line(`${answer.question_text} — ${answer.answer}`);
  }

  heading('Candidates');
  for (const candidate of record.candidates) {
    line(
      `${candidate.rank}. ${dottedNcm(candidate.ncm)}  (${candidate.confidence} %, ${candidate.confidence_band})  ${clip(candidate.description, 160)}`,
    );
  }

  heading('Tariffs');
  for (const text of tariffLines(record.tariffs)) line(text);

  doc
    .moveDown(1.2)
    .fontSize(8)
    .fillColor('#777777')
    .text(
      printable(
        `${SANDBOX_STAMP}. Generated by the local sandbox of the Tariff Classification Service for testing integrations; it is not a customs classification.`,
      ),
    );
  doc.end();
  return done;
};
