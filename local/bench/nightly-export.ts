/**
 * The nightly export the benchmark drops: an ERP's product list as our users send it every night.
 * ROWS rows of PRODUCTS distinct products, each product's rows its colour and size variants
 * (a SKU each, the same description, operation and country, so one fingerprint and one
 * classification), the NCM the ERP declares filled in for some, `;`-separated with a BOM as a
 * pt-BR ERP writes it. Deterministic: the same size always gives the same bytes.
 *
 * The products' mix follows the sandbox's trigger phrases (local/sandbox/classifier/TRIGGERS.md):
 * of every 20 products, 17 are descriptions it resolves, 2 vague ones it asks questions about
 * (pending_data), and 1 fails. Nothing in a real export makes the classifier fail, so that one
 * carries the sandbox's `[sandbox:fail=…]` tag.
 */
import { closeSync, openSync, writeSync } from 'node:fs';
import { formatCsvRecord } from '../../shared/spreadsheet/write-csv.js';

/** One size of the nightly benchmark: `--nightly 100000:200`. */
export type NightlySize = { rows: number; products: number };

/** `100000:200,400000:2000` → the sizes, in order; '' → none. `flag` names the option in an error. */
export const parseNightlySizes = (text: string, flag = '--nightly'): NightlySize[] =>
  text
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean)
    .map((part) => {
      const [rows, products, ...rest] = part.split(':').map(Number);
      if (
        rest.length > 0 ||
        !Number.isInteger(rows) ||
        !Number.isInteger(products) ||
        (products as number) < 1 ||
        (rows as number) < (products as number)
      )
        throw new Error(`${flag}: "${part}" is not ROWS:PRODUCTS with at least one row per product`);
      return { rows: rows as number, products: products as number };
    });

export const sizeLabel = (size: NightlySize): string =>
  `${size.rows.toLocaleString('en-US')}:${size.products.toLocaleString('en-US')}`;

type ExpectedOutcome = 'resolved' | 'pending_data' | 'failed';

export type ExportProduct = {
  /** The ERP's product code; each variant's SKU starts with it. */
  code: string;
  description: string;
  operation: 'Importação' | 'Exportação';
  country: string;
  /** The NCM the ERP declares, 8 digits; null when its column is empty. */
  declaredNcm: string | null;
  /** What the sandbox answers for the description (TRIGGERS.md). */
  expected: ExpectedOutcome;
};

/** Descriptions the sandbox resolves, with the NCM it resolves each to (TRIGGERS.md). */
export const RESOLVING: readonly (readonly [description: string, ncm: string])[] = [
  ['Café torrado em grãos', '09012100'],
  ['Café verde arábica, sacas de 60 kg', '09011110'],
  ['Carne bovina desossada resfriada, picanha a vácuo', '02013000'],
  ['Pechuga de pollo congelada', '02071422'],
  ['Uvas de mesa frescas', '08061000'],
  ['Vinho tinto Malbec 750 ml', '22042100'],
  ['Cerveza lager en lata', '22030000'],
  ['Refrigerante de cola, lata 350 ml', '22021000'],
  ['Soja em grão a granel', '12019000'],
  ['Ureia granulada 46% N', '31021010'],
  ['Xampu anticaspa 400 ml', '33051000'],
  ['Sacos plásticos de polietileno', '39232190'],
  ['Neumáticos para camión 295/80 R22.5', '40112090'],
  ['Passenger car tyres 205/55 R16', '40111000'],
  ['Leather handbag', '42022100'],
  ['Papel A4 75 g/m2, resma', '48025610'],
  ['Camiseta 100% algodão manga curta', '61091000'],
  ['Zapatillas deportivas para correr', '64041100'],
  ['Vergalhão CA-50 10 mm', '72142000'],
  ['Parafuso sextavado M10 com porca', '73181500'],
  ['Chave de fenda Philips', '82054000'],
  ['Bomba submersível para poço', '84137010'],
  ['Rodamientos de bolas 6204', '84821010'],
  ['Motor elétrico trifásico 5 CV', '85015210'],
  ['Smartphone 128 GB', '85171300'],
  ['Lâmpada LED 9W E27', '85395200'],
  ['Pastilha de freio dianteira', '87083090'],
  ['Disposable syringe 5 ml', '90183119'],
  ['Óculos de sol polarizados', '90041000'],
  ['Mesa de escritório de madeira', '94033000'],
  ['Peluche de oso', '95030031'],
  ['Escova de dentes macia', '96032100'],
];

/** Descriptions too vague to classify: the sandbox asks questions (TRIGGERS.md). */
const ASKING: readonly string[] = [
  'Peças diversas',
  'Repuestos varios',
  'Spare parts for machine',
  'Kit de ferramentas',
  'Material elétrico',
  'Produto importado da China',
];

