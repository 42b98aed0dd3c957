/**
 * The sample's technical sheets: `sample-data/sheets/*.pdf`, named by `products.csv`'s
 * "Ficha técnica" column. Regenerate with `npx tsx sample-data/make-sheets.ts`.
 *
 * Four are text PDFs, as a supplier's data sheet comes out of Word or an ERP: the sandbox
 * reads their text layer with pdf.js and matches it against its catalogue, so the wording
 * below is chosen to name the product and to avoid the words that rule an entry out (a pump
 * sheet never says "rotor", a motor sheet never says "partida": see the sandbox's
 * classifier/catalogue.ts). One is a scan: a single raster image of a printed page, with no
 * text layer at all, which is what a supplier's scanned PDF is.
 *
 * The bytes are reproducible: fixed info dates (pdfkit derives the file ID from them),
 * standard fonts (nothing embedded), and a scan drawn from code rather than from a photo.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import PDFDocument from 'pdfkit';

/** Every sheet says it was issued on this date; pdfkit hashes it into the file ID. */
const ISSUED_AT = new Date('2026-03-02T12:00:00.000Z');

/** Where `products.csv` expects the sheets: `sheets/` next to it. */
export const SHEETS_DIR = fileURLToPath(new URL('./sheets/', import.meta.url));

export type TextSheet = {
  /** File name inside `sheets/`. */
  file: string;
  /** The supplier, as the sheet's letterhead shows it. */
  maker: string;
  title: string;
  subtitle: string;
  /** Label → value rows of the specification table. */
  specs: readonly (readonly [label: string, value: string])[];
  notes: readonly string[];
  /** Footer: document code and revision. */
  footer: string;
};

