/**
 * Whether a technical sheet has a text layer, without a PDF library in the Prepare bundle: a PDF
 * shows text only through a font, so a PDF that names no font anywhere (a scan: pages of images)
 * has none. Fonts named inside compressed object streams (PDF 1.5) are looked for too. An
 * encrypted PDF cannot be read this way: null, nothing said about it.
 *
 * The service cannot read a sheet without text (`file_has_text_layer` false): with no
 * description beside it, the row fails `unreadable_pdf`. The plan warns before anything is paid.
 */
import { inflateSync } from 'node:zlib';

const FONT = /\/Font\b/;
const ENCRYPTED = /\/Encrypt\b/;
/** The dictionary of an object stream and the start of its data (up to `endstream`). */
const OBJECT_STREAM = /\/Type\s*\/ObjStm\b[\s\S]*?stream\r?\n/g;

const objectStreamsNameAFont = (text: string, bytes: Uint8Array): boolean => {
  for (const match of text.matchAll(OBJECT_STREAM)) {
    const start = match.index + match[0].length;
    const end = text.indexOf('endstream', start);
    if (end < 0) continue;
    try {
      const inflated = inflateSync(bytes.subarray(start, end), { finishFlush: 2 /* Z_SYNC_FLUSH */ });
      if (FONT.test(inflated.toString('latin1'))) return true;
    } catch {
      // Another filter, or damaged: it cannot say there is a font.
    }
  }
  return false;
};

/**
 * Says whether a PDF has a text layer: true, it has; false, it names no font, so it has none; null,
 * it cannot tell (encrypted).
 */
export const pdfHasTextLayer = (bytes: Uint8Array): boolean | null => {
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  if (ENCRYPTED.test(text)) return null;
  return FONT.test(text) || objectStreamsNameAFont(text, bytes);
};
