/**
 * The sandbox's built-in catalogue: real, current NCM positions (Tabela NCM vigente em
 * 05/07/2026, Resolução Gecex nº 812/2025) with their official descriptions and hierarchy,
 * copied here as literals because nothing may read the official table at run time.
 *
 * What is NOT official: keywords, product names, rationales, notes wording, SIM openings
 * (10-digit codes invented as the NCM plus two digits) and tariff figures (plausible,
 * TEC-like, but simulated). They exist so integrations can exercise every path.
 */
import type { Hierarchy, SimOption } from '../../../shared/tcs/schemas.js';

/** How the simulated SIM registry answers for an NCM. */
type CatalogueSim =
  | { status: 'available'; openings: readonly SimOption[] }
  | { status: 'none' }
  /**
   * Not confirmed by the registry yet: `GET /sim-openings` answers `verifying` until the sandbox's
   * delay since the NCM was first asked about has passed, then what it `confirms`.
   */
  | { status: 'verifying'; confirms: ConfirmedSim };

/** What the simulated registry confirms in the end for an NCM it is still verifying. */
type ConfirmedSim = { status: 'available'; openings: readonly SimOption[] } | { status: 'none' };

/** Simulated tariff figures, in percent; or why the simulated source has none. */
type CatalogueTariff =
  | {
      importDutyExtrazone: number;
      statisticalRate: number;
      /** The common external tariff when the national duty differs from it (exception lists); else null. */
      aec: number | null;
      exportDuty: number;
      exportRefund: number;
    }
  | 'no_data'
  | 'not_available';

export type CatalogueEntry = {
  ncm: string;
  /** Official description of the position (its dashed levels joined, dashes removed). */
  description: string;
  /** The product name the classifier reports; also offered as an answer option. */
  productName: string;
  /** Accent-folded, lower-case words or phrases (pt, es, en) that point to this entry. */
  keywords: readonly string[];
  /** Words that rule this entry out (e.g. "descafeinado" for regular roasted coffee). */
  excludes?: readonly string[];
  hierarchy: Hierarchy;
  rationale: string;
  /** General Interpretation Rules in the spec's form: "1", "3 a)", "6". */
  appliedRules: readonly string[];
  citedNotes: readonly { id: string; text: string }[];
  discarded: readonly { ncm: string; description: string; reason: string }[];
  missingData: readonly string[];
  sim: CatalogueSim;
  tariff: CatalogueTariff;
};

/** The 21 sections of the Harmonized System, as titled in the Brazilian TEC. */
export const SECTIONS = {
  I: 'Animais vivos e produtos do reino animal',
  II: 'Produtos do reino vegetal',
  III: 'Gorduras e óleos animais, vegetais ou de origem microbiana e produtos da sua dissociação; gorduras alimentares elaboradas; ceras de origem animal ou vegetal',
  IV: 'Produtos das indústrias alimentares; bebidas, líquidos alcoólicos e vinagres; tabaco e seus sucedâneos manufaturados; produtos, mesmo com nicotina, destinados à inalação sem combustão; outros produtos que contenham nicotina destinados à absorção da nicotina pelo corpo humano',
  V: 'Produtos minerais',
  VI: 'Produtos das indústrias químicas ou das indústrias conexas',
  VII: 'Plástico e suas obras; borracha e suas obras',
  VIII: 'Peles, couros, peles com pelo e obras destas matérias; artigos de correeiro ou de seleiro; artigos de viagem, bolsas e artigos semelhantes; obras de tripa',
  IX: 'Madeira, carvão vegetal e obras de madeira; cortiça e suas obras; obras de espartaria ou de cestaria',
  X: 'Pastas de madeira ou de outras matérias fibrosas celulósicas; papel ou cartão para reciclar (desperdícios e resíduos); papel ou cartão e suas obras',
  XI: 'Matérias têxteis e suas obras',
  XII: 'Calçado, chapéus e artigos de uso semelhante, guarda-chuvas, guarda-sóis, bengalas, chicotes, e suas partes; penas preparadas e suas obras; flores artificiais; obras de cabelo',
  XIII: 'Obras de pedra, gesso, cimento, amianto, mica ou de matérias semelhantes; produtos cerâmicos; vidro e suas obras',
  XIV: 'Pérolas naturais ou cultivadas, pedras preciosas ou semipreciosas e semelhantes, metais preciosos, metais folheados ou chapeados de metais preciosos, e suas obras; bijuterias; moedas',
  XV: 'Metais comuns e suas obras',
  XVI: 'Máquinas e aparelhos, material elétrico, e suas partes; aparelhos de gravação ou de reprodução de som, aparelhos de gravação ou de reprodução de imagens e de som em televisão, e suas partes e acessórios',
  XVII: 'Material de transporte',
  XVIII:
    'Instrumentos e aparelhos de óptica, de fotografia, de cinematografia, de medida, de controle ou de precisão; instrumentos e aparelhos médico-cirúrgicos; artigos de relojoaria; instrumentos musicais; suas partes e acessórios',
  XIX: 'Armas e munições; suas partes e acessórios',
  XX: 'Mercadorias e produtos diversos',
  XXI: 'Objetos de arte, de coleção e antiguidades',
} as const;
type SectionNumeral = keyof typeof SECTIONS;

/** Builds a hierarchy from its four levels; keeps the entries below one line per level. */
const hierarchy = (
  section: SectionNumeral,
  chapter: readonly [string, string],
  heading: readonly [string, string],
  subheading: readonly [string, string],
): Hierarchy => ({
  section: { code: section, description: SECTIONS[section] },
  chapter: { code: chapter[0], description: chapter[1] },
  heading: { code: heading[0], description: heading[1] },
  subheading: { code: subheading[0], description: subheading[1] },
});

/** A comma-separated list of phrases: keeps each entry's keywords on one line. */
const phrases = (list: string): readonly string[] => list.split(',').map((phrase) => phrase.trim());

/** Simulated SIM openings: the NCM plus a two-digit suffix. */
const openings = (
  ncm: string,
  ...items: readonly [suffix: string, description: string][]
): Extract<CatalogueSim, { status: 'available' }> => ({
  status: 'available',
  openings: items.map(([suffix, description]) => ({ code: `${ncm}${suffix}`, description })),
});

const tariff = (
  importDutyExtrazone: number,
  statisticalRate = 3,
  aec: number | null = null,
  exportDuty = 0,
  exportRefund = 0,
): CatalogueTariff => ({ importDutyExtrazone, statisticalRate, aec, exportDuty, exportRefund });

/**
 * One entry per position, grouped by HS section. Descriptions and hierarchy are official;
 * `sim` and `tariff` are simulated (see the file header).
 */