export const TEXT_SHEETS: readonly TextSheet[] = [
  {
    file: 'bomba-submersivel.pdf',
    maker: 'Taizhou Hongda Pump Co., Ltd. — Zhejiang, China',
    title: 'Ficha Técnica — Bomba Submersível para Poço 4"',
    subtitle: 'Eletrobomba submersível multiestágio, modelo 4SD6-12, para poço artesiano',
    specs: [
      ['Modelo', '4SD6-12'],
      ['Potência', '1 CV (0,75 kW)'],
      ['Tensão / frequência', '220 V monofásica, 60 Hz'],
      ['Vazão máxima', '6 m³/h'],
      ['Altura manométrica máxima', '78 m.c.a.'],
      ['Número de estágios', '12'],
      ['Saída de recalque', '1 1/4" BSP'],
      ['Diâmetro externo', '98 mm (para poços de 4" ou mais)'],
      ['Corpo e eixo', 'aço inoxidável AISI 304'],
      ['Temperatura máxima da água', '35 °C'],
      ['Grau de proteção', 'IPX8'],
      ['Cabo de alimentação', '20 m, 3 x 1,5 mm²'],
    ],
    notes: [
      'Aplicação: abastecimento de água limpa a partir de poços artesianos e semiartesianos, irrigação e pressurização.',
      'Instalar a bomba submersa totalmente, no mínimo 1 m acima do fundo do poço.',
    ],
    footer: 'Documento FT-4SD6-12 · Revisão 03 · março de 2026',
  },
  {
    file: 'lampada-led-9w.pdf',
    maker: 'Ningbo Brightway Lighting Co., Ltd. — Zhejiang, China',
    title: 'Ficha Técnica — Lâmpada LED Bulbo A60 9 W E27',
    subtitle: 'Lâmpada LED de uso geral, substitui lâmpadas incandescentes de 60 W',
    specs: [
      ['Código', 'BW-A60-9W-65K'],
      ['Potência', '9 W'],
      ['Fluxo luminoso', '810 lm'],
      ['Eficiência', '90 lm/W'],
      ['Temperatura de cor', '6500 K (branco frio)'],
      ['Tensão', '100-240 V bivolt, 50/60 Hz'],
      ['Base', 'E27'],
      ['Índice de reprodução de cor', 'IRC maior que 80'],
      ['Ângulo de abertura', '220°'],
      ['Vida útil', '25.000 horas'],
      ['Dimensões', 'ø 60 x 110 mm'],
    ],
    notes: [
      'Lâmpada LED não dimerizável. Registro INMETRO conforme Portaria 69/2022.',
      'Embalagem individual; caixa master com 100 lâmpadas.',
    ],
    footer: 'Documento BW-FT-0912 · Revisão 05 · março de 2026',
  },
  {
    file: 'motor-trifasico-5cv.pdf',
    maker: 'Motores Elétricos Vale do Itajaí S.A. — Jaraguá do Sul, SC, Brasil',
    title: 'Ficha Técnica — Motor Elétrico Trifásico 5 CV',
    subtitle: 'Motor de indução trifásico, rotor de gaiola, alto rendimento IE3',
    specs: [
      ['Potência nominal', '5 CV (3,7 kW)'],
      ['Polos', '4'],
      ['Rotação nominal', '1.740 rpm'],
      ['Tensão', '220/380 V, 60 Hz'],
      ['Corrente nominal', '13,4 / 7,76 A'],
      ['Carcaça', '100L (ABNT)'],
      ['Rendimento a 100% da carga', '89,5 % (IE3)'],
      ['Fator de serviço', '1,15'],
      ['Classe de isolamento', 'F (elevação de 80 K)'],
      ['Grau de proteção', 'IP55'],
      ['Massa aproximada', '32 kg'],
    ],
    notes: [
      'Motor elétrico trifásico fabricado conforme ABNT NBR 17094-1.',
      'Forma construtiva B3D, caixa de ligação à direita, pintura Munsell N1.',
    ],
    footer: 'Documento FT-W5CV-4P · Revisão 02 · março de 2026',
  },
  {
    file: 'rodamiento-6205.pdf',
    maker: 'Rulemanes del Plata S.A. — Rosario, Santa Fe, Argentina',
    title: 'Ficha técnica — Rodamiento rígido de bolas 6205-2RS',
    subtitle: 'Rodamiento de bolas de una hilera, sellado en ambos lados (deep groove ball bearing)',
    specs: [
      ['Designación', '6205-2RS C3'],
      ['Diámetro interior (d)', '25 mm'],
      ['Diámetro exterior (D)', '52 mm'],
      ['Ancho (B)', '15 mm'],
      ['Capacidad de carga dinámica (C)', '14,8 kN'],
      ['Capacidad de carga estática (C0)', '7,8 kN'],
      ['Velocidad límite', '12.000 rpm'],
      ['Juego radial interno', 'C3'],
      ['Material de anillos y bolas', 'acero al cromo 100Cr6'],
      ['Masa', '0,128 kg'],
    ],
    notes: [
      'Sellos de caucho nitrílico (2RS) en ambos lados, lubricado de por vida con grasa de litio.',
      'Caja individual; embalaje de 10 unidades.',
    ],
    footer: 'Documento RP-6205-2RS · Revisión 04 · marzo de 2026',
  },
];

/** Where the sample's rows to send again sit (`resend.csv` and the sheet it names): `resend/`. */
const RESEND_DIR = fileURLToPath(new URL('./resend/', import.meta.url));

/**
 * The valve's sheet as the supplier sent it later, out of their ERP with a text layer: what row 20
 * (VAL-ESF, whose scan failed `unreadable_pdf`) is sent again with, in `resend/resend.csv`.
 */
export const RESENT_SHEET: TextSheet = {
  file: 'valvula-esfera.pdf',
  maker: 'Rubinetterie Lombarde S.r.l. — Brescia, Italia',
  title: 'Ficha Técnica — Válvula de esfera VS-200, 1/2" BSP',
  subtitle: 'Válvula de esfera de passagem plena, corpo em latão forjado niquelado, acionamento por alavanca',
  specs: [
    ['Modelo', 'VS-200'],
    ['Bitola', '1/2" BSP (rosca fêmea)'],
    ['Corpo', 'latão forjado CW617N, niquelado'],
    ['Esfera', 'latão cromado'],
    ['Vedação', 'PTFE'],
    ['Pressão máxima', 'PN 30 (30 bar)'],
    ['Temperatura de trabalho', '-20 °C a 120 °C'],
    ['Alavanca', 'aço plastificado'],
    ['Passagem', 'plena'],
  ],
  notes: [
    'Válvula de esfera para canalizações de água, ar comprimido e gás.',
    'Substitui a ficha digitalizada de 02/03/2026 (mesmo produto, mesma revisão).',
  ],
  footer: 'Documento RL-VS200 · Revisão 01 · março de 2026',
};

