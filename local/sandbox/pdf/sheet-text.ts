/**
 * The text layer of an uploaded sheet, read with pdf.js. A scan (pages of images) has none:
 * the text is '' and the classification reports `file_has_text_layer` false.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** Enough to classify a product; the rest of a long catalogue PDF is not read. */
const MAX_PAGES = 30;
const MAX_CHARS = 100_000;

type PdfJs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjs: Promise<PdfJs> | null = null;
// The legacy build carries the polyfills Node 20 lacks (Promise.withResolvers and others).
const loadPdfJs = (): Promise<PdfJs> => {
  pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs');
  return pdfjs;
};

const standardFontDataUrl = `${join(dirname(createRequire(import.meta.url).resolve('pdfjs-dist/package.json')), 'standard_fonts')}/`;

export class UnreadablePdfError extends Error {
  override readonly name = 'UnreadablePdfError';
}

/** Opens a PDF and returns its text; throws UnreadablePdfError when pdf.js cannot open it. */
export const extractPdfText = async (bytes: Uint8Array): Promise<string> => {
  const { getDocument, VerbosityLevel } = await loadPdfJs();
  // pdf.js takes ownership of (detaches) the buffer it is given: hand it a copy.
  const task = getDocument({
    data: new Uint8Array(bytes),
    isEvalSupported: false,
    useSystemFonts: false,
    disableFontFace: true,
    standardFontDataUrl,
    verbosity: VerbosityLevel.ERRORS,
  });
  let document: Awaited<typeof task.promise>;
  try {
    document = await task.promise;
  } catch (error) {
    await task.destroy().catch(() => undefined);
    throw new UnreadablePdfError(error instanceof Error ? error.message : String(error));
  }
  try {
    const parts: string[] = [];
    let length = 0;
    for (let n = 1; n <= Math.min(document.numPages, MAX_PAGES) && length < MAX_CHARS; n++) {
      const page = await document.getPage(n);
      const content = await page.getTextContent();
      for (const item of content.items) {
        if ('str' in item) {
          parts.push(item.str, item.hasEOL ? '\n' : ' ');
          length += item.str.length + 1;
        }
      }
      page.cleanup();
    }
    return parts
      .join('')
      .replace(/[ \t]+/g, ' ')
      .trim()
      .slice(0, MAX_CHARS);
  } catch (error) {
    throw new UnreadablePdfError(error instanceof Error ? error.message : String(error));
  } finally {
    await document.destroy();
  }
};