export const CATALOGUE: readonly CatalogueEntry[] = [
  {
    ncm: '02013000',
    description: 'Carnes de animais da espécie bovina, frescas ou refrigeradas, desossadas',
    productName: 'Carne bovina desossada resfriada',
    keywords: phrases(
      'carne bovina resfriada, carne bovina refrigerada, carne bovina fresca, cortes bovinos desossados, carne de res refrigerada, carne vacuna enfriada, carne vacuna refrigerada, chilled beef, fresh beef, boneless beef, picanha, contrafile, alcatra, file mignon, bife de chorizo, beef cuts, carne bovina, carne vacuna, beef',
    ),
    excludes: phrases('congelada, congelado, congelados, congeladas, frozen'),
    hierarchy: hierarchy(
      'I',
      ['02', 'Carnes e miudezas, comestíveis.'],
      ['0201', 'Carnes de animais da espécie bovina, frescas ou refrigeradas.'],
      ['020130', 'Desossadas'],
    ),
    rationale:
      'Cortes de carne bovina sem osso, apenas refrigerados, enquadram-se na posição 02.01 (carnes bovinas frescas ou refrigeradas) e na subposição das desossadas.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 a) do Capítulo 2',
        text: 'O Capítulo não compreende os produtos impróprios para alimentação humana.',
      },
    ],
    discarded: [
      {
        ncm: '02023000',
        description: 'Carnes de animais da espécie bovina, congeladas, desossadas',
        reason: 'A carne não está congelada.',
      },
      {
        ncm: '02012090',
        description: 'Outras peças não desossadas, outras',
        reason: 'Os cortes são desossados.',
      },
      {
        ncm: '02062990',
        description: 'Da espécie bovina, congeladas, outras, outros',
        reason: 'Não se trata de miudezas.',
      },
    ],
    missingData: [
      'Temperatura de conservação (resfriada ou congelada)',
      'Corte e apresentação (a vácuo, caixa)',
    ],
    sim: openings('02013000', ['10', 'Em cortes embalados a vácuo'], ['90', 'Outras']),
    tariff: tariff(10, 3, null, 5, 0),
  },
  {
    ncm: '02023000',
    description: 'Carnes de animais da espécie bovina, congeladas, desossadas',
    productName: 'Carne bovina desossada congelada',
    keywords: phrases(
      'carne bovina congelada, cortes bovinos congelados, carne de res congelada, carne vacuna congelada, frozen beef, frozen boneless beef, beef frozen',
    ),
    excludes: phrases('resfriada, refrigerada, chilled, enfriada'),
    hierarchy: hierarchy(
      'I',
      ['02', 'Carnes e miudezas, comestíveis.'],
      ['0202', 'Carnes de animais da espécie bovina, congeladas.'],
      ['020230', 'Desossadas'],
    ),
    rationale:
      'Carne bovina sem osso apresentada congelada classifica-se na posição 02.02 e na subposição das desossadas.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '02013000',
        description: 'Carnes de animais da espécie bovina, frescas ou refrigeradas, desossadas',
        reason: 'A carne está congelada, não apenas refrigerada.',
      },
      { ncm: '16025000', description: 'Da espécie bovina', reason: 'Não houve preparação nem cozimento.' },
    ],
    missingData: ['Corte e apresentação'],
    sim: { status: 'none' },
    tariff: tariff(10, 3, null, 5, 0),
  },
  {
    ncm: '02071422',
    description:
      'Carnes de galos e galinhas (Gallus domesticus), pedaços e miudezas, congelados, pedaços desossados, peitos',
    productName: 'Peito de frango congelado desossado',
    keywords: phrases(
      'peito de frango, file de peito de frango, file de frango, frango congelado, pechuga de pollo, pollo congelado, chicken breast, frozen chicken, boneless chicken',
    ),
    excludes: phrases('resfriado, refrigerado, chilled, com osso, bone in, empanado, cozido'),
    hierarchy: hierarchy(
      'I',
      ['02', 'Carnes e miudezas, comestíveis.'],
      [
        '0207',
        'Carnes e miudezas, comestíveis, frescas, refrigeradas ou congeladas, das aves da posição 01.05.',
      ],
      ['020714', 'De aves da espécie Gallus domesticus, pedaços e miudezas, congelados'],
    ),
    rationale:
      'Peito de galinha ou frango (Gallus domesticus), sem osso e congelado, é pedaço desossado da subposição 0207.14.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '02071411',
        description:
          'De aves da espécie Gallus domesticus, pedaços e miudezas, congelados, pedaços não desossados, peitos',
        reason: 'Os peitos estão desossados.',
      },
      {
        ncm: '02071300',
        description: 'De aves da espécie Gallus domesticus, pedaços e miudezas, frescos ou refrigerados',
        reason: 'O produto está congelado.',
      },
      {
        ncm: '16023220',
        description:
          'De aves da posição 01.05, de aves da espécie Gallus domesticus, com conteúdo de carne ou de miudezas igual ou superior a 57 %, em peso, cozidas',
        reason: 'Não é preparação cozida.',
      },
    ],
    missingData: ['Com ou sem pele', 'Peso por embalagem'],
    sim: openings('02071422', ['00', 'Peitos desossados congelados']),
    tariff: tariff(10, 0, null, 0, 0),
  },
  {
    ncm: '03043100',
    description: 'Filés (filetes) frescos ou refrigerados, tilápias (Oreochromis spp.)',
    productName: 'Filé de tilápia fresco',
    keywords: phrases('file de tilapia, filete de tilapia, tilapia fillet, tilapia fresca, tilapia'),
    excludes: phrases('congelado, congelada, frozen'),
    hierarchy: hierarchy(
      'I',
      ['03', 'Peixes e crustáceos, moluscos e outros invertebrados aquáticos.'],
      [
        '0304',
        'Filés (filetes) de peixes e outra carne de peixes (mesmo picada), frescos, refrigerados ou congelados.',
      ],
      [
        '030431',
        'Filés (filetes) de tilápias (Oreochromis spp.), bagres (peixes-gato*) (Pangasius spp., Silurus spp., Clarias spp., Ictalurus spp.), carpas (Cyprinus spp., Carassius spp., Ctenopharyngodon idellus, Hypophthalmichthys spp., Cirrhinus spp., Mylopharyngodon piceus, Catla catla, Labeo spp., Osteochilus hasselti, Leptobarbus hoeveni, Megalobrama spp.), enguias (Anguilla spp.), perca-do-nilo (Lates niloticus) e peixes cabeça-de-serpente (Channa spp.), frescos ou refrigerados, tilápias (Oreochromis spp.)',
      ],
    ),
    rationale:
      'Filés de tilápia (Oreochromis spp.) frescos ou refrigerados têm subposição própria na posição 03.04.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 do Capítulo 3',
        text: 'O Capítulo não compreende peixes impróprios para alimentação humana nem os preparados do Capítulo 16.',
      },
    ],
    discarded: [
      { ncm: '03046100', description: 'Tilápias (Oreochromis spp.)', reason: 'O filé não está congelado.' },
      {
        ncm: '03027100',
        description: 'Tilápias (Oreochromis spp.)',
        reason: 'O peixe está em filés, não inteiro.',
      },
    ],
    missingData: ['Temperatura de conservação'],
    sim: {
      status: 'verifying',
      confirms: openings('03043100', ['00', 'Filés de tilápia frescos ou refrigerados']),
    },
    tariff: 'not_available',
  },
  {
    ncm: '04021010',
    description:
      'Leite em pó, grânulos ou outras formas sólidas, com teor de matérias gordas não superior a 1,5 %, com um teor de arsênio, chumbo ou cobre, considerados isoladamente, inferior a 5 ppm',
    productName: 'Leite em pó desnatado',
    keywords: phrases(
      'leite em po desnatado, leite desnatado em po, leche en polvo descremada, skimmed milk powder, skim milk powder, nonfat dry milk',
    ),
    hierarchy: hierarchy(
      'I',
      [
        '04',
        'Leite e laticínios; ovos de aves; mel natural; produtos comestíveis de origem animal, não especificados nem compreendidos noutros Capítulos.',
      ],
      [
        '0402',
        'Leite e creme de leite (nata), concentrados ou adicionados de açúcar ou de outros edulcorantes.',
      ],
      [
        '040210',
        'Em pó, grânulos ou outras formas sólidas, com um teor, em peso, de matérias gordas, não superior a 1,5 %',
      ],
    ),
    rationale:
      'Leite em pó com teor de gordura não superior a 1,5 % classifica-se na subposição 0402.10; o teor de contaminantes inferior a 5 ppm define o item.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '04021090',
        description:
          'Em pó, grânulos ou outras formas sólidas, com um teor, em peso, de matérias gordas, não superior a 1,5 %, outros',
        reason: 'Teor de contaminantes abaixo de 5 ppm segundo a ficha técnica.',
      },
      {
        ncm: '04022110',
        description:
          'Em pó, grânulos ou outras formas sólidas, com um teor, em peso, de matérias gordas, superior a 1,5 %, sem adição de açúcar ou de outros edulcorantes, leite integral',
        reason: 'O leite é desnatado, não integral.',
      },
    ],
    missingData: ['Teor de matéria gorda', 'Laudo de arsênio, chumbo e cobre'],
    sim: openings('04021010', ['10', 'Em embalagens de até 2 kg'], ['90', 'Outros']),
    tariff: tariff(28, 3, null, 0, 0),
  },
  {
    ncm: '08039000',
    description:
      'Bananas, incluindo as bananas-da-terra (bananas-pão*) (plátanos*), frescas ou secas, outras',
    productName: 'Bananas frescas',
    keywords: phrases('banana, banana nanica, banana prata, banano, bananas, cavendish'),
    excludes: phrases('da terra, plantain, platano, seca, chips'),
    hierarchy: hierarchy(
      'II',
      ['08', 'Fruta; cascas de citros (citrinos) e de melões.'],
      ['0803', 'Bananas, incluindo as bananas-da-terra (bananas-pão*) (plátanos*), frescas ou secas.'],
      ['080390', 'Outras'],
    ),
    rationale:
      'Bananas de mesa frescas, que não sejam bananas-da-terra, classificam-se na subposição residual da posição 08.03.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '08031000',
        description: 'Bananas-da-terra (Bananas-pão*) (Plátanos*)',
        reason: 'Não se trata de bananas-da-terra (plátanos).',
      },
      {
        ncm: '20089900',
        description: 'Outras, incluindo as misturas, com exclusão das da subposição 2008.19, outras',
        reason: 'A fruta não foi preparada nem conservada.',
      },
    ],
    missingData: ['Variedade'],
    sim: { status: 'none' },
    tariff: tariff(10, 3, null, 0, 0),
  },
  {
    ncm: '08061000',
    description: 'Uvas frescas ou secas (passas), frescas',
    productName: 'Uvas frescas',
    keywords: phrases(
      'uva fresca, uvas de mesa, uva de mesa, uva thompson, fresh grapes, table grapes, uva, grapes',
    ),
    excludes: phrases('passa, passas, pasa, pasas, raisin, raisins, suco, jugo, juice, vinho, vino, wine'),
    hierarchy: hierarchy(
      'II',
      ['08', 'Fruta; cascas de citros (citrinos) e de melões.'],
      ['0806', 'Uvas frescas ou secas (passas).'],
      ['080610', 'Frescas'],
    ),
    rationale: 'Uvas frescas de mesa estão na posição 08.06, subposição das frescas.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      { ncm: '08062000', description: 'Secas (passas)', reason: 'As uvas não estão secas.' },
      {
        ncm: '20096100',
        description: 'Suco (sumo) de uva (incluindo os mostos de uvas), com valor Brix não superior a 30',
        reason: 'Não se trata de suco.',
      },
    ],
    missingData: ['Variedade'],
    sim: openings('08061000', ['00', 'Frescas']),
    tariff: tariff(10, 3, null, 0, 0),
  },
  {
    ncm: '09011110',
    description: 'Café não torrado, não descafeinado, em grão',
    productName: 'Café verde em grão (não torrado)',
    keywords: phrases(
      'cafe verde, cafe cru, cafe em grao cru, cafe sin tostar, cafe oro, green coffee, unroasted coffee, raw coffee, cafe arabica, cafe robusta, cafe conilon',
    ),
    excludes: phrases('torrado, tostado, roasted, moido, molido, ground, descafeinado, decaf, decaffeinated'),
    hierarchy: hierarchy(
      'II',
      ['09', 'Café, chá, mate e especiarias.'],
      [
        '0901',
        'Café, mesmo torrado ou descafeinado; cascas e películas de café; sucedâneos do café que contenham café em qualquer proporção.',
      ],
      ['090111', 'Café não torrado, não descafeinado'],
    ),
    rationale:
      'Café em grão que não passou por torra nem por descafeinação classifica-se na subposição 0901.11, item em grão.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      { ncm: '09012100', description: 'Café torrado, não descafeinado', reason: 'O café não foi torrado.' },
      {
        ncm: '09011200',
        description: 'Café não torrado, descafeinado',
        reason: 'O café não foi descafeinado.',
      },
      {
        ncm: '09011190',
        description: 'Café não torrado, não descafeinado, outros',
        reason: 'O café está em grão.',
      },
    ],
    missingData: ['Espécie (arábica ou robusta)', 'Peneira e tipo de bebida'],
    sim: openings('09011110', ['10', 'Arábica'], ['20', 'Robusta (conilon)'], ['90', 'Outros']),
    tariff: tariff(10, 3, null, 0, 0),
  },
  {
    ncm: '09012100',
    description: 'Café torrado, não descafeinado',
    productName: 'Café torrado em grãos',
    keywords: phrases(
      'cafe torrado, cafe tostado, roasted coffee, coffee roasted, cafe moido, cafe molido, ground coffee, cafe em capsula, coffee capsule, espresso, cafe',
    ),
    excludes: phrases(
      'verde, green, cru, sin tostar, nao torrado, unroasted, descafeinado, decaf, decaffeinated, soluvel, instantaneo, instant',
    ),
    hierarchy: hierarchy(
      'II',
      ['09', 'Café, chá, mate e especiarias.'],
      [
        '0901',
        'Café, mesmo torrado ou descafeinado; cascas e películas de café; sucedâneos do café que contenham café em qualquer proporção.',
      ],
      ['090121', 'Café torrado, não descafeinado'],
    ),
    rationale:
      'Café submetido a torra que conserva a cafeína: a posição 09.01 abrange o café torrado e a subposição 0901.21 o não descafeinado.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '09012200',
        description: 'Café torrado, descafeinado',
        reason: 'A descrição não indica remoção da cafeína.',
      },
      {
        ncm: '09011110',
        description: 'Café não torrado, não descafeinado, em grão',
        reason: 'O produto foi submetido a torra.',
      },
      {
        ncm: '21011110',
        description:
          'Extratos, essências e concentrados de café e preparações à base destes extratos, essências ou concentrados ou à base de café, extratos, essências e concentrados, café solúvel, mesmo descafeinado',
        reason: 'Não se trata de extrato nem de café solúvel.',
      },
    ],
    missingData: ['Apresentação (em grão, moído ou em cápsulas)', 'Peso líquido por embalagem'],
    sim: openings('09012100', ['10', 'Em grão'], ['20', 'Moído'], ['30', 'Em cápsulas ou sachês']),
    tariff: tariff(10, 3, null, 0, 0),
  },
  {
    ncm: '09030090',
    description: 'Mate, outros',
    productName: 'Erva-mate',
    keywords: phrases('erva mate, yerba mate, mate tea, chimarrao, terere'),
    excludes: phrases('cha mate torrado em saquinho'),
    hierarchy: hierarchy(
      'II',
      ['09', 'Café, chá, mate e especiarias.'],
      ['0903', 'Mate.'],
      ['090300', 'Mate'],
    ),
    rationale:
      'Erva-mate beneficiada (não simplesmente cancheada) classifica-se na posição 09.03, item residual.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 do Capítulo 9',
        text: 'As misturas de produtos das posições 09.04 a 09.10 classificam-se na posição 09.10.',
      },
    ],
    discarded: [
      {
        ncm: '09030010',
        description: 'Simplesmente cancheado',
        reason: 'A erva foi moída e beneficiada, não apenas cancheada.',
      },
      {
        ncm: '21012010',
        description:
          'Extratos, essências e concentrados de chá ou de mate e preparações à base destes extratos, essências ou concentrados ou à base de chá ou de mate, de chá',
        reason: 'Não se trata de extrato de mate.',
      },
    ],
    missingData: ['Grau de beneficiamento'],
    sim: { status: 'verifying', confirms: { status: 'none' } },
    tariff: 'not_available',
  },
  {
    ncm: '10063021',
    description:
      'Arroz semibranqueado ou branqueado, mesmo polido ou brunido (glaciado*), não parboilizado, polido ou brunido',
    productName: 'Arroz branco polido',
    keywords: phrases(
      'arroz branco, arroz polido, arroz agulhinha, arroz tipo 1, arroz blanco, arroz pulido, white rice, milled rice, polished rice, arroz',
    ),
    excludes: phrases(
      'parboilizado, parboiled, casca, paddy, integral, brown rice, quebrado, partido, broken',
    ),
    hierarchy: hierarchy(
      'II',
      ['10', 'Cereais.'],
      ['1006', 'Arroz.'],
      ['100630', 'Arroz semibranqueado ou branqueado, mesmo polido ou brunido (glaciado*)'],
    ),
    rationale: 'Arroz branqueado e polido, não parboilizado, está na subposição 1006.30.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '10063011',
        description:
          'Arroz semibranqueado ou branqueado, mesmo polido ou brunido (glaciado*), parboilizado, polido ou brunido',
        reason: 'O arroz não é parboilizado.',
      },
      {
        ncm: '10062020',
        description: 'Arroz descascado (arroz cargo ou castanho), não parboilizado',
        reason: 'O arroz foi branqueado, não apenas descascado.',
      },
      {
        ncm: '10064000',
        description: 'Arroz quebrado (Trinca de arroz*)',
        reason: 'Os grãos estão inteiros.',
      },
    ],
    missingData: ['Parboilizado ou não', 'Tipo comercial'],
    sim: openings('10063021', ['00', 'Polido ou brunido']),
    tariff: tariff(10, 3, null, 0, 0),
  },
  {
    ncm: '12019000',
    description: 'Soja, mesmo triturada, outras',
    productName: 'Soja em grão',
    keywords: phrases(
      'soja em grao, grao de soja, soja a granel, soja, soybean, soybeans, soya beans, poroto de soja, semilla de soja para industria',
    ),
    excludes: phrases(
      'semeadura, sementeira, siembra, sowing, oleo, aceite, oil, farelo, harina, meal, molho, salsa, sauce, leite, bebida',
    ),
    hierarchy: hierarchy(
      'II',
      [
        '12',
        'Sementes e frutos oleaginosos; grãos, sementes e frutos diversos; plantas industriais ou medicinais; palhas e forragens.',
      ],
      ['1201', 'Soja, mesmo triturada.'],
      ['120190', 'Outras'],
    ),
    rationale: 'Grãos de soja não destinados à semeadura estão na subposição residual da posição 12.01.',
    appliedRules: ['1', '6'],
    citedNotes: [
      { id: 'Nota 1 do Capítulo 12', text: 'A posição 12.07 não compreende a soja (posição 12.01).' },
    ],
    discarded: [
      {
        ncm: '12011000',
        description: 'Para semeadura (sementeira)',
        reason: 'Os grãos não se destinam à semeadura.',
      },
      { ncm: '23040010', description: 'Farinhas e pellets', reason: 'Não se trata de farelo.' },
    ],
    missingData: ['Destino (industrialização ou semeadura)'],
    sim: { status: 'none' },
    tariff: tariff(8, 3, null, 26, 0),
  },
  {
    ncm: '15071000',
    description: 'Óleo em bruto, mesmo degomado',
    productName: 'Óleo de soja em bruto',
    keywords: phrases(
      'oleo de soja bruto, oleo de soja em bruto, oleo de soja degomado, aceite de soja crudo, crude soybean oil, crude soy oil, oleo de soja',
    ),
    excludes: phrases('refinado, refined, refinada'),
    hierarchy: hierarchy(
      'III',
      [
        '15',
        'Gorduras e óleos animais, vegetais ou de origem microbiana e produtos da sua dissociação; gorduras alimentícias elaboradas; ceras de origem animal ou vegetal.',
      ],
      ['1507', 'Óleo de soja e respectivas frações, mesmo refinados, mas não quimicamente modificados.'],
      ['150710', 'Óleo em bruto, mesmo degomado'],
    ),
    rationale: 'Óleo de soja não refinado, mesmo degomado, classifica-se na subposição 1507.10.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '15079011',
        description: 'Outros, refinado, em recipientes com capacidade inferior ou igual a 5 l',
        reason: 'O óleo não foi refinado.',
      },
      {
        ncm: '15179090',
        description:
          'Margarina; misturas ou preparações alimentícias de gorduras ou de óleos animais, vegetais ou de origem microbiana ou de frações das diferentes gorduras ou óleos do presente Capítulo, exceto as gorduras e óleos alimentícios e respectivas frações da posição 15.16, outras',
        reason: 'Não se trata de mistura de óleos.',
      },
    ],
    missingData: ['Grau de refino'],
    sim: openings('15071000', ['00', 'Óleo em bruto, mesmo degomado']),
    tariff: tariff(10, 3, null, 24, 0),
  },
  {
    ncm: '17011400',
    description: 'Açúcares em bruto sem adição de aromatizantes ou de corantes, outros açúcares de cana',
    productName: 'Açúcar de cana bruto (VHP)',
    keywords: phrases(
      'acucar bruto, acucar vhp, acucar demerara, acucar de cana bruto, azucar crudo, raw cane sugar, raw sugar, vhp sugar, acucar',
    ),
    excludes: phrases(
      'refinado, refinada, cristal branco, beterraba, remolacha, beet, aromatizado, caramelo',
    ),
    hierarchy: hierarchy(
      'IV',
      ['17', 'Açúcares e produtos de confeitaria.'],
      ['1701', 'Açúcares de cana ou de beterraba e sacarose quimicamente pura, no estado sólido.'],
      ['170114', 'Açúcares em bruto sem adição de aromatizantes ou de corantes, outros açúcares de cana'],
    ),
    rationale:
      'Açúcar de cana em bruto, sem aromatizantes nem corantes, não abrangido pela Nota de subposição 2, vai para a subposição 1701.14.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota de subposição 1 do Capítulo 17',
        text: 'Define açúcar em bruto pelo teor de sacarose em peso, no estado seco, inferior a 99,5 graus polarimétricos.',
      },
    ],
    discarded: [
      {
        ncm: '17011300',
        description:
          'Açúcares em bruto sem adição de aromatizantes ou de corantes, açúcar de cana mencionado na Nota de subposição 2 do presente Capítulo',
        reason: 'Não é o açúcar da Nota de subposição 2 (não centrifugado).',
      },
      {
        ncm: '17019900',
        description:
          'Açúcares de cana ou de beterraba e sacarose quimicamente pura, no estado sólido, outros',
        reason: 'O açúcar não foi refinado.',
      },
      {
        ncm: '17011200',
        description: 'Açúcares em bruto sem adição de aromatizantes ou de corantes, de beterraba',
        reason: 'Não é açúcar de beterraba.',
      },
    ],
    missingData: ['Polarização (graus)'],
    sim: openings('17011400', ['00', 'Outros açúcares de cana']),
    tariff: tariff(16, 3, null, 0, 0),
  },
  {
    ncm: '22021000',
    description:
      'Águas, incluindo as águas minerais e as águas gaseificadas, adicionadas de açúcar ou de outros edulcorantes ou aromatizadas',
    productName: 'Refrigerante',
    keywords: phrases(
      'refrigerante, refrigerante de cola, agua com gas aromatizada, gaseosa, refresco gasificado, soft drink, soda drink, cola drink, agua saborizada, flavoured water',
    ),
    excludes: phrases('sem acucar e sem aromatizantes, cerveja, beer, suco de fruta puro, energetico'),
    hierarchy: hierarchy(
      'IV',
      ['22', 'Bebidas, líquidos alcoólicos e vinagres.'],
      [
        '2202',
        'Águas, incluindo as águas minerais e as águas gaseificadas, adicionadas de açúcar ou de outros edulcorantes ou aromatizadas e outras bebidas não alcoólicas, exceto sucos (sumos) de fruta ou de produtos hortícolas da posição 20.09.',
      ],
      [
        '220210',
        'Águas, incluindo as águas minerais e as águas gaseificadas, adicionadas de açúcar ou de outros edulcorantes ou aromatizadas',
      ],
    ),
    rationale:
      'Águas adicionadas de açúcar ou aromatizadas, como os refrigerantes, estão na subposição 2202.10.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 3 do Capítulo 22',
        text: 'Consideram-se bebidas não alcoólicas as de teor alcoólico, em volume, não superior a 0,5 % vol.',
      },
    ],
    discarded: [
      {
        ncm: '22011000',
        description: 'Águas minerais e águas gaseificadas',
        reason: 'A água contém açúcar ou aromatizantes.',
      },
      {
        ncm: '22029900',
        description:
          'Águas, incluindo as águas minerais e as águas gaseificadas, adicionadas de açúcar ou de outros edulcorantes ou aromatizadas e outras bebidas não alcoólicas, exceto sucos (sumos) de fruta ou de produtos hortícolas da posição 20.09, outras',
        reason: 'É água aromatizada, não outra bebida não alcoólica.',
      },
    ],
    missingData: ['Teor de açúcar', 'Volume da embalagem'],
    sim: openings('22021000', ['10', 'Em latas'], ['20', 'Em garrafas PET'], ['90', 'Outras']),
    tariff: tariff(20, 3, null, 0, 0),
  },
  {
    ncm: '22030000',
    description: 'Cervejas de malte',
    productName: 'Cerveja de malte',
    keywords: phrases('cerveja, cerveja de malte, cerveza, beer, lager, pilsen, pilsner, ipa, chope, chopp'),
    excludes: phrases('sem alcool, sin alcohol, alcohol free, non alcoholic, zero alcool'),
    hierarchy: hierarchy(
      'IV',
      ['22', 'Bebidas, líquidos alcoólicos e vinagres.'],
      ['2203', 'Cervejas de malte.'],
      ['220300', 'Cervejas de malte'],
    ),
    rationale: 'Cerveja fabricada a partir de malte classifica-se na posição 22.03, sem desdobramentos.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 3 do Capítulo 22',
        text: 'Bebidas com teor alcoólico superior a 0,5 % vol não são bebidas não alcoólicas.',
      },
    ],
    discarded: [
      { ncm: '22029100', description: 'Outras, cerveja sem álcool', reason: 'A cerveja contém álcool.' },
      {
        ncm: '22060090',
        description:
          'Outras bebidas fermentadas (por exemplo, sidra, perada, hidromel, saquê); misturas de bebidas fermentadas e misturas de bebidas fermentadas com bebidas não alcoólicas, não especificadas nem compreendidas noutras posições, outras',
        reason: 'É bebida fermentada de malte, não de frutas.',
      },
    ],
    missingData: ['Teor alcoólico', 'Tipo de embalagem'],
    sim: openings('22030000', ['10', 'Em garrafas'], ['20', 'Em latas'], ['30', 'Em barris']),
    tariff: tariff(20, 0, null, 0, 0),
  },
  {
    ncm: '22042100',
    description:
      'Outros vinhos; mostos de uvas cuja fermentação tenha sido impedida ou interrompida por adição de álcool, em recipientes de capacidade não superior a 2 l',
    productName: 'Vinho tinto em garrafa',
    keywords: phrases(
      'vinho tinto, vinho branco, vinho rose, vinho fino, vino tinto, vino blanco, red wine, white wine, malbec, cabernet, merlot, tannat, vinho, vino, wine',
    ),
    excludes: phrases(
      'espumante, espumoso, sparkling, champagne, champanha, prosecco, granel, bag in box, 5 l, vinagre, vinagre de vinho',
    ),
    hierarchy: hierarchy(
      'IV',
      ['22', 'Bebidas, líquidos alcoólicos e vinagres.'],
      [
        '2204',
        'Vinhos de uvas frescas, incluindo os vinhos enriquecidos com álcool; mostos de uvas, excluindo os da posição 20.09.',
      ],
      [
        '220421',
        'Outros vinhos; mostos de uvas cuja fermentação tenha sido impedida ou interrompida por adição de álcool, em recipientes de capacidade não superior a 2 l',
      ],
    ),
    rationale: 'Vinho tranquilo em recipientes de até 2 litros classifica-se na subposição 2204.21.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '22041090',
        description: 'Vinhos espumantes e vinhos espumosos, outros',
        reason: 'O vinho não é espumante.',
      },
      {
        ncm: '22042211',
        description:
          'Em recipientes de capacidade superior a 2 l, mas não superior a 10 l, vinhos, em recipientes de capacidade não superior a 5 l',
        reason: 'O recipiente não excede 2 litros.',
      },
      { ncm: '22060010', description: 'Sidra', reason: 'É vinho de uvas, não sidra.' },
    ],
    missingData: ['Capacidade do recipiente', 'Teor alcoólico'],
    sim: openings('22042100', ['10', 'Tinto'], ['20', 'Branco'], ['30', 'Rosé']),
    tariff: tariff(20, 3, 27, 0, 2),
  },
  {
    ncm: '25232910',
    description: 'Cimentos Portland, outros, cimento comum',
    productName: 'Cimento Portland comum',
    keywords: phrases(
      'cimento portland, cimento cp, cemento portland, portland cement, cimento, cemento, cement',
    ),
    excludes: phrases('branco, blanco, white, clinker, aluminoso, cola'),
    hierarchy: hierarchy(
      'V',
      ['25', 'Sal; enxofre; terras e pedras; gesso, cal e cimento.'],
      [
        '2523',
        'Cimentos hidráulicos (incluindo os cimentos não pulverizados, denominados clinkers), mesmo corados.',
      ],
      ['252329', 'Cimentos Portland, outros'],
    ),
    rationale:
      'Cimento Portland cinza, de uso comum, classifica-se na subposição 2523.29, item cimento comum.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '25232100',
        description: 'Cimentos Portland, cimentos brancos, mesmo corados artificialmente',
        reason: 'O cimento não é branco.',
      },
      {
        ncm: '25231000',
        description: 'Cimentos não pulverizados, denominados clinkers',
        reason: 'O produto está pulverizado, não é clínquer.',
      },
    ],
    missingData: ['Tipo (CP II, CP V etc.)'],
    sim: { status: 'none' },
    tariff: tariff(4, 3, null, 0, 0),
  },
  {
    ncm: '29051100',
    description: 'Monoálcoois saturados, metanol (álcool metílico)',
    productName: 'Metanol',
    keywords: phrases('metanol, alcool metilico, alcohol metilico, methanol, methyl alcohol'),
    hierarchy: hierarchy(
      'VI',
      ['29', 'Produtos químicos orgânicos.'],
      ['2905', 'Álcoois acíclicos e seus derivados halogenados, sulfonados, nitrados ou nitrosados.'],
      ['290511', 'Monoálcoois saturados, metanol (álcool metílico)'],
    ),
    rationale:
      'Metanol é composto orgânico de constituição química definida do Capítulo 29, monoálcool saturado.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 a) do Capítulo 29',
        text: 'O Capítulo compreende os compostos orgânicos de constituição química definida apresentados isoladamente.',
      },
    ],
    discarded: [
      {
        ncm: '29051210',
        description:
          'Monoálcoois saturados, propan-1-ol (álcool propílico) e propan-2-ol (álcool isopropílico), álcool propílico',
        reason: 'Não é álcool propílico.',
      },
      {
        ncm: '22071090',
        description:
          'Álcool etílico não desnaturado, com um teor alcoólico, em volume, igual ou superior a 80 % vol, outros',
        reason: 'Não é álcool etílico.',
      },
    ],
    missingData: ['Grau de pureza'],
    sim: openings('29051100', ['00', 'Metanol']),
    tariff: tariff(12, 3, null, 0, 0),
  },
  {
    ncm: '31021010',
    description:
      'Ureia, mesmo em solução aquosa, que contenha, em peso, mais de 45 % de nitrogênio (azoto), calculado sobre o produto anidro no estado seco',
    productName: 'Ureia fertilizante',
    keywords: phrases(
      'ureia, ureia agricola, ureia granulada, urea, urea granulada, urea fertilizer, granular urea, prilled urea',
    ),
    excludes: phrases('pecuaria, racao, feed grade, solucao, arla, adblue, def'),
    hierarchy: hierarchy(
      'VI',
      ['31', 'Adubos (fertilizantes).'],
      ['3102', 'Adubos (fertilizantes) minerais ou químicos, nitrogenados (azotados).'],
      ['310210', 'Ureia, mesmo em solução aquosa'],
    ),
    rationale: 'Ureia com mais de 45 % de nitrogênio, usada como adubo, classifica-se na subposição 3102.10.',
    appliedRules: ['1', '6'],
    citedNotes: [{ id: 'Nota 2 do Capítulo 31', text: 'A posição 31.02 compreende a ureia, mesmo pura.' }],
    discarded: [
      {
        ncm: '31021090',
        description: 'Ureia, mesmo em solução aquosa, outra',
        reason: 'O teor de nitrogênio supera 45 %.',
      },
      {
        ncm: '31028000',
        description: 'Misturas de ureia com nitrato de amônio em soluções aquosas ou amoniacais',
        reason: 'Não é mistura com nitrato de amônio.',
      },
    ],
    missingData: ['Teor de nitrogênio'],
    sim: openings('31021010', ['00', 'Ureia com mais de 45 % de N']),
    tariff: tariff(0, 0, 4, 0, 0),
  },
  {
    ncm: '33030010',
    description: 'Perfumes (extratos)',
    productName: 'Perfume (extrato)',
    keywords: phrases(
      'perfume, extrato de perfume, parfum, eau de parfum, perfume extract, fragrancia, fragrance',
    ),
    excludes: phrases('colonia, cologne, eau de toilette, ambiente, ambientador, room'),
    hierarchy: hierarchy(
      'VI',
      [
        '33',
        'Óleos essenciais e resinoides; produtos de perfumaria ou de toucador preparados e preparações cosméticas.',
      ],
      ['3303', 'Perfumes e águas-de-colônia.'],
      ['330300', 'Perfumes e águas-de-colônia'],
    ),
    rationale: 'Perfume acondicionado para venda a retalho está na posição 33.03, item dos extratos.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 3 do Capítulo 33',
        text: 'As posições 33.03 a 33.07 aplicam-se aos produtos próprios para essas utilizações, acondicionados para venda a retalho.',
      },
    ],
    discarded: [
      { ncm: '33030020', description: 'Águas-de-colônia', reason: 'Não é água-de-colônia.' },
      {
        ncm: '33074900',
        description:
          'Preparações para perfumar ou para desodorizar ambientes, incluindo as preparações odoríferas para cerimônias religiosas, outras',
        reason: 'Não é preparação para perfumar ambientes.',
      },
    ],
    missingData: ['Concentração de essência'],
    sim: openings('33030010', ['10', 'Em frascos de até 100 ml'], ['90', 'Outros']),
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '33049910',
    description:
      'Produtos de beleza e preparações para cuidados da pele, outros, cremes de beleza e cremes nutritivos; loções tônicas',
    productName: 'Creme hidratante facial',
    keywords: phrases(
      'creme hidratante, creme facial, creme de beleza, creme anti idade, locao tonica, crema hidratante, crema facial, moisturizing cream, face cream, moisturizer, body lotion, locao corporal',
    ),
    excludes: phrases(
      'medicamento, medicinal, pomada, antisolar, protetor solar, sunscreen, maquiagem, batom, labios',
    ),
    hierarchy: hierarchy(
      'VI',
      [
        '33',
        'Óleos essenciais e resinoides; produtos de perfumaria ou de toucador preparados e preparações cosméticas.',
      ],
      [
        '3304',
        'Produtos de beleza ou de maquiagem preparados e preparações para conservação ou cuidados da pele (exceto medicamentos), incluindo as preparações antissolares e os bronzeadores; preparações para manicuros e pedicuros.',
      ],
      ['330499', 'Outros, outros'],
    ),
    rationale:
      'Cremes de beleza e nutritivos para a pele, sem propriedades medicamentosas, estão na posição 33.04, item 3304.99.10.',
    appliedRules: ['1', '6'],
    citedNotes: [
      { id: 'Nota 3 do Capítulo 33', text: 'Aplica-se a produtos acondicionados para venda a retalho.' },
    ],
    discarded: [
      {
        ncm: '33049990',
        description:
          'Produtos de beleza ou de maquiagem preparados e preparações para conservação ou cuidados da pele (exceto medicamentos), incluindo as preparações antissolares e os bronzeadores; preparações para manicuros e pedicuros, outros',
        reason: 'O produto é creme de beleza, com item próprio.',
      },
      {
        ncm: '30049099',
        description:
          'Medicamentos (exceto os produtos das posições 30.02, 30.05 ou 30.06) constituídos por produtos misturados ou não misturados, preparados para fins terapêuticos ou profiláticos, apresentados em doses (incluindo os destinados a serem administrados por via percutânea) ou acondicionados para venda a retalho, outros',
        reason: 'O produto não tem finalidade terapêutica.',
      },
      {
        ncm: '33041000',
        description: 'Produtos de maquiagem para os lábios',
        reason: 'Não é maquiagem para os lábios.',
      },
    ],
    missingData: ['Finalidade declarada na rotulagem', 'Volume por embalagem'],
    sim: {
      status: 'verifying',
      confirms: openings(
        '33049910',
        ['10', 'Cremes de beleza e cremes nutritivos'],
        ['20', 'Loções tônicas'],
      ),
    },
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '33051000',
    description: 'Xampus',
    productName: 'Xampu',
    keywords: phrases('xampu, shampoo, champu, champo, shampoo anticaspa'),
    excludes: phrases('pet, cao, veterinario, automotivo, carro'),
    hierarchy: hierarchy(
      'VI',
      [
        '33',
        'Óleos essenciais e resinoides; produtos de perfumaria ou de toucador preparados e preparações cosméticas.',
      ],
      ['3305', 'Preparações capilares.'],
      ['330510', 'Xampus'],
    ),
    rationale: 'Xampus para o cabelo têm subposição própria na posição 33.05 (preparações capilares).',
    appliedRules: ['1', '6'],
    citedNotes: [
      { id: 'Nota 3 do Capítulo 33', text: 'Aplica-se a produtos acondicionados para venda a retalho.' },
    ],
    discarded: [
      {
        ncm: '33059000',
        description: 'Preparações capilares, outras',
        reason: 'O produto é xampu, com subposição própria.',
      },
      {
        ncm: '34013000',
        description:
          'Produtos e preparações orgânicos tensoativos para lavagem da pele, sob a forma de líquido ou de creme, acondicionados para venda a retalho, mesmo que contenham sabão',
        reason: 'Não é produto orgânico tensoativo para lavagem da pele.',
      },
    ],
    missingData: ['Volume por embalagem'],
    sim: openings('33051000', ['00', 'Xampus']),
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '39172100',
    description: 'Tubos rígidos, de polímeros de etileno',
    productName: 'Tubo rígido de polietileno',
    keywords: phrases(
      'tubo de polietileno, tubo pead, tubo de pead, tubo pe rigido, cano de polietileno, tubo de polietileno de alta densidade, tubo de polietileno rigido, caneria de polietileno, hdpe pipe, polyethylene pipe, pe pipe',
    ),
    excludes: phrases('flexivel, mangueira, manguera, hose, pvc, polipropileno, conexao, cotovelo'),
    hierarchy: hierarchy(
      'VII',
      ['39', 'Plástico e suas obras.'],
      ['3917', 'Tubos e seus acessórios (por exemplo, juntas, cotovelos, flanges, uniões), de plástico.'],
      ['391721', 'Tubos rígidos, de polímeros de etileno'],
    ),
    rationale: 'Tubos rígidos de polímeros de etileno estão na subposição 3917.21.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 8 do Capítulo 39',
        text: 'Tubos: artigos ocos, produtos intermediários ou acabados, com seção transversal constante.',
      },
    ],
    discarded: [
      {
        ncm: '39172300',
        description: 'Tubos rígidos, de polímeros de cloreto de vinila',
        reason: 'O tubo não é de PVC.',
      },
      { ncm: '39173900', description: 'Outros tubos, outros', reason: 'O tubo é rígido.' },
      { ncm: '39174090', description: 'Acessórios, outros', reason: 'Não é acessório.' },
    ],
    missingData: ['Diâmetro e pressão nominal'],
    sim: openings('39172100', ['00', 'De polímeros de etileno']),
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '39232190',
    description: 'Sacos de quaisquer dimensões, bolsas e cartuchos, de polímeros de etileno, outros',
    productName: 'Sacos plásticos de polietileno',
    keywords: phrases(
      'saco plastico, sacola plastica, saco de polietileno, sacos de polietileno, bolsa plastica, bolsa de polietileno, plastic bag, polyethylene bag, poly bag, sacola',
    ),
    excludes: phrases('lixo, basura, garbage, polipropileno, rafia, papel, tecido, couro'),
    hierarchy: hierarchy(
      'VII',
      ['39', 'Plástico e suas obras.'],
      [
        '3923',
        'Artigos de transporte ou de embalagem, de plástico; rolhas, tampas, cápsulas e outros dispositivos para fechar recipientes, de plástico.',
      ],
      ['392321', 'Sacos de quaisquer dimensões, bolsas e cartuchos, de polímeros de etileno'],
    ),
    rationale:
      'Sacos de polímeros de etileno para embalagem estão na subposição 3923.21; a capacidade superior a 1.000 cm³ define o item.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '39232110',
        description:
          'Sacos de quaisquer dimensões, bolsas e cartuchos, de polímeros de etileno, de capacidade inferior ou igual a 1.000 cm3',
        reason: 'A capacidade supera 1.000 cm³.',
      },
      {
        ncm: '39232990',
        description: 'Sacos de quaisquer dimensões, bolsas e cartuchos, de outro plástico, outros',
        reason: 'O plástico é polietileno.',
      },
      {
        ncm: '63053390',
        description:
          'De matérias têxteis sintéticas ou artificiais, outros, obtidos a partir de lâminas ou formas semelhantes de polietileno ou de polipropileno, outros',
        reason: 'Não é de tiras têxteis.',
      },
    ],
    missingData: ['Capacidade', 'Espessura do filme'],
    sim: openings('39232190', ['10', 'Sacolas com alças'], ['90', 'Outros']),
    tariff: tariff(18, 3, 20, 0, 0),
  },
  {
    ncm: '40111000',
    description:
      'Pneumáticos novos, de borracha, do tipo utilizado em automóveis de passageiros (incluindo os veículos de uso misto (station wagons) e os automóveis de corrida)',
    productName: 'Pneu novo para automóvel',
    keywords: phrases(
      'pneu novo, pneu de automovel, pneu para automovel, pneu para carro, pneu radial, neumatico para auto, neumatico nuevo, passenger car tyre, passenger car tire, car tyre, car tire, pneu, pneumatico, neumatico, tyre, tire',
    ),
    excludes: phrases(
      'caminhao, caminhoes, onibus, camion, camiones, truck, bus, moto, motocicleta, bicicleta, bicycle, agricola, trator, recauchutado, usado, camara de ar',
    ),
    hierarchy: hierarchy(
      'VII',
      ['40', 'Borracha e suas obras.'],
      ['4011', 'Pneumáticos novos, de borracha.'],
      [
        '401110',
        'Do tipo utilizado em automóveis de passageiros (incluindo os veículos de uso misto (station wagons) e os automóveis de corrida)',
      ],
    ),
    rationale:
      'Pneumáticos novos de borracha do tipo usado em automóveis de passageiros têm subposição própria na posição 40.11.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '40112090',
        description: 'Do tipo utilizado em ônibus (autocarros) ou caminhões, outros',
        reason: 'Não é pneu de ônibus ou caminhão.',
      },
      {
        ncm: '40114000',
        description: 'Do tipo utilizado em motocicletas',
        reason: 'Não é pneu de motocicleta.',
      },
      { ncm: '40122000', description: 'Pneumáticos usados', reason: 'O pneu é novo, não usado.' },
    ],
    missingData: ['Medida (largura, série, aro)', 'Índice de carga'],
    sim: openings(
      '40111000',
      ['10', 'Radiais, aro até 16'],
      ['20', 'Radiais, aro superior a 16'],
      ['90', 'Outros'],
    ),
    tariff: tariff(16, 3, null, 0, 0),
  },
  {
    ncm: '40112090',
    description:
      'Pneumáticos novos, de borracha, do tipo utilizado em ônibus (autocarros) ou caminhões, outros',
    productName: 'Pneu novo para caminhão',
    keywords: phrases(
      'pneu de caminhao, pneu para caminhao, pneu de onibus, pneu para onibus, pneu de carga, neumatico para camion, neumatico de camion, truck tyre, truck tire, bus tyre, bus tire',
    ),
    excludes: phrases('11 00 24, recauchutado, usado'),
    hierarchy: hierarchy(
      'VII',
      ['40', 'Borracha e suas obras.'],
      ['4011', 'Pneumáticos novos, de borracha.'],
      ['401120', 'Do tipo utilizado em ônibus (autocarros) ou caminhões'],
    ),
    rationale:
      'Pneumáticos novos do tipo usado em ônibus ou caminhões classificam-se na subposição 4011.20; a medida define o item.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '40112010',
        description: 'Do tipo utilizado em ônibus (autocarros) ou caminhões, de medida 11,00-24',
        reason: 'A medida não é 11,00-24.',
      },
      {
        ncm: '40111000',
        description:
          'Do tipo utilizado em automóveis de passageiros (incluindo os veículos de uso misto (station wagons) e os automóveis de corrida)',
        reason: 'Não é pneu de automóvel de passageiros.',
      },
    ],
    missingData: ['Medida', 'Índice de carga'],
    sim: openings('40112090', ['00', 'Outros']),
    tariff: tariff(16, 3, null, 0, 0),
  },
  {
    ncm: '40169300',
    description: 'Outras obras de borracha vulcanizada não endurecida, juntas, gaxetas e semelhantes',
    productName: 'Junta de vedação de borracha',
    keywords: phrases(
      'junta de borracha, juntas de borracha, anel de vedacao, o ring, oring, gaxeta, retentor de borracha, junta torica, empaquetadura de caucho, rubber gasket, rubber seal, gasket, junta',
    ),
    excludes: phrases('metal, metalica, metaloplastica, papelao, cortica'),
    hierarchy: hierarchy(
      'VII',
      ['40', 'Borracha e suas obras.'],
      ['4016', 'Outras obras de borracha vulcanizada não endurecida.'],
      ['401693', 'Outras, juntas, gaxetas e semelhantes'],
    ),
    rationale:
      'Juntas, gaxetas e semelhantes de borracha vulcanizada não endurecida estão na subposição 4016.93, qualquer que seja a máquina a que se destinam.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 g) da Seção XVI',
        text: 'A Seção XVI não compreende as obras de borracha vulcanizada não endurecida (posição 40.16).',
      },
    ],
    discarded: [
      { ncm: '84841000', description: 'Juntas metaloplásticas', reason: 'A junta não é metaloplástica.' },
      {
        ncm: '40169990',
        description: 'Outras obras de borracha vulcanizada não endurecida, outras',
        reason: 'Existe subposição específica para juntas.',
      },
      {
        ncm: '84879000',
        description:
          'Partes de máquinas ou de aparelhos, não especificadas nem compreendidas noutras posições do presente Capítulo, que não contenham conexões elétricas, partes isoladas eletricamente, bobinas, contatos nem quaisquer outros elementos com características elétricas, outras',
        reason: 'A Nota da Seção XVI exclui as obras de borracha.',
      },
    ],
    missingData: ['Tipo de borracha', 'Aplicação'],
    sim: { status: 'none' },
    tariff: 'no_data',
  },
  {
    ncm: '42022100',
    description:
      'Bolsas, mesmo com tiracolo, incluindo as que não possuam alças (pegas), com a superfície exterior de couro natural ou reconstituído',
    productName: 'Bolsa de couro',
    keywords: phrases(
      'bolsa de couro, bolsa feminina de couro, bolsa a tiracolo de couro, cartera de cuero, bolso de cuero, leather handbag, leather bag, handbag, bolsa feminina',
    ),
    excludes: phrases(
      'plastico, sintetico, tecido, nylon, viagem, mala, maleta, carteira de bolso, wallet, billetera',
    ),
    hierarchy: hierarchy(
      'VIII',
      [
        '42',
        'Obras de couro; artigos de correeiro ou de seleiro; artigos de viagem, bolsas e artigos semelhantes; obras de tripa.',
      ],
      [
        '4202',
        'Baús (arcas) para viagem, malas e maletas, incluindo as maletas de toucador e as maletas e pastas de documentos e para estudantes, os estojos para óculos, binóculos, câmeras fotográficas e de filmar, instrumentos musicais, armas e artigos semelhantes; sacos de viagem, sacos isolantes para gêneros alimentícios e bebidas, bolsas de toucador, mochilas, bolsas, sacolas (sacos para compras), carteiras, porta-moedas, porta-cartões, cigarreiras, tabaqueiras, estojos para ferramentas, bolsas e sacos para artigos de esporte, estojos para frascos ou para joias, caixas para pó de arroz, estojos para ourivesaria e artigos semelhantes, de couro natural ou reconstituído, de folhas de plástico, de matérias têxteis, de fibra vulcanizada ou de cartão, ou recobertos, no todo ou na maior parte, dessas mesmas matérias ou de papel.',
      ],
      [
        '420221',
        'Bolsas, mesmo com tiracolo, incluindo as que não possuam alças (pegas), com a superfície exterior de couro natural ou reconstituído',
      ],
    ),
    rationale:
      'Bolsas com a superfície exterior de couro natural ou reconstituído estão na subposição 4202.21.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 3 a) do Capítulo 42',
        text: 'Com superfície exterior de couro compreende as bolsas revestidas de couro.',
      },
    ],
    discarded: [
      {
        ncm: '42022220',
        description:
          'Bolsas, mesmo com tiracolo, incluindo as que não possuam alças (pegas), com a superfície exterior de folhas de plástico ou de matérias têxteis, de matérias têxteis',
        reason: 'A superfície exterior não é de matéria têxtil.',
      },
      {
        ncm: '42023100',
        description:
          'Artigos do tipo normalmente levado nos bolsos ou em bolsas, com a superfície exterior de couro natural ou reconstituído',
        reason: 'Não é artigo de bolso.',
      },
      {
        ncm: '42021100',
        description:
          'Baús (arcas) para viagem, malas e maletas, incluindo as maletas de toucador e as maletas e pastas de documentos e para estudantes, e artigos semelhantes, com a superfície exterior de couro natural ou reconstituído',
        reason: 'Não é mala nem maleta.',
      },
    ],
    missingData: ['Material da superfície exterior'],
    sim: openings('42022100', ['00', 'Com superfície exterior de couro']),
    tariff: tariff(20, 3, null, 0, 0),
  },
  {
    ncm: '44071100',
    description: 'De coníferas, de pinheiro (Pinus spp.)',
    productName: 'Madeira serrada de pinus',
    keywords: phrases(
      'madeira serrada de pinus, tabua de pinus, madeira de pinus, pinus serrado, madera aserrada de pino, tabla de pino, sawn pine, pine lumber, pine timber, pinus',
    ),
    excludes: phrases('compensado, mdf, aglomerado, tora, tronco, pallet'),
    hierarchy: hierarchy(
      'IX',
      ['44', 'Madeira, carvão vegetal e obras de madeira.'],
      [
        '4407',
        'Madeira serrada ou fendida longitudinalmente, cortada transversalmente ou desenrolada, mesmo aplainada, lixada ou unida pelas extremidades, de espessura superior a 6 mm.',
      ],
      ['440711', 'De coníferas, de pinheiro (Pinus spp.)'],
    ),
    rationale:
      'Madeira de pinheiro serrada longitudinalmente, de espessura superior a 6 mm, classifica-se na subposição 4407.11.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '44071900',
        description: 'De coníferas, outras',
        reason: 'A madeira é de pinheiro (Pinus spp.).',
      },
      {
        ncm: '44039900',
        description: 'Madeira em bruto, mesmo descascada, desalburnada ou esquadriada, outras',
        reason: 'A madeira está serrada, não em bruto.',
      },
      {
        ncm: '44123900',
        description: 'Outras, com ambas as camadas exteriores de madeira de coníferas',
        reason: 'Não é madeira compensada.',
      },
    ],
    missingData: ['Espessura', 'Tratamento'],
    sim: openings('44071100', ['10', 'Aplainada'], ['90', 'Outras']),
    tariff: tariff(10, 3, null, 0, 0),
  },
  {
    ncm: '48025610',
    description:
      'Papel não revestido para escrita e impressão, de 40 a 150 g/m2, em folhas, em que nenhum lado exceda 360 mm, quando não dobradas',
    productName: 'Papel sulfite A4',
    keywords: phrases(
      'papel a4, papel sulfite, papel oficio, papel de impressao, resma de papel, papel bond, papel para impresora, copy paper, printing paper, office paper, a4 paper, resma',
    ),
    excludes: phrases('fotografico, adesivo, autocopiativo, termico, kraft, higienico, toalha'),
    hierarchy: hierarchy(
      'X',
      ['48', 'Papel e cartão; obras de pasta de celulose, papel ou de cartão.'],
      [
        '4802',
        'Papel e cartão, não revestidos, do tipo utilizado para escrita, impressão ou outros fins gráficos, e papel e cartão para fabricar cartões ou tiras perfurados, não perfurados, em rolos ou em folhas de forma quadrada ou retangular, de qualquer dimensão, com exclusão do papel das posições 48.01 ou 48.03; papel e cartão feitos à mão (folha a folha).',
      ],
      [
        '480256',
        'Outro papel e cartão, sem fibras obtidas por processo mecânico ou químico-mecânico ou em que a percentagem destas fibras não seja superior a 10 %, em peso, do conteúdo total de fibras, de peso igual ou superior a 40 g/m2, mas não superior a 150 g/m2, em folhas em que um lado não seja superior a 435 mm e o outro não seja superior a 297 mm, quando não dobradas',
      ],
    ),
    rationale:
      'Papel não revestido para escrita e impressão, em folhas de 210 x 297 mm e gramatura entre 40 e 150 g/m², está na subposição 4802.56, com nenhum lado superior a 360 mm.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 5 do Capítulo 48',
        text: 'Define o papel da posição 48.02 pelo teor de fibras e pelas características de impressão.',
      },
    ],
    discarded: [
      {
        ncm: '48025699',
        description:
          'De peso igual ou superior a 40 g/m2, mas não superior a 150 g/m2, em folhas em que um lado não seja superior a 435 mm e o outro não seja superior a 297 mm, quando não dobradas, outros',
        reason: 'As folhas não excedem 360 mm em nenhum lado.',
      },
      {
        ncm: '48026210',
        description:
          'Em folhas em que um lado não seja superior a 435 mm e o outro não seja superior a 297 mm, quando não dobradas, em que nenhum lado exceda 360 mm, quando não dobradas',
        reason: 'O papel não contém mais de 10 % de fibras mecânicas.',
      },
      { ncm: '48101399', description: 'Em rolos, outros', reason: 'O papel não é revestido.' },
    ],
    missingData: ['Gramatura', 'Formato das folhas'],
    sim: openings('48025610', ['00', 'Em folhas A4']),
    tariff: tariff(14, 3, null, 0, 0),
  },
  {
    ncm: '61091000',
    description:
      'Camisetas (T-shirts), camisetas interiores (camisolas interiores*), e artigos semelhantes, de malha, de algodão',
    productName: 'Camiseta de malha de algodão',
    keywords: phrases(
      'camiseta de algodao, camiseta, camisa de malha, t shirt, tshirt, tee shirt, cotton t shirt, remera de algodon, remera, playera, polera, camiseta basica',
    ),
    excludes: phrases(
      'poliester, sintetica, polyester, tecido plano, social, manga longa de tecido, regata de banho',
    ),
    hierarchy: hierarchy(
      'XI',
      ['61', 'Vestuário e seus acessórios, de malha.'],
      [
        '6109',
        'Camisetas (T-shirts), camisetas interiores (camisolas interiores*), e artigos semelhantes, de malha.',
      ],
      ['610910', 'De algodão'],
    ),
    rationale: 'Camisetas de malha de algodão estão na posição 61.09, subposição de algodão.',
    appliedRules: ['1', '6'],
    citedNotes: [
      { id: 'Nota 1 do Capítulo 61', text: 'O Capítulo compreende apenas os artigos de vestuário de malha.' },
      {
        id: 'Nota de subposição 2 da Seção XI',
        text: 'O produto classifica-se pela matéria têxtil predominante em peso.',
      },
    ],
    discarded: [
      {
        ncm: '61099000',
        description: 'De outras matérias têxteis',
        reason: 'A matéria têxtil predominante é o algodão.',
      },
      {
        ncm: '62052000',
        description: 'Camisas de uso masculino, de algodão',
        reason: 'A peça é de malha, não de tecido plano.',
      },
      {
        ncm: '61051000',
        description: 'Camisas de malha, de uso masculino, de algodão',
        reason: 'Não é camisa de uso masculino com abertura.',
      },
    ],
    missingData: ['Composição têxtil (%)', 'Tipo de malha'],
    sim: openings('61091000', ['00', 'De algodão']),
    tariff: tariff(35, 3, null, 0, 0),
  },
  {
    ncm: '62034200',
    description: 'Calças, jardineiras, bermudas e shorts (calções), de algodão',
    productName: 'Calça jeans masculina de algodão',
    keywords: phrases(
      'calca jeans, calca de algodao masculina, calca masculina, bermuda jeans masculina, jeans, pantalon de jean, pantalon vaquero, men trousers, mens jeans, denim trousers, denim',
    ),
    excludes: phrases('feminina, mujer, women, ladies, malha, knit, poliester, sintetica'),
    hierarchy: hierarchy(
      'XI',
      ['62', 'Vestuário e seus acessórios, exceto de malha.'],
      [
        '6203',
        'Ternos (Fatos*), conjuntos, paletós (casacos*), calças, jardineiras, bermudas e shorts (calções) (exceto de banho), de uso masculino.',
      ],
      ['620342', 'Calças, jardineiras, bermudas e shorts (calções), de algodão'],
    ),
    rationale: 'Calças de tecido plano de algodão, de uso masculino, estão na subposição 6203.42.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 do Capítulo 62',
        text: 'O Capítulo compreende os artigos de vestuário de tecido, exceto de malha.',
      },
      {
        id: 'Nota 9 do Capítulo 62',
        text: 'Vestuário com fechamento da esquerda sobre a direita, à frente, é de uso masculino.',
      },
    ],
    discarded: [
      {
        ncm: '62046200',
        description: 'Calças, jardineiras, bermudas e shorts (calções), de algodão',
        reason: 'A peça é de uso masculino.',
      },
      {
        ncm: '61034200',
        description: 'Calças, jardineiras, bermudas e shorts (calções), de algodão',
        reason: 'A peça é de tecido plano, não de malha.',
      },
      {
        ncm: '62034300',
        description: 'Calças, jardineiras, bermudas e shorts (calções), de fibras sintéticas',
        reason: 'A matéria têxtil é algodão.',
      },
    ],
    missingData: ['Composição têxtil (%)', 'Uso masculino ou feminino'],
    sim: openings('62034200', ['10', 'De tecido denim'], ['90', 'Outras']),
    tariff: tariff(35, 3, null, 0, 0),
  },
  {
    ncm: '64039990',
    description: 'Calçado com parte superior de couro natural, outro calçado, outro',
    productName: 'Sapato social de couro',
    keywords: phrases(
      'sapato de couro, sapato social, calcado de couro, zapato de cuero, leather shoe, leather shoes, oxford shoes, mocassim de couro, sapatos',
    ),
    excludes: phrases('tornozelo, bota, ankle, boot, sola de couro, biqueira, esporte, tenis'),
    hierarchy: hierarchy(
      'XII',
      ['64', 'Calçado, polainas e artigos semelhantes; suas partes.'],
      [
        '6403',
        'Calçado com sola exterior de borracha, plástico, couro natural ou reconstituído e parte superior de couro natural.',
      ],
      ['640399', 'Outro calçado, outro'],
    ),
    rationale:
      'Calçado com parte superior de couro natural e sola de borracha ou plástico, que não cobre o tornozelo, vai para a subposição 6403.99.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 4 a) do Capítulo 64',
        text: 'A matéria da parte superior é a que tem a maior superfície exterior.',
      },
    ],
    discarded: [
      {
        ncm: '64035990',
        description: 'Outro calçado, com sola exterior de couro natural, outro',
        reason: 'A sola exterior não é de couro.',
      },
      {
        ncm: '64039190',
        description: 'Outro calçado, cobrindo o tornozelo, outro',
        reason: 'O calçado não cobre o tornozelo.',
      },
      {
        ncm: '64041900',
        description: 'Calçado com sola exterior de borracha ou de plástico, outro',
        reason: 'A parte superior é de couro, não têxtil.',
      },
    ],
    missingData: ['Matéria da sola exterior', 'Se cobre o tornozelo'],
    sim: openings('64039990', ['00', 'Outro']),
    tariff: tariff(35, 3, null, 0, 0),
  },
  {
    ncm: '64041100',
    description:
      'Calçado com sola exterior de borracha ou de plástico, calçado para esporte; calçado para tênis, basquetebol, ginástica, treino e semelhantes',
    productName: 'Tênis esportivo de tecido',
    keywords: phrases(
      'tenis esportivo, tenis de corrida, tenis de treino, calcado esportivo, zapatilla deportiva, zapatillas, sneaker, sneakers, running shoe, running shoes, trainers, tenis',
    ),
    excludes: phrases('couro, cuero, leather, raquete, bola de tenis, tennis ball, chuteira'),
    hierarchy: hierarchy(
      'XII',
      ['64', 'Calçado, polainas e artigos semelhantes; suas partes.'],
      [
        '6404',
        'Calçado com sola exterior de borracha, plástico, couro natural ou reconstituído e parte superior de matérias têxteis.',
      ],
      [
        '640411',
        'Calçado com sola exterior de borracha ou de plástico, calçado para esporte; calçado para tênis, basquetebol, ginástica, treino e semelhantes',
      ],
    ),
    rationale:
      'Calçado para esporte com sola de borracha ou plástico e parte superior têxtil está na subposição 6404.11.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota de subposição 1 do Capítulo 64',
        text: 'Calçado para esporte: o concebido para a prática de atividade esportiva.',
      },
    ],
    discarded: [
      {
        ncm: '64041900',
        description: 'Calçado com sola exterior de borracha ou de plástico, outro',
        reason: 'O calçado é esportivo.',
      },
      {
        ncm: '64029990',
        description: 'Outro calçado, outro',
        reason: 'A parte superior é têxtil, não de borracha ou plástico.',
      },
      {
        ncm: '64031900',
        description: 'Calçado para esporte, outro',
        reason: 'A parte superior não é de couro.',
      },
    ],
    missingData: ['Matéria da parte superior'],
    sim: openings('64041100', ['10', 'Para corrida'], ['90', 'Outros']),
    tariff: tariff(35, 3, null, 0, 0),
  },
  {
    ncm: '70109021',
    description:
      'Garrafões, garrafas e frascos de vidro, de capacidade superior a 0,33 l, mas não superior a 1 l, garrafões e garrafas',
    productName: 'Garrafa de vidro',
    keywords: phrases(
      'garrafa de vidro, garrafas de vidro, botella de vidrio, glass bottle, glass bottles, garrafa vazia de vidro',
    ),
    excludes: phrases('termica, isolante, laboratorio, ampola, perfume cheio'),
    hierarchy: hierarchy(
      'XIII',
      ['70', 'Vidro e suas obras.'],
      [
        '7010',
        'Garrafões, garrafas, frascos, boiões, vasos, embalagens tubulares, ampolas e outros recipientes de vidro próprios para transporte ou embalagem; boiões de vidro para conservas; rolhas, tampas e outros dispositivos para fechar recipientes, de vidro.',
      ],
      ['701090', 'Outros'],
    ),
    rationale:
      'Garrafas de vidro para transporte ou embalagem, com capacidade entre 0,33 l e 1 l, estão no item 7010.90.2.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '70109011',
        description: 'Outros, de capacidade superior a 1 l, garrafões e garrafas',
        reason: 'A capacidade não supera 1 litro.',
      },
      {
        ncm: '70109022',
        description:
          'Outros, de capacidade superior a 0,33 l, mas não superior a 1 l, frascos, boiões, vasos, embalagens tubulares e outros recipientes próprios para transporte ou embalagem; boiões para conservas',
        reason: 'É garrafa, não frasco.',
      },
      {
        ncm: '70133700',
        description: 'Outros copos, exceto de vitrocerâmica, outros',
        reason: 'Não é artigo de mesa.',
      },
    ],
    missingData: ['Capacidade'],
    sim: { status: 'verifying', confirms: openings('70109021', ['00', 'Garrafas de vidro de 0,33 l a 1 l']) },
    tariff: tariff(12, 3, null, 0, 0),
  },
  {
    ncm: '72142000',
    description:
      'Barras de ferro ou aço não ligado, dentadas, com nervuras, sulcos (entalhes) ou relevos, obtidos durante a laminagem, ou torcidas após laminagem',
    productName: 'Vergalhão de aço para concreto',
    keywords: phrases(
      'vergalhao, vergalhao de aco, barra de aco nervurada, barra de aco para concreto, ca 50, hierro de construccion, barra de refuerzo, rebar, reinforcing bar, deformed steel bar',
    ),
    excludes: phrases('liga, inox, inoxidavel, stainless, tela, malha, trelica'),
    hierarchy: hierarchy(
      'XV',
      ['72', 'Ferro fundido, ferro e aço.'],
      [
        '7214',
        'Barras de ferro ou aço não ligado, simplesmente forjadas, laminadas, estiradas ou extrudadas, a quente, incluindo as que tenham sido submetidas a torção após laminagem.',
      ],
      [
        '721420',
        'Dentadas, com nervuras, sulcos (entalhes) ou relevos, obtidos durante a laminagem, ou torcidas após laminagem',
      ],
    ),
    rationale:
      'Barras de aço não ligado laminadas a quente com nervuras obtidas durante a laminagem classificam-se na subposição 7214.20.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 m) do Capítulo 72',
        text: 'Define outras barras: produtos laminados a quente de seção constante, que podem apresentar nervuras.',
      },
    ],
    discarded: [
      {
        ncm: '72149910',
        description: 'Outras, de seção circular',
        reason: 'A barra tem nervuras de laminagem.',
      },
      {
        ncm: '72279000',
        description: 'Fio-máquina de outras ligas de aço, outros',
        reason: 'O aço não é ligado.',
      },
      {
        ncm: '73089090',
        description:
          'Construções e suas partes (por exemplo, pontes e elementos de pontes, comportas, torres, pórticos, pilares, colunas, armações, estruturas para telhados, portas e janelas, e seus caixilhos, alizares e soleiras, portas de correr, balaustradas), de ferro fundido, ferro ou aço, exceto as construções pré-fabricadas da posição 94.06; chapas, barras, perfis, tubos e semelhantes, de ferro fundido, ferro ou aço, próprios para construções, outros',
        reason: 'Não é construção de aço.',
      },
    ],
    missingData: ['Diâmetro', 'Norma do aço'],
    sim: { status: 'none' },
    tariff: tariff(10, 3, 12, 0, 0),
  },
  {
    ncm: '73181500',
    description:
      'Artigos roscados, outros parafusos e pinos ou pernos, mesmo com as porcas e arruelas (anilhas)',
    productName: 'Parafuso de aço com porca',
    keywords: phrases(
      'parafuso de aco, parafuso sextavado, parafuso com porca, parafusos, tornillo de acero, tornillo, perno, bolt, bolts, hex bolt, steel bolt, screw',
    ),
    excludes: phrases(
      'madeira, autoperfurante, autoatarraxante, self tapping, tira fundo, porca avulsa, plastico, nylon',
    ),
    hierarchy: hierarchy(
      'XV',
      ['73', 'Obras de ferro fundido, ferro ou aço.'],
      [
        '7318',
        'Parafusos, pinos ou pernos, roscados, porcas, tira-fundos, ganchos roscados, rebites, chavetas, contrapinos ou troços, arruelas (anilhas) (incluindo as de pressão) e artigos semelhantes, de ferro fundido, ferro ou aço.',
      ],
      [
        '731815',
        'Artigos roscados, outros parafusos e pinos ou pernos, mesmo com as porcas e arruelas (anilhas)',
      ],
    ),
    rationale:
      'Parafusos roscados de aço, mesmo com porcas e arruelas, que não sejam para madeira nem autoperfurantes, estão na subposição 7318.15.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 2 a) da Seção XVI',
        text: 'Partes de uso geral (Nota 2 da Seção XV), como parafusos, excluem-se das máquinas.',
      },
    ],
    discarded: [
      {
        ncm: '73181200',
        description: 'Artigos roscados, outros parafusos para madeira',
        reason: 'Não é parafuso para madeira.',
      },
      {
        ncm: '73181400',
        description: 'Artigos roscados, parafusos autoperfurantes',
        reason: 'O parafuso não é autoperfurante.',
      },
      { ncm: '73181600', description: 'Artigos roscados, porcas', reason: 'O artigo não é porca.' },
    ],
    missingData: ['Diâmetro e comprimento', 'Material (aço carbono ou inox)'],
    sim: openings('73181500', ['10', 'De aço carbono'], ['20', 'De aço inoxidável'], ['90', 'Outros']),
    tariff: tariff(16, 3, null, 0, 0),
  },
  {
    ncm: '82041100',
    description: 'Chaves de porcas, manuais, de abertura fixa',
    productName: 'Chave de boca fixa',
    keywords: phrases(
      'chave de boca, chave fixa, chave combinada, chave estrela, llave fija, llave combinada, open end wrench, combination wrench, spanner, wrench, ferramenta, herramienta, hand tool',
    ),
    excludes: phrases(
      'ajustavel, inglesa, regulavel, adjustable, caixa, soquete, socket, fenda, philips, dinamometrica',
    ),
    hierarchy: hierarchy(
      'XV',
      ['82', 'Ferramentas, artigos de cutelaria e talheres, e suas partes, de metais comuns.'],
      [
        '8204',
        'Chaves de porcas, manuais (incluindo as chaves dinamométricas); chaves de caixa intercambiáveis, mesmo com cabos.',
      ],
      ['820411', 'Chaves de porcas, manuais, de abertura fixa'],
    ),
    rationale: 'Chaves de porcas manuais de abertura fixa têm subposição própria na posição 82.04.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 do Capítulo 82',
        text: 'O Capítulo compreende ferramentas com parte operante de metal comum.',
      },
    ],
    discarded: [
      {
        ncm: '82041200',
        description: 'Chaves de porcas, manuais, de abertura variável',
        reason: 'A abertura não é variável.',
      },
      {
        ncm: '82042000',
        description: 'Chaves de caixa intercambiáveis, mesmo com cabos',
        reason: 'Não são chaves de caixa intercambiáveis.',
      },
      {
        ncm: '82055900',
        description:
          'Outras ferramentas manuais (incluindo os corta-vidros (diamantes de vidraceiro)), outras',
        reason: 'Existe posição específica para chaves de porcas.',
      },
    ],
    missingData: ['Jogo ou unidade', 'Medidas'],
    sim: openings('82041100', ['00', 'De abertura fixa']),
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '82054000',
    description: 'Chaves de fenda',
    productName: 'Chave de fenda',
    keywords: phrases(
      'chave de fenda, chave philips, jogo de chaves de fenda, destornillador, desarmador, screwdriver, screwdrivers, ferramenta, herramienta, hand tool',
    ),
    excludes: phrases('eletrica, eletrico, parafusadeira, a bateria, cordless, electric'),
    hierarchy: hierarchy(
      'XV',
      ['82', 'Ferramentas, artigos de cutelaria e talheres, e suas partes, de metais comuns.'],
      [
        '8205',
        'Ferramentas manuais (incluindo os corta-vidros (diamantes de vidraceiro)) não especificadas nem compreendidas noutras posições; lâmpadas ou lamparinas de soldar (maçaricos) e semelhantes; tornos de apertar, sargentos e semelhantes, exceto os acessórios ou partes de máquinas-ferramentas ou de máquinas de corte a jato de água; bigornas; forjas portáteis; mós com armação, manuais ou de pedal.',
      ],
      ['820540', 'Chaves de fenda'],
    ),
    rationale: 'Chaves de fenda manuais têm subposição própria na posição 82.05.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 do Capítulo 82',
        text: 'O Capítulo compreende ferramentas com parte operante de metal comum.',
      },
    ],
    discarded: [
      {
        ncm: '82041100',
        description: 'Chaves de porcas, manuais, de abertura fixa',
        reason: 'Não é chave de porcas.',
      },
      {
        ncm: '84672999',
        description: 'Com motor elétrico incorporado, outras',
        reason: 'A ferramenta não é motorizada.',
      },
      {
        ncm: '82059000',
        description:
          'Outros, incluindo os sortidos constituídos por artigos incluídos em pelo menos duas das subposições da presente posição',
        reason: 'Não é sortido de ferramentas de várias subposições.',
      },
    ],
    missingData: ['Unidade ou jogo'],
    sim: openings('82054000', ['00', 'Chaves de fenda']),
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '84137010',
    description: 'Outras bombas centrífugas, eletrobombas submersíveis',
    productName: 'Eletrobomba submersível',
    keywords: phrases(
      'bomba submersa, bomba submersivel, eletrobomba submersivel, bomba de poco, bomba sumergible, electrobomba sumergible, submersible pump, borehole pump, bomba d agua submersa',
    ),
    excludes: phrases('peca, pecas, parte, partes, rotor, impulsor, part, parts, repuesto, repuestos'),
    hierarchy: hierarchy(
      'XVI',
      ['84', 'Reatores nucleares, caldeiras, máquinas, aparelhos e instrumentos mecânicos, e suas partes.'],
      ['8413', 'Bombas para líquidos, mesmo com dispositivo medidor; elevadores de líquidos.'],
      ['841370', 'Outras bombas centrífugas'],
    ),
    rationale: 'Eletrobombas centrífugas submersíveis para líquidos estão no item 8413.70.10.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '84137080',
        description: 'Outras bombas centrífugas, outras, de vazão inferior ou igual a 300 l/min',
        reason: 'A bomba é submersível.',
      },
      {
        ncm: '84138100',
        description: 'Outras bombas; elevadores de líquidos, bombas',
        reason: 'É bomba centrífuga, com subposição específica.',
      },
      {
        ncm: '84139190',
        description: 'Partes, de bombas, outras',
        reason: 'É a bomba completa, não uma parte.',
      },
    ],
    missingData: ['Vazão (l/min)', 'Potência do motor'],
    sim: openings('84137010', ['10', 'Para poços'], ['20', 'Para drenagem'], ['90', 'Outras']),
    tariff: tariff(14, 3, null, 0, 0),
  },
  {
    ncm: '84139190',
    description: 'Partes de bombas para líquidos, outras',
    productName: 'Rotor (impulsor) de bomba',
    keywords: phrases(
      'rotor de bomba, impulsor de bomba, rotor para bomba, parte de bomba, pecas de bomba, peca de bomba, carcaca de bomba, pump impeller, pump parts, pump part, impulsor para bomba, repuesto de bomba',
    ),
    hierarchy: hierarchy(
      'XVI',
      ['84', 'Reatores nucleares, caldeiras, máquinas, aparelhos e instrumentos mecânicos, e suas partes.'],
      ['8413', 'Bombas para líquidos, mesmo com dispositivo medidor; elevadores de líquidos.'],
      ['841391', 'Partes, de bombas'],
    ),
    rationale:
      'Partes reconhecíveis como exclusivas de bombas para líquidos vão para a subposição 8413.91, conforme a Nota 2 b) da Seção XVI.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 2 b) da Seção XVI',
        text: 'As partes reconhecíveis como exclusiva ou principalmente destinadas a uma máquina classificam-se com essa máquina.',
      },
    ],
    discarded: [
      {
        ncm: '84139110',
        description: 'Partes, de bombas, hastes de bombeamento, do tipo utilizado para extração de petróleo',
        reason: 'Não são hastes de bombeamento de petróleo.',
      },
      {
        ncm: '84137010',
        description: 'Outras bombas centrífugas, eletrobombas submersíveis',
        reason: 'É uma parte, não a bomba completa.',
      },
      { ncm: '84842000', description: 'Juntas de vedação mecânicas', reason: 'Não é selo mecânico.' },
    ],
    missingData: ['Tipo de bomba a que se destina', 'Material'],
    sim: {
      status: 'verifying',
      confirms: openings(
        '84139190',
        ['10', 'Rotores (impulsores) de bombas'],
        ['90', 'Outras partes de bombas'],
      ),
    },
    tariff: 'no_data',
  },
  {
    ncm: '84151011',
    description:
      'Aparelhos de ar-condicionado de janela, parede, teto ou piso, com capacidade inferior ou igual a 30.000 frigorias/hora, do tipo split-system (sistema com elementos separados)',
    productName: 'Ar-condicionado split',
    keywords: phrases(
      'ar condicionado split, ar condicionado, split system, split inverter, aire acondicionado, air conditioner, split air conditioner, condicionador de ar',
    ),
    excludes: phrases('automotivo, veiculo, vehicle, janela, portatil, portable, central, chiller'),
    hierarchy: hierarchy(
      'XVI',
      ['84', 'Reatores nucleares, caldeiras, máquinas, aparelhos e instrumentos mecânicos, e suas partes.'],
      [
        '8415',
        'Máquinas e aparelhos de ar-condicionado que contenham um ventilador motorizado e dispositivos próprios para modificar a temperatura e a umidade, incluindo as máquinas e aparelhos em que a umidade não seja regulável separadamente.',
      ],
      [
        '841510',
        'Do tipo concebido para ser fixado numa janela, parede, teto ou piso (pavimento), formando um corpo único ou do tipo split-system (sistema com elementos separados)',
      ],
    ),
    rationale:
      'Condicionadores de ar do tipo split-system, de até 30.000 frigorias/hora, estão no item 8415.10.11; unidades internas e externas apresentadas juntas seguem a RGI 2 a).',
    appliedRules: ['1', '2 a)', '6'],
    citedNotes: [
      {
        id: 'Nota 4 da Seção XVI',
        text: 'Máquina constituída por elementos distintos destinados a uma função definida classifica-se pela função.',
      },
    ],
    discarded: [
      {
        ncm: '84151019',
        description: 'Com capacidade inferior ou igual a 30.000 frigorias/hora, outros',
        reason: 'O aparelho é do tipo split-system.',
      },
      {
        ncm: '84151090',
        description:
          'Do tipo concebido para ser fixado numa janela, parede, teto ou piso (pavimento), formando um corpo único ou do tipo split-system (sistema com elementos separados), outros',
        reason: 'A capacidade não supera 30.000 frigorias/hora.',
      },
      {
        ncm: '84158300',
        description: 'Outros, sem dispositivo de refrigeração',
        reason: 'O aparelho é fixado em parede.',
      },
    ],
    missingData: ['Capacidade (BTU/h ou frigorias/hora)', 'Unidades apresentadas juntas ou separadas'],
    sim: openings(
      '84151011',
      ['10', 'Até 12.000 BTU/h'],
      ['20', 'Superior a 12.000 BTU/h'],
      ['90', 'Outros'],
    ),
    tariff: tariff(18, 3, 20, 0, 0),
  },
  {
    ncm: '84212300',
    description:
      'Aparelhos para filtrar ou depurar líquidos, para filtrar carburantes ou óleos lubrificantes nos motores de ignição por centelha (faísca) ou por compressão',
    productName: 'Filtro de óleo para motor',
    keywords: phrases(
      'filtro de oleo, filtro de combustivel, filtro de oleo lubrificante, filtro de aceite, filtro de combustible, oil filter, fuel filter',
    ),
    excludes: phrases('ar, aire, air, cabine, agua, water'),
    hierarchy: hierarchy(
      'XVI',
      ['84', 'Reatores nucleares, caldeiras, máquinas, aparelhos e instrumentos mecânicos, e suas partes.'],
      [
        '8421',
        'Centrifugadores, incluindo os secadores centrífugos; aparelhos para filtrar ou depurar líquidos ou gases.',
      ],
      [
        '842123',
        'Aparelhos para filtrar ou depurar líquidos, para filtrar carburantes ou óleos lubrificantes nos motores de ignição por centelha (faísca) ou por compressão',
      ],
    ),
    rationale:
      'Filtros de óleo lubrificante ou de combustível para motores de ignição por centelha ou compressão têm subposição própria (8421.23).',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 2 a) da Seção XVI',
        text: 'Partes que constituam artigos das posições dos Capítulos 84 ou 85 classificam-se nessas posições.',
      },
    ],
    discarded: [
      {
        ncm: '84213100',
        description:
          'Aparelhos para filtrar ou depurar gases, filtros de entrada de ar para motores de ignição por centelha (faísca) ou por compressão',
        reason: 'Não é filtro de entrada de ar.',
      },
      {
        ncm: '87089990',
        description: 'Outras partes e acessórios, outros',
        reason: 'A Nota 2 a) da Seção XVI prevalece sobre a posição de partes de veículos.',
      },
      {
        ncm: '84212990',
        description: 'Aparelhos para filtrar ou depurar líquidos, outros',
        reason: 'Existe subposição específica para filtros de óleo.',
      },
    ],
    missingData: ['Motor a que se destina'],
    sim: openings('84212300', ['00', 'Filtros de óleo ou combustível']),
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '84713012',
    description:
      'Máquinas automáticas para processamento de dados, portáteis, capazes de funcionar sem fonte externa de energia, de peso inferior a 3,5 kg, com tela de área superior a 140 cm2, mas inferior a 560 cm2',
    productName: 'Notebook (computador portátil)',
    keywords: phrases(
      'notebook, laptop, computador portatil, computadora portatil, notebook computer, ultrabook, portatil',
    ),
    excludes: phrases(
      'tablet, capa, case, carregador, bateria, teclado avulso, suporte, mochila, backpack, charger',
    ),
    hierarchy: hierarchy(
      'XVI',
      ['84', 'Reatores nucleares, caldeiras, máquinas, aparelhos e instrumentos mecânicos, e suas partes.'],
      [
        '8471',
        'Máquinas automáticas para processamento de dados e suas unidades; leitores magnéticos ou ópticos, máquinas para registrar dados em suporte sob forma codificada, e máquinas para processamento desses dados, não especificadas nem compreendidas noutras posições.',
      ],
      [
        '847130',
        'Máquinas automáticas para processamento de dados, portáteis, de peso não superior a 10 kg, que contenham pelo menos uma unidade central de processamento, um teclado e uma tela (ecrã*)',
      ],
    ),
    rationale:
      'Computador portátil com CPU, teclado e tela, de peso inferior a 3,5 kg e tela entre 140 e 560 cm², está no item 8471.30.12.',
    appliedRules: ['1', '6'],
    citedNotes: [
      { id: 'Nota 5 A) do Capítulo 84', text: 'Define as máquinas automáticas para processamento de dados.' },
    ],
    discarded: [
      {
        ncm: '84713019',
        description: 'Capazes de funcionar sem fonte externa de energia, outras',
        reason: 'Peso e área de tela dentro dos limites do item 8471.30.12.',
      },
      {
        ncm: '84714100',
        description:
          'Outras máquinas automáticas para processamento de dados, que contenham, no mesmo corpo, pelo menos uma unidade central de processamento e, mesmo combinadas, uma unidade de entrada e uma unidade de saída',
        reason: 'A máquina é portátil.',
      },
      {
        ncm: '84713011',
        description:
          'Capazes de funcionar sem fonte externa de energia, de peso inferior a 350 g, com tela de área não superior a 140 cm2',
        reason: 'A tela supera 140 cm².',
      },
    ],
    missingData: ['Peso', 'Área da tela'],
    sim: openings('84713012', ['00', 'Notebooks']),
    tariff: tariff(16, 0, null, 0, 0),
  },
  {
    ncm: '84818095',
    description: 'Outras torneiras, válvulas e dispositivos semelhantes, válvulas tipo esfera',
    productName: 'Válvula de esfera',
    keywords: phrases(
      'valvula de esfera, valvula esfera, valvula tipo esfera, registro de esfera, valvola a sfera, valvula de bola, ball valve, ball valves',
    ),
    excludes: phrases(
      'solenoide, solenoid, aerossol, aerosol, retencao, check valve, gaveta, borboleta, butterfly, parte, partes, part, parts',
    ),
    hierarchy: hierarchy(
      'XVI',
      ['84', 'Reatores nucleares, caldeiras, máquinas, aparelhos e instrumentos mecânicos, e suas partes.'],
      [
        '8481',
        'Torneiras, válvulas (incluindo as redutoras de pressão e as termostáticas) e dispositivos semelhantes, para canalizações, caldeiras, reservatórios, cubas e outros recipientes.',
      ],
      ['848180', 'Outros dispositivos'],
    ),
    rationale:
      'Válvula de esfera de uso geral para canalizações, sem função de redução de pressão, retenção ou segurança, está no item 8481.80.95.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '84813000',
        description: 'Válvulas de retenção',
        reason: 'A esfera abre e fecha a passagem pela alavanca; não é uma válvula de retenção.',
      },
      {
        ncm: '84818099',
        description: 'Outras torneiras, válvulas e dispositivos semelhantes, outros',
        reason: 'As válvulas tipo esfera têm item próprio.',
      },
    ],
    missingData: ['Tipo de acionamento', 'Uso (canalização, caldeira, recipiente)'],
    sim: { status: 'none' },
    tariff: tariff(14, 3, null, 0, 0),
  },
  {
    ncm: '84821010',
    description: 'Rolamentos de esferas, de carga radial',
    productName: 'Rolamento de esferas',
    keywords: phrases(
      'rolamento de esferas, rolamento rigido de esferas, rolamento, rodamiento de bolas, rodamiento, ball bearing, ball bearings, deep groove ball bearing, bearing, bearings',
    ),
    excludes: phrases(
      'rolete, roletes, rodillo, roller, agulha, agulhas, needle, conico, tapered, esfera avulsa',
    ),
    hierarchy: hierarchy(
      'XVI',
      ['84', 'Reatores nucleares, caldeiras, máquinas, aparelhos e instrumentos mecânicos, e suas partes.'],
      ['8482', 'Rolamentos de esferas, de roletes ou de agulhas.'],
      ['848210', 'Rolamentos de esferas'],
    ),
    rationale:
      'Rolamentos de esferas de carga radial estão no item 8482.10.10; como parte de uso geral ficam na sua própria posição (Nota 2 a) da Seção XVI).',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 2 a) da Seção XVI',
        text: 'Partes que constituam artigos de uma posição dos Capítulos 84 ou 85 classificam-se nessa posição.',
      },
    ],
    discarded: [
      {
        ncm: '84821090',
        description: 'Rolamentos de esferas, outros',
        reason: 'O rolamento é de carga radial.',
      },
      {
        ncm: '84822010',
        description:
          'Rolamentos de roletes cônicos, incluindo os conjuntos constituídos por cones e roletes cônicos, de carga radial',
        reason: 'Não é de roletes cônicos.',
      },
      {
        ncm: '84829119',
        description: 'Partes, esferas, roletes e agulhas, esferas de aço calibradas, outras',
        reason: 'É o rolamento completo, não esferas avulsas.',
      },
    ],
    missingData: ['Tipo de carga (radial ou axial)', 'Diâmetro interno'],
    sim: openings('84821010', ['10', 'Diâmetro interno até 50 mm'], ['90', 'Outros']),
    tariff: tariff(16, 3, 14, 0, 0),
  },
  {
    ncm: '85015210',
    description:
      'Outros motores de corrente alternada, polifásicos, de potência superior a 750 W, mas não superior a 75 kW, trifásicos, com rotor de gaiola',
    productName: 'Motor elétrico trifásico',
    keywords: phrases(
      'motor eletrico trifasico, motor trifasico, motor de inducao trifasico, motor electrico trifasico, three phase motor, three phase induction motor, induction motor, motor eletrico, motor electrico, electric motor, motor',
    ),
    excludes: phrases(
      'monofasico, single phase, corrente continua, dc, combustao, diesel, gasolina, arranque, partida, limpador, 750 w, 0 5 cv, peca, pecas, parte, partes, part, parts',
    ),
    hierarchy: hierarchy(
      'XVI',
      [
        '85',
        'Máquinas, aparelhos e materiais elétricos, e suas partes; aparelhos de gravação ou de reprodução de som, aparelhos de gravação ou de reprodução de imagens e de som em televisão, e suas partes e acessórios.',
      ],
      ['8501', 'Motores e geradores, elétricos, exceto os grupos eletrogêneos.'],
      [
        '850152',
        'Outros motores de corrente alternada, polifásicos, de potência superior a 750 W, mas não superior a 75 kW',
      ],
    ),
    rationale:
      'Motor de corrente alternada trifásico com rotor de gaiola, de potência entre 750 W e 75 kW, está no item 8501.52.10.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '85015110',
        description:
          'Outros motores de corrente alternada, polifásicos, de potência não superior a 750 W, trifásicos, com rotor de gaiola',
        reason: 'A potência supera 750 W.',
      },
      {
        ncm: '85015310',
        description:
          'Outros motores de corrente alternada, polifásicos, de potência superior a 75 kW, trifásicos, de potência não superior a 7.500 kW',
        reason: 'A potência não supera 75 kW.',
      },
      {
        ncm: '85014019',
        description:
          'Outros motores de corrente alternada, monofásicos, de potência não superior a 15 kW, outros',
        reason: 'O motor não é monofásico.',
      },
    ],
    missingData: ['Potência (kW ou CV)', 'Tipo de rotor'],
    sim: openings('85015210', ['10', 'Até 7,5 kW'], ['20', 'Superior a 7,5 kW'], ['90', 'Outros']),
    tariff: tariff(14, 3, null, 0, 0),
  },
  {
    ncm: '85076000',
    description:
      'Acumuladores elétricos e seus separadores, mesmo de forma quadrada ou retangular, de íon de lítio',
    productName: 'Bateria de íon de lítio',
    keywords: phrases(
      'bateria de litio, bateria de ion de litio, bateria li ion, bateria recarregavel de litio, bateria de lition, bateria de ion litio, lithium ion battery, lithium battery, li ion battery, bateria litio, bateria de iones de litio',
    ),
    excludes: phrases(
      'chumbo, acido, lead acid, niquel, pilha alcalina, alcalina, primaria, nao recarregavel, carregador, charger',
    ),
    hierarchy: hierarchy(
      'XVI',
      [
        '85',
        'Máquinas, aparelhos e materiais elétricos, e suas partes; aparelhos de gravação ou de reprodução de som, aparelhos de gravação ou de reprodução de imagens e de som em televisão, e suas partes e acessórios.',
      ],
      ['8507', 'Acumuladores elétricos e seus separadores, mesmo de forma quadrada ou retangular.'],
      ['850760', 'De íon de lítio'],
    ),
    rationale:
      'Acumuladores elétricos (recarregáveis) de íon de lítio têm subposição própria na posição 85.07.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '85065010',
        description: 'De lítio, com volume exterior não superior a 300 cm3',
        reason: 'A bateria é recarregável, não pilha primária de lítio.',
      },
      {
        ncm: '85078000',
        description: 'Outros acumuladores',
        reason: 'É acumulador de íon de lítio, com subposição própria.',
      },
      {
        ncm: '85071090',
        description: 'De chumbo, do tipo utilizado para o arranque dos motores de pistão, outros',
        reason: 'Não é de chumbo.',
      },
    ],
    missingData: ['Capacidade (Wh)', 'Aparelho a que se destina'],
    sim: openings('85076000', ['00', 'De íon de lítio']),
    tariff: tariff(16, 3, 18, 0, 0),
  },
  {
    ncm: '85171300',
    description: 'Aparelhos telefônicos, telefones inteligentes (smartphones)',
    productName: 'Smartphone',
    keywords: phrases(
      'smartphone, telefone celular, celular, telefone inteligente, telefono celular, telefono inteligente, movil, mobile phone, cell phone, cellphone, iphone, android phone',
    ),
    excludes: phrases(
      'capa, capinha, funda, case, pelicula, carregador, charger, cargador, cabo, bateria, suporte, peca, pecas, tela de reposicao, display',
    ),
    hierarchy: hierarchy(
      'XVI',
      [
        '85',
        'Máquinas, aparelhos e materiais elétricos, e suas partes; aparelhos de gravação ou de reprodução de som, aparelhos de gravação ou de reprodução de imagens e de som em televisão, e suas partes e acessórios.',
      ],
      [
        '8517',
        'Aparelhos telefônicos, incluindo os telefones inteligentes (smartphones) e outros telefones para redes celulares ou para outras redes sem fio; outros aparelhos para a transmissão ou recepção de voz, imagens ou outros dados, incluindo os aparelhos para comunicação em redes por fio ou redes sem fio (tal como uma rede local (LAN) ou uma rede de área estendida (longa distância) (WAN)), exceto os aparelhos das posições 84.43, 85.25, 85.27 ou 85.28.',
      ],
      [
        '851713',
        'Aparelhos telefônicos, incluindo os telefones inteligentes (smartphones) e outros telefones para redes celulares ou para outras redes sem fio, telefones inteligentes (smartphones)',
      ],
    ),
    rationale:
      'Telefones inteligentes para redes celulares têm subposição própria (8517.13) desde a VII Emenda do SH.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota de subposição 1 do Capítulo 85',
        text: 'Define os telefones inteligentes da subposição 8517.13.',
      },
    ],
    discarded: [
      {
        ncm: '85171431',
        description:
          'Outros telefones para redes celulares ou para outras redes sem fio, de redes celulares, exceto por satélite, portáteis',
        reason: 'O aparelho é smartphone, com subposição própria.',
      },
      {
        ncm: '84713019',
        description: 'Capazes de funcionar sem fonte externa de energia, outras',
        reason: 'É aparelho telefônico, não máquina de processamento de dados.',
      },
    ],
    missingData: ['Tecnologia de rede'],
    sim: openings(
      '85171300',
      ['10', 'Com tela de até 6 polegadas'],
      ['20', 'Com tela superior a 6 polegadas'],
      ['90', 'Outros'],
    ),
    tariff: tariff(16, 0, null, 0, 0),
  },
  {
    ncm: '85395200',
    description:
      'Fontes de luz de diodos emissores de luz (LED), lâmpadas e tubos de diodos emissores de luz (LED)',
    productName: 'Lâmpada LED',
    keywords: phrases(
      'lampada led, lampadas led, bulbo led, tubo led, lampara led, bombilla led, foco led, led bulb, led lamp, led tube',
    ),
    excludes: phrases('modulo, fita, tira, strip, luminaria, refletor, painel, driver, farol'),
    hierarchy: hierarchy(
      'XVI',
      [
        '85',
        'Máquinas, aparelhos e materiais elétricos, e suas partes; aparelhos de gravação ou de reprodução de som, aparelhos de gravação ou de reprodução de imagens e de som em televisão, e suas partes e acessórios.',
      ],
      [
        '8539',
        'Lâmpadas e tubos elétricos de incandescência ou de descarga, incluindo os artigos denominados "faróis e projetores, em unidades seladas" e as lâmpadas e tubos de raios ultravioleta ou infravermelhos; lâmpadas de arco; fontes de luz de diodos emissores de luz (LED).',
      ],
      [
        '853952',
        'Fontes de luz de diodos emissores de luz (LED), lâmpadas e tubos de diodos emissores de luz (LED)',
      ],
    ),
    rationale: 'Lâmpadas e tubos de diodos emissores de luz (LED) têm subposição própria (8539.52).',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '85395100',
        description:
          'Fontes de luz de diodos emissores de luz (LED), módulos de diodos emissores de luz (LED)',
        reason: 'É lâmpada completa, não módulo LED.',
      },
      {
        ncm: '94054100',
        description:
          'Outras luminárias e aparelhos de iluminação, elétricos, fotovoltaicos, concebidos para serem utilizados unicamente com fontes de luz de diodos emissores de luz (LED)',
        reason: 'Não é luminária.',
      },
      {
        ncm: '85393120',
        description:
          'Lâmpadas e tubos de descarga, exceto de raios ultravioleta, fluorescentes, de cátodo quente, outras lâmpadas',
        reason: 'Não é lâmpada fluorescente.',
      },
    ],
    missingData: ['Tipo de base (E27, T8 etc.)', 'Tensão'],
    sim: openings('85395200', ['10', 'Com base rosca'], ['20', 'Tubulares'], ['90', 'Outras']),
    tariff: tariff(16, 3, null, 0, 0),
  },
  {
    ncm: '85444900',
    description: 'Outros condutores elétricos, para uma tensão não superior a 1.000 V, outros',
    productName: 'Cabo elétrico sem conector (até 1 kV)',
    keywords: phrases(
      'cabo eletrico, fio eletrico, cabo flexivel, cabo de cobre, cabo pp, cable electrico, cable de cobre, conductor electrico, electric cable, power cable, electrical wire, insulated wire, fio de cobre isolado, material eletrico, material electrico',
    ),
    excludes: phrases(
      'conector, com plug, plug, usb, hdmi, fibra, optic, coaxial, enrolamento, esmaltado, alta tensao, media tensao',
    ),
    hierarchy: hierarchy(
      'XVI',
      [
        '85',
        'Máquinas, aparelhos e materiais elétricos, e suas partes; aparelhos de gravação ou de reprodução de som, aparelhos de gravação ou de reprodução de imagens e de som em televisão, e suas partes e acessórios.',
      ],
      [
        '8544',
        'Fios, cabos (incluindo os cabos coaxiais) e outros condutores, isolados para usos elétricos (incluindo os envernizados ou oxidados anodicamente), mesmo com peças de conexão; cabos de fibras ópticas, constituídos por fibras embainhadas individualmente, mesmo com condutores elétricos ou munidos de peças de conexão.',
      ],
      ['854449', 'Outros condutores elétricos, para uma tensão não superior a 1.000 V, outros'],
    ),
    rationale:
      'Condutores elétricos isolados para tensão não superior a 1.000 V, sem peças de conexão, estão na subposição 8544.49.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '85444200',
        description:
          'Outros condutores elétricos, para uma tensão não superior a 1.000 V, munidos de peças de conexão',
        reason: 'O cabo não tem peças de conexão.',
      },
      {
        ncm: '85446000',
        description: 'Outros condutores elétricos, para uma tensão superior a 1.000 V',
        reason: 'A tensão não supera 1.000 V.',
      },
      {
        ncm: '85441100',
        description: 'Fios para bobinar, de cobre',
        reason: 'Não é fio de cobre para bobinar.',
      },
    ],
    missingData: ['Tensão nominal', 'Seção do condutor'],
    sim: { status: 'none' },
    tariff: tariff(16, 3, null, 0, 0),
  },
  {
    ncm: '87032310',
    description:
      'Automóveis de passageiros com motor de pistão de ignição por centelha (faísca), de cilindrada superior a 1.500 cm3, mas não superior a 3.000 cm3, com capacidade de transporte de pessoas sentadas inferior ou igual a seis, incluindo o motorista',
    productName: 'Automóvel de passageiros (1.5 a 3.0 litros)',
    keywords: phrases(
      'automovel, carro de passeio, automovel de passageiros, sedan, suv, hatch, automovil, coche, auto de pasajeros, passenger car, motor car, car gasolina, veiculo de passeio',
    ),
    excludes: phrases(
      'peca, pecas, parte, partes, part, parts, repuesto, pneu, tyre, tire, neumatico, pneumatico, freio, filtro, eletrico, electric, hibrido, hybrid, diesel, caminhao, truck, brinquedo, toy, miniatura',
    ),
    hierarchy: hierarchy(
      'XVII',
      ['87', 'Veículos automóveis, tratores, ciclos e outros veículos terrestres, suas partes e acessórios.'],
      [
        '8703',
        'Automóveis de passageiros e outros veículos automóveis principalmente concebidos para transporte de pessoas (exceto os da posição 87.02), incluindo os veículos de uso misto (station wagons) e os automóveis de corrida.',
      ],
      [
        '870323',
        'Outros veículos, unicamente com motor de pistão de ignição por centelha (faísca), de cilindrada superior a 1.500 cm3, mas não superior a 3.000 cm3',
      ],
    ),
    rationale:
      'Automóveis de passageiros com motor a pistão de ignição por centelha, cilindrada entre 1.500 e 3.000 cm³ e até seis lugares estão no item 8703.23.10.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota de subposição 1 do Capítulo 87',
        text: 'Define os veículos com motor de pistão e motor elétrico (híbridos).',
      },
    ],
    discarded: [
      {
        ncm: '87032390',
        description:
          'Outros veículos, unicamente com motor de pistão de ignição por centelha (faísca), de cilindrada superior a 1.500 cm3, mas não superior a 3.000 cm3, outros',
        reason: 'A capacidade não supera seis pessoas.',
      },
      {
        ncm: '87032210',
        description:
          'De cilindrada superior a 1.000 cm3, mas não superior a 1.500 cm3, com capacidade de transporte de pessoas sentadas inferior ou igual a seis, incluindo o motorista',
        reason: 'A cilindrada supera 1.500 cm³.',
      },
      {
        ncm: '87034000',
        description:
          'Outros veículos, equipados para propulsão, simultaneamente, com motor de pistão de ignição por centelha (faísca) e motor elétrico, exceto os suscetíveis de serem carregados por conexão a uma fonte externa de energia elétrica',
        reason: 'O veículo não é híbrido.',
      },
    ],
    missingData: ['Cilindrada', 'Tipo de motorização'],
    sim: openings('87032310', ['00', 'Até seis passageiros']),
    tariff: 'not_available',
  },
  {
    ncm: '87083090',
    description:
      'Partes e acessórios dos veículos automóveis, freios (travões) e servofreios; suas partes, outros',
    productName: 'Pastilha de freio para automóvel',
    keywords: phrases(
      'pastilha de freio, disco de freio, sapata de freio, pinca de freio, pastilla de freno, disco de freno, brake pad, brake pads, brake disc, brake caliper, freio',
    ),
    excludes: phrases('bicicleta, moto, motocicleta, trator, 8701, lona nao montada, fluido'),
    hierarchy: hierarchy(
      'XVII',
      ['87', 'Veículos automóveis, tratores, ciclos e outros veículos terrestres, suas partes e acessórios.'],
      ['8708', 'Partes e acessórios dos veículos automóveis das posições 87.01 a 87.05.'],
      ['870830', 'Freios (travões) e servofreios; suas partes'],
    ),
    rationale:
      'Partes de freios de veículos automóveis das posições 87.01 a 87.05 estão na subposição 8708.30; não sendo guarnições montadas para tratores, vão para o item residual.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 3 da Seção XVII',
        text: 'Partes e acessórios devem ser exclusiva ou principalmente destinados aos veículos do Capítulo 87.',
      },
    ],
    discarded: [
      {
        ncm: '87083019',
        description:
          'Freios (travões) e servofreios; suas partes, guarnições de freios (travões) montadas, outras',
        reason: 'Não se trata de guarnição montada.',
      },
      {
        ncm: '68138190',
        description: 'Que não contenham amianto, guarnições para freios (travões), outras',
        reason: 'A guarnição está montada em suporte metálico.',
      },
      {
        ncm: '87141000',
        description: 'De motocicletas (incluindo os ciclomotores)',
        reason: 'Não é parte de motocicleta.',
      },
    ],
    missingData: ['Veículo a que se destina'],
    sim: openings('87083090', ['10', 'Pastilhas e sapatas'], ['20', 'Discos e tambores'], ['90', 'Outros']),
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '90041000',
    description: 'Óculos de sol',
    productName: 'Óculos de sol',
    keywords: phrases('oculos de sol, gafas de sol, lentes de sol, anteojos de sol, sunglasses, sun glasses'),
    excludes: phrases('grau, correcao, receta, prescription, seguranca, protecao industrial, armacao avulsa'),
    hierarchy: hierarchy(
      'XVIII',
      [
        '90',
        'Instrumentos e aparelhos de óptica, de fotografia, de cinematografia, de medida, de controle ou de precisão; instrumentos e aparelhos médico-cirúrgicos; suas partes e acessórios.',
      ],
      ['9004', 'Óculos para correção, proteção ou outros fins, e artigos semelhantes.'],
      ['900410', 'Óculos de sol'],
    ),
    rationale:
      'Óculos de sol têm subposição própria na posição 90.04; o estojo apresentado com eles segue a RGI 5 a).',
    appliedRules: ['1', '5 a)', '6'],
    citedNotes: [
      {
        id: 'Nota 1 do Capítulo 90',
        text: 'O Capítulo não compreende os artigos de uso técnico de borracha ou couro.',
      },
    ],
    discarded: [
      {
        ncm: '90049010',
        description: 'Outros, óculos para correção',
        reason: 'As lentes não são corretivas.',
      },
      { ncm: '90049020', description: 'Outros, óculos de segurança', reason: 'Não são óculos de segurança.' },
      {
        ncm: '90031100',
        description: 'Armações, de plástico',
        reason: 'É o óculos completo, não a armação.',
      },
    ],
    missingData: ['Material da armação'],
    sim: openings('90041000', ['00', 'Óculos de sol']),
    tariff: tariff(20, 3, null, 0, 0),
  },
  {
    ncm: '90183119',
    description:
      'Seringas, agulhas, cateteres, cânulas e instrumentos semelhantes, seringas, mesmo com agulhas, de plástico, outras',
    productName: 'Seringa descartável de plástico',
    keywords: phrases(
      'seringa descartavel, seringa de plastico, seringa, seringas, jeringa descartable, jeringa, syringe, disposable syringe, syringes',
    ),
    excludes: phrases('vidro, glass, 2 ml, 1 ml, 3 ml, insulina, agulha avulsa, brinquedo'),
    hierarchy: hierarchy(
      'XVIII',
      [
        '90',
        'Instrumentos e aparelhos de óptica, de fotografia, de cinematografia, de medida, de controle ou de precisão; instrumentos e aparelhos médico-cirúrgicos; suas partes e acessórios.',
      ],
      [
        '9018',
        'Instrumentos e aparelhos para medicina, cirurgia, odontologia e veterinária, incluindo os aparelhos para cintilografia e outros aparelhos eletromédicos, bem como os aparelhos para testes visuais.',
      ],
      [
        '901831',
        'Seringas, agulhas, cateteres, cânulas e instrumentos semelhantes, seringas, mesmo com agulhas',
      ],
    ),
    rationale:
      'Seringas de plástico, mesmo com agulhas, com capacidade superior a 2 cm³, estão no item 9018.31.19.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '90183111',
        description:
          'Seringas, agulhas, cateteres, cânulas e instrumentos semelhantes, seringas, mesmo com agulhas, de plástico, de capacidade inferior ou igual a 2 cm3',
        reason: 'A capacidade supera 2 cm³.',
      },
      {
        ncm: '90183190',
        description:
          'Seringas, agulhas, cateteres, cânulas e instrumentos semelhantes, seringas, mesmo com agulhas, outras',
        reason: 'A seringa é de plástico.',
      },
      {
        ncm: '90183219',
        description:
          'Seringas, agulhas, cateteres, cânulas e instrumentos semelhantes, agulhas tubulares de metal e agulhas para suturas, tubulares de metal, outras',
        reason: 'Não é agulha avulsa.',
      },
    ],
    missingData: ['Capacidade (ml)', 'Com ou sem agulha'],
    sim: openings('90183119', ['10', 'Com agulha'], ['20', 'Sem agulha']),
    tariff: tariff(16, 3, null, 0, 0),
  },
  {
    ncm: '94033000',
    description: 'Móveis de madeira, do tipo utilizado em escritórios',
    productName: 'Mesa de escritório de madeira',
    keywords: phrases(
      'mesa de escritorio, movel de escritorio, escrivaninha, estacao de trabalho, armario de escritorio, escritorio de madera, mueble de oficina, office desk, office furniture, wooden desk',
    ),
    excludes: phrases('metal, aco, metalico, plastico, cadeira, silla, chair, cozinha, quarto'),
    hierarchy: hierarchy(
      'XX',
      [
        '94',
        'Móveis; mobiliário médico-cirúrgico; colchões, almofadas e semelhantes; luminárias e aparelhos de iluminação não especificados nem compreendidos noutros Capítulos; anúncios, cartazes ou tabuletas e placas indicadoras, luminosos e artigos semelhantes; construções pré-fabricadas.',
      ],
      ['9403', 'Outros móveis e suas partes.'],
      ['940330', 'Móveis de madeira, do tipo utilizado em escritórios'],
    ),
    rationale: 'Móveis de madeira do tipo utilizado em escritórios estão na subposição 9403.30.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 2 do Capítulo 94',
        text: 'Os móveis das posições 94.01 a 94.03 são os concebidos para assentar no chão.',
      },
    ],
    discarded: [
      {
        ncm: '94031000',
        description: 'Móveis de metal, do tipo utilizado em escritórios',
        reason: 'O móvel não é de metal.',
      },
      {
        ncm: '94036000',
        description: 'Outros móveis de madeira',
        reason: 'É móvel do tipo de escritório, com subposição própria.',
      },
      { ncm: '94039100', description: 'Partes, de madeira', reason: 'É o móvel completo, não uma parte.' },
    ],
    missingData: ['Material predominante', 'Montado ou desmontado'],
    sim: { status: 'none' },
    tariff: tariff(18, 3, null, 0, 0),
  },
  {
    ncm: '95030031',
    description: 'Brinquedos que representem animais ou seres não humanos, com enchimento',
    productName: 'Bicho de pelúcia',
    keywords: phrases(
      'bicho de pelucia, pelucia, urso de pelucia, brinquedo de pelucia, peluche, muneco de peluche, plush toy, stuffed animal, teddy bear, soft toy',
    ),
    excludes: phrases('pet, cachorro real, almofada, cushion'),
    hierarchy: hierarchy(
      'XX',
      ['95', 'Brinquedos, jogos, artigos para divertimento ou para esporte; suas partes e acessórios.'],
      [
        '9503',
        'Triciclos, patinetes (trotinetas*), carros de pedais e outros brinquedos semelhantes de rodas; carrinhos para bonecos; bonecos; outros brinquedos; modelos reduzidos e modelos semelhantes para divertimento, mesmo animados; quebra-cabeças (puzzles) de qualquer espécie.',
      ],
      [
        '950300',
        'Triciclos, patinetes (trotinetas*), carros de pedais e outros brinquedos semelhantes de rodas; carrinhos para bonecos; bonecos; outros brinquedos; modelos reduzidos e modelos semelhantes para divertimento, mesmo animados; quebra-cabeças (puzzles) de qualquer espécie',
      ],
    ),
    rationale: 'Brinquedos que representam animais, com enchimento, estão no item 9503.00.31.',
    appliedRules: ['1', '6'],
    citedNotes: [
      {
        id: 'Nota 1 do Capítulo 95',
        text: 'O Capítulo não compreende artigos de vestuário nem mobiliário para bonecos.',
      },
    ],
    discarded: [
      {
        ncm: '95030039',
        description: 'Brinquedos que representem animais ou seres não humanos, outros',
        reason: 'O brinquedo tem enchimento.',
      },
      {
        ncm: '95030022',
        description: 'Bonecos que representem somente seres humanos, outros bonecos, mesmo vestidos',
        reason: 'Não representa ser humano.',
      },
      {
        ncm: '94049000',
        description:
          'Suportes para camas (somiês); colchões, edredões, almofadas, pufes, travesseiros e artigos semelhantes, equipados com molas ou guarnecidos interiormente de quaisquer matérias, compreendendo esses artigos de borracha alveolar ou de plástico alveolar, mesmo recobertos, outros',
        reason: 'Não é almofada.',
      },
    ],
    missingData: ['Faixa etária'],
    sim: openings('95030031', ['00', 'Com enchimento']),
    tariff: tariff(35, 3, 20, 0, 0),
  },
  {
    ncm: '95066200',
    description: 'Bolas, exceto de golfe ou de tênis de mesa, infláveis',
    productName: 'Bola de futebol inflável',
    keywords: phrases(
      'bola de futebol, bola de volei, bola de basquete, bola inflavel, pelota de futbol, balon de futbol, pelota, soccer ball, football ball, basketball ball, volleyball, inflatable ball',
    ),
    excludes: phrases(
      'tenis, golfe, golf, ping pong, tenis de mesa, brinquedo de plastico macico, bola de gude',
    ),
    hierarchy: hierarchy(
      'XX',
      ['95', 'Brinquedos, jogos, artigos para divertimento ou para esporte; suas partes e acessórios.'],
      [
        '9506',
        'Artigos e equipamentos para cultura física, ginástica, atletismo, outros esportes (incluindo o tênis de mesa), ou jogos ao ar livre, não especificados nem compreendidos noutras posições deste Capítulo; piscinas, incluindo as infantis.',
      ],
      ['950662', 'Bolas, exceto de golfe ou de tênis de mesa, infláveis'],
    ),
    rationale: 'Bolas infláveis para esportes (exceto golfe e tênis de mesa) estão na subposição 9506.62.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      {
        ncm: '95066100',
        description: 'Bolas, exceto de golfe ou de tênis de mesa, bolas de tênis',
        reason: 'Não é bola de tênis.',
      },
      {
        ncm: '95066900',
        description: 'Bolas, exceto de golfe ou de tênis de mesa, outras',
        reason: 'A bola é inflável.',
      },
      {
        ncm: '95030099',
        description:
          'Triciclos, patinetes (trotinetas*), carros de pedais e outros brinquedos semelhantes de rodas; carrinhos para bonecos; bonecos; outros brinquedos; modelos reduzidos e modelos semelhantes para divertimento, mesmo animados; quebra-cabeças (puzzles) de qualquer espécie, outros',
        reason: 'É artigo para esporte, não brinquedo.',
      },
    ],
    missingData: ['Esporte a que se destina'],
    sim: openings('95066200', ['10', 'De futebol'], ['90', 'Outras']),
    tariff: tariff(20, 3, null, 0, 0),
  },
  {
    ncm: '96032100',
    description: 'Escovas de dentes, incluindo as escovas para dentaduras',
    productName: 'Escova de dentes',
    keywords: phrases(
      'escova de dentes, escova dental, cepillo de dientes, cepillo dental, toothbrush, toothbrushes',
    ),
    excludes: phrases('eletrica, electrica, electric, refil de cabeca, pasta, creme dental, toothpaste'),
    hierarchy: hierarchy(
      'XX',
      ['96', 'Obras diversas.'],
      [
        '9603',
        'Vassouras e escovas, mesmo que constituam partes de máquinas, de aparelhos ou de veículos, vassouras mecânicas de uso manual não motorizadas, pincéis e espanadores; cabeças preparadas para escovas, pincéis e artigos semelhantes; pads (talochas) e rolos para pintura; rodos de borracha ou de matérias flexíveis semelhantes.',
      ],
      [
        '960321',
        'Escovas de dentes, escovas e pincéis de barba, escovas para cabelo, para cílios ou para unhas e outras escovas de toucador de pessoas, incluindo as que sejam partes de aparelhos, escovas de dentes, incluindo as escovas para dentaduras',
      ],
    ),
    rationale: 'Escovas de dentes manuais têm subposição própria na posição 96.03.',
    appliedRules: ['1', '6'],
    citedNotes: [],
    discarded: [
      { ncm: '85098090', description: 'Outros aparelhos, outros', reason: 'A escova não é elétrica.' },
      {
        ncm: '96032900',
        description:
          'Escovas de dentes, escovas e pincéis de barba, escovas para cabelo, para cílios ou para unhas e outras escovas de toucador de pessoas, incluindo as que sejam partes de aparelhos, outros',
        reason: 'É escova de dentes, com subposição própria.',
      },
      { ncm: '33061000', description: 'Dentifrícios (dentífricos)', reason: 'Não é dentifrício.' },
    ],
    missingData: ['Quantidade por embalagem'],
    sim: openings('96032100', ['00', 'Escovas de dentes']),
    tariff: tariff(18, 3, null, 0, 0),
  },
];