/**
 * The scanned sheet: what the printed page says, in capitals as a dot-matrix form (at most
 * 38 characters a line fit the page). Only the picture carries it; a PDF text reader finds nothing.
 */
export const SCANNED_SHEET = {
  file: 'valvula-esfera-digitalizada.pdf',
  title: ['FICHA TECNICA'],
  lines: [
    'VALVOLA A SFERA / VALVULA DE ESFERA',
    'RUBINETTERIE LOMBARDE SRL - BRESCIA',
    '',
    'MODELO: VS-200   BITOLA: 1/2" BSP',
    'CORPO: LATAO FORJADO CW617N NIQUELADO',
    'ESFERA: LATAO CROMADO   VEDACAO: PTFE',
    'PRESSAO MAXIMA: PN 30 (30 BAR)',
    'TEMPERATURA: -20 A 120 C',
    'ALAVANCA: ACO PLASTIFICADO',
    'PASSAGEM PLENA',
    '',
    'APLICACAO: AGUA, AR COMPRIMIDO, GAS',
    '',
    'REV. 01 - 02/03/2026',
  ],
} as const;

const collect = (doc: PDFKit.PDFDocument): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
};

const newDocument = (title: string, author: string): PDFKit.PDFDocument =>
  new PDFDocument({
    size: 'A4',
    margin: 56,
    info: { Title: title, Author: author, CreationDate: ISSUED_AT, ModDate: ISSUED_AT },
  });

/** A supplier's data sheet: letterhead, title, specification table, notes, footer. */
export const renderTextSheet = (sheet: TextSheet): Promise<Buffer> => {
  const doc = newDocument(sheet.title, sheet.maker);
  const done = collect(doc);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;

  doc.rect(left, 40, width, 3).fill('#1f4e79');
  doc.font('Helvetica-Bold').fontSize(9).fillColor('#1f4e79').text(sheet.maker, left, 50);
  doc.moveDown(1.5).font('Helvetica-Bold').fontSize(17).fillColor('#000000').text(sheet.title);
  doc.moveDown(0.3).font('Helvetica').fontSize(11).fillColor('#333333').text(sheet.subtitle);
  doc.moveDown(1);

  const labelWidth = 190;
  for (const [index, [label, value]] of sheet.specs.entries()) {
    const y = doc.y;
    if (index % 2 === 0) doc.rect(left, y - 3, width, 18).fill('#eef3f8');
    doc
      .font('Helvetica-Bold')
      .fontSize(10)
      .fillColor('#1a1a1a')
      .text(label, left + 6, y, { width: labelWidth });
    doc
      .font('Helvetica')
      .text(value, left + 6 + labelWidth, y, { width: width - labelWidth - 12 })
      .moveDown(0.35);
  }

  doc.moveDown(1).font('Helvetica').fontSize(10).fillColor('#222222');
  for (const note of sheet.notes) doc.text(note, left, doc.y, { width }).moveDown(0.4);

  doc
    .font('Helvetica')
    .fontSize(8)
    .fillColor('#777777')
    .text(sheet.footer, left, doc.page.height - 70, { width, align: 'center' });
  doc.end();
  return done;
};

// ---------------------------------------------------------------------------
// The scan: a page image drawn from code
// ---------------------------------------------------------------------------

/**
 * A 5×7 dot-matrix font, one byte per column (bit 0 at the top), for the characters the
 * scanned page uses. Enough to make the picture legible to a person and useless to pdf.js.
 */
