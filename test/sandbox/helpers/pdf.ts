/** Test PDFs (with and without a text layer) and a PDF reader check with pdf.js. */
import PDFDocument from 'pdfkit';

const render = (draw: (doc: PDFKit.PDFDocument) => void): Promise<Uint8Array> => {
  const doc = new PDFDocument({ size: 'A4', info: { CreationDate: new Date('2026-01-01T00:00:00Z') } });
  const chunks: Buffer[] = [];
  const done = new Promise<Uint8Array>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(new Uint8Array(Buffer.concat(chunks))));
    doc.on('error', reject);
  });
  draw(doc);
  doc.end();
  return done;
};

/** A technical sheet with a text layer. */
export const textPdf = (lines: readonly string[]): Promise<Uint8Array> =>
  render((doc) => {
    doc.fontSize(12);
    for (const line of lines) doc.text(line);
  });

/** A "scan": drawings only, no text layer. */
export const scanPdf = (): Promise<Uint8Array> =>
  render((doc) => {
    doc.rect(50, 50, 400, 300).fill('#888888');
    doc.circle(250, 500, 80).fill('#333333');
  });

/** Opens the bytes with pdf.js, as a PDF reader would, and returns the text of every page. */
export const readPdfText = async (bytes: Uint8Array): Promise<{ pages: number; text: string }> => {
  const { getDocument, VerbosityLevel } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const document = await getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    verbosity: VerbosityLevel.ERRORS,
  }).promise;
  try {
    let text = '';
    for (let n = 1; n <= document.numPages; n++) {
      const content = await (await document.getPage(n)).getTextContent();
      for (const item of content.items) if ('str' in item) text += `${item.str}${item.hasEOL ? '\n' : ' '}`;
    }
    return { pages: document.numPages, text };
  } finally {
    await document.destroy();
  }
};
