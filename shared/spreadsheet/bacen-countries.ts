/**
 * BACEN's country codes (the Central Bank's "Tabela de Países", the `cPais` of an NF-e's addresses)
 * → ISO 3166-1 alpha-2, as the pipeline writes a country. The codes were checked against two
 * independent public copies of the table; a code not listed here is said, never guessed
 * (read-nfe.ts, `nfe_country_unknown`). BACEN's own codes for places ISO has no country for
 * (9903 ship and aircraft provisions, 9946 "a designar", central banks, international bodies)
 * are left out on purpose: no country can be read from them.
 */

/** Brazil's own code: a party here is no foreign country. */
export const BACEN_BRAZIL = '1058';

const BACEN_TO_ISO: ReadonlyMap<string, string> = new Map([
  ['0132', 'AF'], // Afeganistão
  ['0153', 'AX'], // Aland, Ilhas
  ['0175', 'AL'], // Albânia
  ['0230', 'DE'], // Alemanha
  ['0310', 'BF'], // Burkina Faso
  ['0370', 'AD'], // Andorra
  ['0400', 'AO'], // Angola
  ['0418', 'AI'], // Anguilla
  ['0434', 'AG'], // Antígua e Barbuda
  ['0531', 'SA'], // Arábia Saudita
  ['0590', 'DZ'], // Argélia
  ['0639', 'AR'], // Argentina
  ['0647', 'AM'], // Armênia
  ['0655', 'AW'], // Aruba
  ['0698', 'AU'], // Austrália
  ['0728', 'AT'], // Áustria
  ['0736', 'AZ'], // Azerbaijão
  ['0779', 'BS'], // Bahamas
  ['0809', 'BH'], // Bahrein
  ['0817', 'BD'], // Bangladesh
  ['0833', 'BB'], // Barbados
  ['0850', 'BY'], // Belarus
  ['0876', 'BE'], // Bélgica
  ['0884', 'BZ'], // Belize
  ['0906', 'BM'], // Bermudas
  ['0930', 'MM'], // Mianmar
  ['0973', 'BO'], // Bolívia
  ['0981', 'BA'], // Bósnia-Herzegovina
  ['1015', 'BW'], // Botsuana
  ['1058', 'BR'], // Brasil
  ['1082', 'BN'], // Brunei
  ['1112', 'BG'], // Bulgária
  ['1155', 'BI'], // Burundi
  ['1198', 'BT'], // Butão
  ['1279', 'CV'], // Cabo Verde
  ['1376', 'KY'], // Cayman, Ilhas
  ['1414', 'KH'], // Camboja
  ['1457', 'CM'], // Camarões
  ['1490', 'CA'], // Canadá
  ['1504', 'GG'], // Guernsey
  ['1508', 'JE'], // Jersey
  ['1538', 'KZ'], // Cazaquistão
  ['1546', 'QA'], // Catar
  ['1589', 'CL'], // Chile
  ['1600', 'CN'], // China
  ['1619', 'TW'], // Formosa (Taiwan)
  ['1635', 'CY'], // Chipre
  ['1694', 'CO'], // Colômbia
  ['1732', 'KM'], // Comores
  ['1775', 'CG'], // Congo
  ['1830', 'CK'], // Cook, Ilhas
  ['1872', 'KP'], // Coreia do Norte
  ['1902', 'KR'], // Coreia do Sul
  ['1937', 'CI'], // Costa do Marfim
  ['1953', 'HR'], // Croácia
  ['1961', 'CR'], // Costa Rica
  ['1988', 'KW'], // Kuwait
  ['1996', 'CU'], // Cuba
  ['2291', 'BJ'], // Benin
  ['2321', 'DK'], // Dinamarca
  ['2356', 'DM'], // Dominica
  ['2399', 'EC'], // Equador
  ['2402', 'EG'], // Egito
  ['2437', 'ER'], // Eritreia
  ['2445', 'AE'], // Emirados Árabes Unidos
  ['2453', 'ES'], // Espanha
  ['2461', 'SI'], // Eslovênia
  ['2470', 'SK'], // Eslováquia
  ['2496', 'US'], // Estados Unidos
  ['2518', 'EE'], // Estônia
  ['2534', 'ET'], // Etiópia
  ['2550', 'FK'], // Falkland (Malvinas)
  ['2593', 'FO'], // Feroe, Ilhas
  ['2674', 'PH'], // Filipinas
  ['2712', 'FI'], // Finlândia
  ['2755', 'FR'], // França
  ['2810', 'GA'], // Gabão
  ['2852', 'GM'], // Gâmbia
  ['2895', 'GH'], // Gana
  ['2917', 'GE'], // Geórgia
  ['2933', 'GI'], // Gibraltar
  ['2976', 'GD'], // Granada
  ['3018', 'GR'], // Grécia
  ['3050', 'GL'], // Groenlândia
  ['3093', 'GP'], // Guadalupe
  ['3131', 'GU'], // Guam
  ['3174', 'GT'], // Guatemala
  ['3255', 'GF'], // Guiana Francesa
  ['3298', 'GN'], // Guiné
  ['3310', 'GQ'], // Guiné Equatorial
  ['3344', 'GW'], // Guiné-Bissau
  ['3379', 'GY'], // Guiana
  ['3417', 'HT'], // Haiti
  ['3450', 'HN'], // Honduras
  ['3514', 'HK'], // Hong Kong
  ['3557', 'HU'], // Hungria
  ['3573', 'YE'], // Iêmen
  ['3595', 'IM'], // Man, Ilha de
  ['3611', 'IN'], // Índia
  ['3654', 'ID'], // Indonésia
  ['3697', 'IQ'], // Iraque
  ['3727', 'IR'], // Irã
  ['3751', 'IE'], // Irlanda
  ['3794', 'IS'], // Islândia
  ['3832', 'IL'], // Israel
  ['3867', 'IT'], // Itália
  ['3913', 'JM'], // Jamaica
  ['3999', 'JP'], // Japão
  ['4030', 'JO'], // Jordânia
  ['4111', 'KI'], // Kiribati
  ['4200', 'LA'], // Laos
  ['4260', 'LS'], // Lesoto
  ['4278', 'LV'], // Letônia
  ['4316', 'LB'], // Líbano
  ['4340', 'LR'], // Libéria
  ['4383', 'LY'], // Líbia
  ['4405', 'LI'], // Liechtenstein
  ['4421', 'LT'], // Lituânia
  ['4456', 'LU'], // Luxemburgo
  ['4472', 'MO'], // Macau
  ['4499', 'MK'], // Macedônia do Norte
  ['4502', 'MG'], // Madagascar
  ['4553', 'MY'], // Malásia
  ['4588', 'MW'], // Malaui
  ['4618', 'MV'], // Maldivas
  ['4642', 'ML'], // Mali
  ['4677', 'MT'], // Malta
  ['4723', 'MP'], // Marianas do Norte
  ['4740', 'MA'], // Marrocos
  ['4766', 'MH'], // Marshall, Ilhas
  ['4774', 'MQ'], // Martinica
  ['4855', 'MU'], // Maurício
  ['4880', 'MR'], // Mauritânia
  ['4885', 'YT'], // Mayotte
  ['4936', 'MX'], // México
  ['4944', 'MD'], // Moldávia
  ['4952', 'MC'], // Mônaco
  ['4979', 'MN'], // Mongólia
  ['4985', 'ME'], // Montenegro
  ['4995', 'FM'], // Micronésia
  ['5010', 'MS'], // Montserrat
  ['5053', 'MZ'], // Moçambique
  ['5070', 'NA'], // Namíbia
  ['5088', 'NR'], // Nauru
  ['5118', 'CX'], // Christmas, Ilha
  ['5177', 'NP'], // Nepal
  ['5215', 'NI'], // Nicarágua
  ['5258', 'NE'], // Níger
  ['5282', 'NG'], // Nigéria
  ['5312', 'NU'], // Niue
  ['5355', 'NF'], // Norfolk, Ilha
  ['5380', 'NO'], // Noruega
  ['5428', 'NC'], // Nova Caledônia
  ['5452', 'PG'], // Papua Nova Guiné
  ['5487', 'NZ'], // Nova Zelândia
  ['5517', 'VU'], // Vanuatu
  ['5568', 'OM'], // Omã
  ['5738', 'NL'], // Países Baixos (Holanda)
  ['5754', 'PW'], // Palau
  ['5762', 'PK'], // Paquistão
  ['5800', 'PA'], // Panamá
  ['5860', 'PY'], // Paraguai
  ['5894', 'PE'], // Peru
  ['5932', 'PN'], // Pitcairn
  ['5991', 'PF'], // Polinésia Francesa
  ['6033', 'PL'], // Polônia
  ['6076', 'PT'], // Portugal
  ['6114', 'PR'], // Porto Rico
  ['6238', 'KE'], // Quênia
  ['6254', 'KG'], // Quirguistão
  ['6289', 'GB'], // Reino Unido
  ['6408', 'CF'], // República Centro-Africana
  ['6475', 'DO'], // República Dominicana
  ['6602', 'RE'], // Reunião
  ['6653', 'ZW'], // Zimbábue
  ['6700', 'RO'], // Romênia
  ['6750', 'RW'], // Ruanda
  ['6769', 'RU'], // Rússia
  ['6777', 'SB'], // Salomão, Ilhas
  ['6858', 'EH'], // Saara Ocidental
  ['6874', 'SV'], // El Salvador
  ['6904', 'WS'], // Samoa
  ['6912', 'AS'], // Samoa Americana
  ['6955', 'KN'], // São Cristóvão e Névis
  ['6971', 'SM'], // San Marino
  ['7005', 'PM'], // São Pedro e Miquelon
  ['7056', 'VC'], // São Vicente e Granadinas
  ['7102', 'SH'], // Santa Helena
  ['7153', 'LC'], // Santa Lúcia
  ['7200', 'ST'], // São Tomé e Príncipe
  ['7285', 'SN'], // Senegal
  ['7315', 'SC'], // Seychelles
  ['7358', 'SL'], // Serra Leoa
  ['7370', 'RS'], // Sérvia
  ['7412', 'SG'], // Cingapura
  ['7447', 'SY'], // Síria
  ['7480', 'SO'], // Somália
  ['7501', 'LK'], // Sri Lanka
  ['7544', 'SZ'], // Essuatíni
  ['7560', 'ZA'], // África do Sul
  ['7595', 'SD'], // Sudão
  ['7641', 'SE'], // Suécia
  ['7676', 'CH'], // Suíça
  ['7706', 'SR'], // Suriname
  ['7722', 'TJ'], // Tadjiquistão
  ['7765', 'TH'], // Tailândia
  ['7803', 'TZ'], // Tanzânia
  ['7820', 'IO'], // Território Britânico do Oceano Índico
  ['7838', 'DJ'], // Djibuti
  ['7889', 'TD'], // Chade
  ['7919', 'CZ'], // Tchéquia
  ['7951', 'TL'], // Timor-Leste
  ['8001', 'TG'], // Togo
  ['8052', 'TK'], // Toquelau
  ['8109', 'TO'], // Tonga
  ['8150', 'TT'], // Trinidad e Tobago
  ['8206', 'TN'], // Tunísia
  ['8230', 'TC'], // Turcas e Caicos
  ['8249', 'TM'], // Turcomenistão
  ['8273', 'TR'], // Turquia
  ['8281', 'TV'], // Tuvalu
  ['8311', 'UA'], // Ucrânia
  ['8338', 'UG'], // Uganda
  ['8451', 'UY'], // Uruguai
  ['8478', 'UZ'], // Uzbequistão
  ['8486', 'VA'], // Vaticano
  ['8508', 'VE'], // Venezuela
  ['8583', 'VN'], // Vietnã
  ['8630', 'VG'], // Virgens, Ilhas (Britânicas)
  ['8664', 'VI'], // Virgens, Ilhas (EUA)
  ['8702', 'FJ'], // Fiji
  ['8885', 'CD'], // Congo, República Democrática do
  ['8907', 'ZM'], // Zâmbia
]);

/**
 * The ISO code of a BACEN country code, written with or without its leading zeros (`639`, `0639`);
 * null when the code is not in the table.
 */
export const isoCountryOfBacen = (code: string): string | null => {
  const digits = code.trim();
  if (!/^\d{1,4}$/.test(digits)) return null;
  return BACEN_TO_ISO.get(digits.padStart(4, '0')) ?? null;
};
