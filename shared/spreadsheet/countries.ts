/**
 * Country cell → ISO 3166-1 alpha-2 code. Codes arrive lower-case (`br`), and people
 * also write names (`Brasil`, `Estados Unidos`, `Alemania`) or an ERP's alpha-3 code
 * (`BRA`). Names cover Mercosur's main trade partners in pt, es and en; anything else
 * must be written as a code. Whether the service accepts the code is decided by the
 * caller's set (`GET /countries`), not here.
 */
import { COUNTRY_PATTERN } from '../tcs/schemas.js';
import { matchingKey } from './matching-key.js';

/** Code → names and alpha-3, written as people write them; compared through `matchingKey`. */
const COUNTRY_NAMES: Readonly<Record<string, readonly string[]>> = {
  AR: ['Argentina', 'ARG'],
  BR: ['Brasil', 'Brazil', 'BRA'],
  PY: ['Paraguai', 'Paraguay', 'PRY'],
  UY: ['Uruguai', 'Uruguay', 'URY'],
  BO: ['Bolívia', 'Bolivia', 'BOL'],
  CL: ['Chile', 'CHL'],
  CO: ['Colômbia', 'Colombia', 'COL'],
  EC: ['Equador', 'Ecuador', 'ECU'],
  PE: ['Peru', 'Perú', 'PER'],
  VE: ['Venezuela', 'VEN'],
  MX: ['México', 'Mexico', 'MEX'],
  US: [
    'Estados Unidos',
    'Estados Unidos da América',
    'Estados Unidos de América',
    'United States',
    'United States of America',
    'EUA',
    'EE.UU.',
    'USA',
  ],
  CA: ['Canadá', 'Canada', 'CAN'],
  CN: ['China', 'CHN'],
  HK: ['Hong Kong', 'HKG'],
  TW: ['Taiwan', 'Taiwán', 'TWN'],
  JP: ['Japão', 'Japón', 'Japan', 'JPN'],
  KR: ['Coreia do Sul', 'Corea del Sur', 'South Korea', 'KOR'],
  IN: ['Índia', 'India', 'IND'],
  VN: ['Vietnã', 'Vietnam', 'VNM'],
  TH: ['Tailândia', 'Tailandia', 'Thailand', 'THA'],
  ID: ['Indonésia', 'Indonesia', 'IDN'],
  MY: ['Malásia', 'Malasia', 'Malaysia', 'MYS'],
  SG: ['Singapura', 'Singapur', 'Singapore', 'SGP'],
  DE: ['Alemanha', 'Alemania', 'Germany', 'DEU'],
  ES: ['Espanha', 'España', 'Spain', 'ESP'],
  FR: ['França', 'Francia', 'France', 'FRA'],
  IT: ['Itália', 'Italia', 'Italy', 'ITA'],
  PT: ['Portugal', 'PRT'],
  GB: ['Reino Unido', 'United Kingdom', 'UK', 'GBR'],
  NL: ['Países Baixos', 'Países Bajos', 'Holanda', 'Netherlands', 'NLD'],
  BE: ['Bélgica', 'Belgica', 'Belgium', 'BEL'],
  CH: ['Suíça', 'Suiza', 'Switzerland', 'CHE'],
  AT: ['Áustria', 'Austria', 'AUT'],
  SE: ['Suécia', 'Suecia', 'Sweden', 'SWE'],
  DK: ['Dinamarca', 'Denmark', 'DNK'],
  PL: ['Polônia', 'Polonia', 'Poland', 'POL'],
  IE: ['Irlanda', 'Ireland', 'IRL'],
  RU: ['Rússia', 'Rusia', 'Russia', 'RUS'],
  TR: ['Turquia', 'Turquía', 'Turkey', 'Türkiye', 'TUR'],
  IL: ['Israel', 'ISR'],
  ZA: ['África do Sul', 'Sudáfrica', 'South Africa', 'ZAF'],
  AU: ['Austrália', 'Australia', 'AUS'],
};

const CODE_BY_NAME: ReadonlyMap<string, string> = new Map(
  Object.entries(COUNTRY_NAMES).flatMap(([code, names]) => names.map((name) => [matchingKey(name), code])),
);

/**
 * The alpha-2 code a cell names, or null when it is neither a two-letter code nor a known
 * name. A two-letter value is upper-cased without checking that the country exists.
 */
export const resolveCountryCode = (value: string): string | null => {
  const byName = CODE_BY_NAME.get(matchingKey(value));
  if (byName) return byName;
  const upper = value.trim().toUpperCase();
  return COUNTRY_PATTERN.test(upper) ? upper : null;
};