/** What an old ERP record holds; the tag makes the sandbox fail it, as no description would. */
const FAILING: readonly string[] = [
  'Cadastro migrado do sistema antigo [sandbox:fail=no_valid_candidates]',
  'Item sem especificação técnica [sandbox:fail=unexpected_format]',
];

const IMPORTED_FROM = ['CN', 'US', 'DE', 'IT', 'JP', 'KR', 'AR', 'MX'] as const;
const EXPORTED_TO = ['US', 'AR', 'CL', 'PY', 'UY', 'CN'] as const;

/** Of every 20 products, these positions ask questions and this one fails; the rest resolve. */
const ASKING_POSITIONS = new Set([6, 13]);
const FAILING_POSITION = 19;

const cycle = <T>(list: readonly T[], index: number): T => list[index % list.length] as T;

/** The export's products, in the ERP's order. */
export const exportProducts = (count: number): ExportProduct[] => {
  const counters = { resolved: 0, pending_data: 0, failed: 0 };
  return Array.from({ length: count }, (_, index) => {
    const position = index % 20;
    const expected: ExpectedOutcome = ASKING_POSITIONS.has(position)
      ? 'pending_data'
      : position === FAILING_POSITION
        ? 'failed'
        : 'resolved';
    const nth = counters[expected]++;
    const code = `P${String(index + 1).padStart(5, '0')}`;
    // The product line tells products of the same kind apart: each is its own fingerprint.
    const line = `linha ${String(index + 1).padStart(5, '0')}`;
    const imported = index % 4 !== 3;
    const common = {
      code,
      operation: imported ? ('Importação' as const) : ('Exportação' as const),
      country: imported ? cycle(IMPORTED_FROM, index) : cycle(EXPORTED_TO, index),
    };
    if (expected === 'resolved') {
      const [description, ncm] = cycle(RESOLVING, nth);
      // ERPs carry an NCM for most of what they sell, and not for what was added lately.
      return {
        ...common,
        description: `${description}, ${line}`,
        declaredNcm: nth % 3 === 2 ? null : ncm,
        expected,
      };
    }
    const base = expected === 'pending_data' ? cycle(ASKING, nth) : cycle(FAILING, nth);
    const tag = base.indexOf(' [');
    const description = tag < 0 ? `${base}, ${line}` : `${base.slice(0, tag)}, ${line}${base.slice(tag)}`;
    return { ...common, description, declaredNcm: null, expected };
  });
};

export const EXPORT_HEADER = ['Código', 'Descrição', 'NCM', 'Operação', 'País', 'Cor', 'Tamanho'] as const;

const COLOURS = [
  ['PRE', 'Preto'],
  ['BRA', 'Branco'],
  ['AZU', 'Azul'],
  ['VER', 'Vermelho'],
  ['CIN', 'Cinza'],
  ['VRD', 'Verde'],
  ['AMA', 'Amarelo'],
  ['MAR', 'Marrom'],
] as const;
const SIZES = ['PP', 'P', 'M', 'G', 'GG', 'XG'] as const;
const COMBINATIONS = COLOURS.length * SIZES.length;

/** How many rows product `index` has: the rows spread evenly, the first products one more. */
export const variantsOf = (size: NightlySize, index: number): number =>
  Math.floor(size.rows / size.products) + (index < size.rows % size.products ? 1 : 0);

/** The export's rows, header first, product by product as an ERP lists them. */
export function* exportRecords(size: NightlySize): Generator<string[]> {
  yield [...EXPORT_HEADER];
  const products = exportProducts(size.products);
  for (const [index, product] of products.entries()) {
    for (let variant = 0; variant < variantsOf(size, index); variant++) {
      const [colourCode, colour] = cycle(COLOURS, variant);
      const sizeName = cycle(SIZES, Math.floor(variant / COLOURS.length));
      const round = Math.floor(variant / COMBINATIONS);
      const sku = `${product.code}-${colourCode}-${sizeName}${round > 0 ? `-${round + 1}` : ''}`;
      yield [
        sku,
        product.description,
        product.declaredNcm ?? '',
        product.operation,
        product.country,
        colour,
        sizeName,
      ];
    }
  }
}

/**
 * Takes a file path and records, and writes them as a pt-BR ERP writes a CSV (`;`, a BOM), a
 * megabyte of text at a time: a file of 400,000 rows never sits whole in memory.
 */
export const writeErpCsv = (file: string, records: Iterable<readonly string[]>): void => {
  const fd = openSync(file, 'w');
  try {
    let chunk = '\uFEFF';
    for (const record of records) {
      chunk += formatCsvRecord([...record], ';');
      if (chunk.length > 1 << 20) {
        writeSync(fd, chunk);
        chunk = '';
      }
    }
    writeSync(fd, chunk);
  } finally {
    closeSync(fd);
  }
};

/** Writes the export to `file`, a few thousand records at a time (400,000 rows are 40 MB). */
export const writeNightlyExport = (file: string, size: NightlySize): void =>
  writeErpCsv(file, exportRecords(size));
