/** Bytes → text in every encoding users' tools write, and never mojibake. */
import { describe, expect, it } from 'vitest';
import {
  decodeText,
  decodeWindows1252,
  looksDoubleEncoded,
} from '../../../shared/spreadsheet/decode-text.js';
import { crlf, utf8, windows1252 } from './fixtures.js';

const HEADER = 'Descrição;Operação;País;Observação';

describe('decodeText', () => {
  it('reads UTF-8 without a BOM', () => {
    expect(decodeText(utf8(HEADER))).toEqual({ text: HEADER, encoding: 'utf-8', hadBom: false });
  });

  it('strips the BOM of Excel "CSV UTF-8" and says it was there', () => {
    const decoded = decodeText(utf8(HEADER, { bom: true }));

    expect(decoded).toEqual({ text: HEADER, encoding: 'utf-8', hadBom: true });
    expect(decoded.text.charCodeAt(0)).toBe('D'.charCodeAt(0));
  });

  it('falls back to Windows-1252 for the bytes Excel "CSV" writes', () => {
    // "Descrição;importação" typed by hand in Windows-1252: ç = E7, ã = E3.
    const bytes = Buffer.from([
      0x44, 0x65, 0x73, 0x63, 0x72, 0x69, 0xe7, 0xe3, 0x6f, 0x3b, 0x69, 0x6d, 0x70, 0x6f, 0x72, 0x74, 0x61,
      0xe7, 0xe3, 0x6f,
    ]);

    expect(decodeText(bytes)).toEqual({
      text: 'Descrição;importação',
      encoding: 'windows-1252',
      hadBom: false,
    });
  });

  it('maps the 0x80–0x9F range of Windows-1252 (€, curly quotes, dashes), not Latin-1 controls', () => {
    const text = 'Preço “unitário” – 10 €';

    const decoded = decodeText(windows1252(text));

    expect(decoded.text).toBe(text);
    expect(decoded.encoding).toBe('windows-1252');
  });

  it('decodes every byte of 0x80–0x9F per WHATWG, not as the C1 controls Node 20 TextDecoder gives', () => {
    const bytes = Buffer.from([0x80, 0x81, 0x8a, 0x92, 0x96, 0x9c, 0x9f, 0xa0, 0xe7, 0xff]);

    expect(decodeWindows1252(bytes)).toBe('€\u0081Š’–œŸ\u00A0çÿ');
  });

  it('keeps the UTF-8 rows of a file that mixes UTF-8 and Windows-1252', () => {
    const bytes = Buffer.concat([
      utf8(crlf('Descrição;País', 'Café torrado em grãos;BR')),
      windows1252(crlf('Feijão preto “tipo 1”;BR')),
    ]);

    expect(decodeText(bytes)).toEqual({
      text: crlf('Descrição;País', 'Café torrado em grãos;BR', 'Feijão preto “tipo 1”;BR'),
      encoding: 'utf-8+windows-1252',
      hadBom: false,
    });
  });

  it('reads Latin-1 (ISO-8859-1) files, a subset of Windows-1252', () => {
    const latin1 = Buffer.from('Descripción;País;Año', 'latin1');

    expect(decodeText(latin1).text).toBe('Descripción;País;Año');
  });

  it('reads the UTF-16LE of Excel "Unicode text" when it starts with its BOM', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('Descrição\tPaís', 'utf16le')]);

    expect(decodeText(bytes)).toEqual({ text: 'Descrição\tPaís', encoding: 'utf-16le', hadBom: true });
  });

  it('never produces mojibake from either encoding of the same header', () => {
    for (const bytes of [utf8(HEADER), utf8(HEADER, { bom: true }), windows1252(HEADER)]) {
      const { text } = decodeText(bytes);
      expect(text).toBe(HEADER);
      expect(looksDoubleEncoded(text)).toBe(false);
    }
  });
});

describe('looksDoubleEncoded', () => {
  it('spots UTF-8 that was already read as Windows-1252 and saved again', () => {
    expect(looksDoubleEncoded('DescriÃ§Ã£o')).toBe(true);
    expect(looksDoubleEncoded('ImportaÃ§Ã£o')).toBe(true);
  });

  it('leaves real Portuguese and Spanish alone', () => {
    expect(looksDoubleEncoded('Descrição, Operação, País, Descripción, Año, São Paulo, ÃO')).toBe(false);
  });
});