const FONT_5X7: Readonly<Record<string, readonly number[]>> = {
  ' ': [0x00, 0x00, 0x00, 0x00, 0x00],
  A: [0x7c, 0x12, 0x11, 0x12, 0x7c],
  B: [0x7f, 0x49, 0x49, 0x49, 0x36],
  C: [0x3e, 0x41, 0x41, 0x41, 0x22],
  D: [0x7f, 0x41, 0x41, 0x22, 0x1c],
  E: [0x7f, 0x49, 0x49, 0x49, 0x41],
  F: [0x7f, 0x09, 0x09, 0x09, 0x01],
  G: [0x3e, 0x41, 0x49, 0x49, 0x7a],
  H: [0x7f, 0x08, 0x08, 0x08, 0x7f],
  I: [0x00, 0x41, 0x7f, 0x41, 0x00],
  J: [0x20, 0x40, 0x41, 0x3f, 0x01],
  K: [0x7f, 0x08, 0x14, 0x22, 0x41],
  L: [0x7f, 0x40, 0x40, 0x40, 0x40],
  M: [0x7f, 0x02, 0x0c, 0x02, 0x7f],
  N: [0x7f, 0x04, 0x08, 0x10, 0x7f],
  O: [0x3e, 0x41, 0x41, 0x41, 0x3e],
  P: [0x7f, 0x09, 0x09, 0x09, 0x06],
  Q: [0x3e, 0x41, 0x51, 0x21, 0x5e],
  R: [0x7f, 0x09, 0x19, 0x29, 0x46],
  S: [0x46, 0x49, 0x49, 0x49, 0x31],
  T: [0x01, 0x01, 0x7f, 0x01, 0x01],
  U: [0x3f, 0x40, 0x40, 0x40, 0x3f],
  V: [0x1f, 0x20, 0x40, 0x20, 0x1f],
  W: [0x3f, 0x40, 0x38, 0x40, 0x3f],
  X: [0x63, 0x14, 0x08, 0x14, 0x63],
  Y: [0x07, 0x08, 0x70, 0x08, 0x07],
  Z: [0x61, 0x51, 0x49, 0x45, 0x43],
  '0': [0x3e, 0x51, 0x49, 0x45, 0x3e],
  '1': [0x00, 0x42, 0x7f, 0x40, 0x00],
  '2': [0x42, 0x61, 0x51, 0x49, 0x46],
  '3': [0x21, 0x41, 0x45, 0x4b, 0x31],
  '4': [0x18, 0x14, 0x12, 0x7f, 0x10],
  '5': [0x27, 0x45, 0x45, 0x45, 0x39],
  '6': [0x3c, 0x4a, 0x49, 0x49, 0x30],
  '7': [0x01, 0x71, 0x09, 0x05, 0x03],
  '8': [0x36, 0x49, 0x49, 0x49, 0x36],
  '9': [0x06, 0x49, 0x49, 0x29, 0x1e],
  '.': [0x00, 0x60, 0x60, 0x00, 0x00],
  ',': [0x00, 0x80, 0x60, 0x00, 0x00],
  ':': [0x00, 0x36, 0x36, 0x00, 0x00],
  '/': [0x20, 0x10, 0x08, 0x04, 0x02],
  '-': [0x08, 0x08, 0x08, 0x08, 0x08],
  '"': [0x00, 0x07, 0x00, 0x07, 0x00],
  '(': [0x00, 0x1c, 0x22, 0x41, 0x00],
  ')': [0x00, 0x41, 0x22, 0x1c, 0x00],
};

/** 100 dpi A4: big enough to read, small enough to keep the file a few kilobytes. */
const SCAN_WIDTH = 827;
const SCAN_HEIGHT = 1169;

/** Ink coverage of the upright page, 1 where a dot of a glyph falls. */
const inkMask = (): Uint8Array => {
  const mask = new Uint8Array(SCAN_WIDTH * SCAN_HEIGHT);
  const write = (text: string, x0: number, y0: number, scale: number) => {
    [...text].forEach((char, index) => {
      const columns = FONT_5X7[char] ?? FONT_5X7[' ']!;
      columns.forEach((bits, column) => {
        for (let row = 0; row < 8; row++) {
          if ((bits >> row) & 1) {
            for (let dy = 0; dy < scale; dy++) {
              for (let dx = 0; dx < scale; dx++) {
                const x = x0 + (index * 6 + column) * scale + dx;
                const y = y0 + row * scale + dy;
                if (x < SCAN_WIDTH && y < SCAN_HEIGHT) mask[y * SCAN_WIDTH + x] = 1;
              }
            }
          }
        }
      });
    });
  };
  let y = 110;
  for (const line of SCANNED_SHEET.title) {
    write(line, 90, y, 6);
    y += 80;
  }
  for (const line of SCANNED_SHEET.lines) {
    write(line, 90, y, 3);
    y += 36;
  }
  // A ruled box around the specification, as printed forms have.
  for (let x = 70; x < SCAN_WIDTH - 70; x++) {
    mask[95 * SCAN_WIDTH + x] = 1;
    mask[(y + 10) * SCAN_WIDTH + x] = 1;
  }
  return mask;
};

/**
 * The page as a scanner delivers it: off-white paper darkening towards the binding, the
 * print a little crooked (0.5°), grey ink, a few specks of dust.
 */
const scanPixels = (): Uint8Array => {
  const mask = inkMask();
  const pixels = new Uint8Array(SCAN_WIDTH * SCAN_HEIGHT);
  const angle = (0.5 * Math.PI) / 180;
  const [cos, sin] = [Math.cos(angle), Math.sin(angle)];
  const [cx, cy] = [SCAN_WIDTH / 2, SCAN_HEIGHT / 2];
  for (let y = 0; y < SCAN_HEIGHT; y++) {
    for (let x = 0; x < SCAN_WIDTH; x++) {
      // Where this pixel was on the upright page (nearest neighbour).
      const ux = Math.round(cos * (x - cx) + sin * (y - cy) + cx);
      const uy = Math.round(-sin * (x - cx) + cos * (y - cy) + cy);
      const inked = ux >= 0 && uy >= 0 && ux < SCAN_WIDTH && uy < SCAN_HEIGHT && mask[uy * SCAN_WIDTH + ux];
      const paper = 236 - Math.max(0, 40 - x) - (x > SCAN_WIDTH - 12 ? 60 : 0);
      pixels[y * SCAN_WIDTH + x] = inked ? 58 : paper;
    }
  }
  // Dust: a fixed sequence (a small LCG), so the picture is the same on every run.
  let seed = 20260302;
  for (let speck = 0; speck < 60; speck++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const x = seed % SCAN_WIDTH;
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const y = seed % SCAN_HEIGHT;
    pixels[y * SCAN_WIDTH + x] = 120;
  }
  return pixels;
};

const pngChunk = (type: string, data: Uint8Array): Buffer => {
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const typed = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(typed));
  return Buffer.concat([length, typed, crc]);
};

/** 8-bit greyscale PNG. Each row is filtered "Up": rows of bare paper come out as zeros. */
export const encodeGreyPng = (pixels: Uint8Array, width: number, height: number): Buffer => {
  const raw = Buffer.alloc((width + 1) * height);
  for (let y = 0; y < height; y++) {
    raw[y * (width + 1)] = 2;
    for (let x = 0; x < width; x++) {
      const above = y === 0 ? 0 : pixels[(y - 1) * width + x]!;
      raw[y * (width + 1) + 1 + x] = (pixels[y * width + x]! - above) & 0xff;
    }
  }
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 0, 0, 0, 0], 8); // bit depth 8, greyscale, deflate, adaptive filters, no interlace
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk('IHDR', header),
    pngChunk('IDAT', deflateSync(raw, { level: 9 })),
    pngChunk('IEND', new Uint8Array(0)),
  ]);
};

/** The scanned page as a PNG, to look at it outside the PDF. */
export const scannedPageImage = (): Buffer => encodeGreyPng(scanPixels(), SCAN_WIDTH, SCAN_HEIGHT);

/** A one-page PDF whose only content is the page image: no text layer. */
export const renderScannedSheet = (): Promise<Buffer> => {
  const doc = newDocument('Scan', 'Scanner');
  const done = collect(doc);
  doc.image(scannedPageImage(), 0, 0, { width: doc.page.width, height: doc.page.height });
  doc.end();
  return done;
};

/** File name → bytes of every sheet the sample ships. */
export const renderSheets = async (): Promise<Map<string, Buffer>> => {
  const sheets = new Map<string, Buffer>();
  for (const sheet of TEXT_SHEETS) sheets.set(sheet.file, await renderTextSheet(sheet));
  sheets.set(SCANNED_SHEET.file, await renderScannedSheet());
  return sheets;
};

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href;
if (isMain) {
  mkdirSync(SHEETS_DIR, { recursive: true });
  for (const [file, bytes] of await renderSheets()) {
    writeFileSync(`${SHEETS_DIR}${file}`, bytes);
    console.log(`sheets/${file}  ${bytes.length} bytes`);
  }
  mkdirSync(RESEND_DIR, { recursive: true });
  const resent = await renderTextSheet(RESENT_SHEET);
  writeFileSync(`${RESEND_DIR}${RESENT_SHEET.file}`, resent);
  console.log(`resend/${RESENT_SHEET.file}  ${resent.length} bytes`);
}
