/**
 * NF-e 4.00 XML as an issuer's software writes it (`nfeProc` holding `NFe/infNFe`, its `Signature`
 * and the authorisation `protNFe`), for the NF-e reader's tests and the sample data's invoices:
 * access keys and CNPJs with their real check digits, pretty-printed one element a line.
 */

/** A CNPJ's two check digits (mod 11, weights 2..9 from the right), after its 12 digits. */
export const cnpj = (twelveDigits: string): string => {
  const digit = (base: string): string => {
    let sum = 0;
    for (let i = 0; i < base.length; i++) sum += Number(base[base.length - 1 - i]) * ((i % 8) + 2);
    const rest = sum % 11;
    return String(rest < 2 ? 0 : 11 - rest);
  };
  const first = digit(twelveDigits);
  return twelveDigits + first + digit(twelveDigits + first);
};

/** The access key's check digit (mod 11, weights 2..9 from the right; 0 when 10 or 11). */
const keyDigit = (base: string): string => {
  let sum = 0;
  for (let i = 0; i < base.length; i++) sum += Number(base[base.length - 1 - i]) * ((i % 8) + 2);
  const digit = 11 - (sum % 11);
  return String(digit >= 10 ? 0 : digit);
};

export interface NfeItemSpec {
  cProd: string;
  cEAN?: string;
  xProd: string;
  NCM: string;
  CEST?: string;
  EXTIPI?: string;
  CFOP: string;
  uCom: string;
  qCom: string;
  vUnCom: string;
}

export interface NfeParty {
  /** CNPJ for a Brazilian party; a foreign one has `idEstrangeiro` instead. */
  cnpj?: string;
  /** A Brazilian party's state registration. */
  ie?: string;
  idEstrangeiro?: string;
  xNome: string;
  cPais?: string;
  xPais?: string;
  /** Street, number, district, city (IBGE code and name), state, postcode; São Paulo's Avenida Paulista when absent. */
  address?: {
    xLgr: string;
    nro: string;
    xBairro: string;
    cMun: string;
    xMun: string;
    UF: string;
    CEP?: string;
  };
}

const PAULISTA = {
  xLgr: 'AVENIDA PAULISTA',
  nro: '1000',
  xBairro: 'BELA VISTA',
  cMun: '3550308',
  xMun: 'SAO PAULO',
  UF: 'SP',
  CEP: '01310100',
};
const ABROAD: NonNullable<NfeParty['address']> = {
  xLgr: 'EXTERIOR',
  nro: 'S/N',
  xBairro: 'EXTERIOR',
  cMun: '9999999',
  xMun: 'EXTERIOR',
  UF: 'EX',
};

export interface NfeSpec {
  /** IBGE state code of the issuer (35 São Paulo). */
  cUF: string;
  /** `2026-10-05T10:15:00-03:00`. */
  dhEmi: string;
  nNF: number;
  cNF: string;
  natOp: string;
  /** 0 incoming, 1 outgoing. */
  tpNF: '0' | '1';
  emit: NfeParty & { cnpj: string };
  dest: NfeParty;
  items: NfeItemSpec[];
  /** Write the `Signature` element (as every authorised NF-e has). */
  signed?: boolean;
  /** Write `protNFe` and wrap in `nfeProc`; without it the root is `NFe`. */
  authorised?: boolean;
}

/** The 44-digit access key: cUF, AAMM, CNPJ, model 55, series 1, number, tpEmis 1, cNF, check digit. */
export const accessKey = (spec: NfeSpec): string => {
  const yymm = spec.dhEmi.slice(2, 4) + spec.dhEmi.slice(5, 7);
  const base = `${spec.cUF}${yymm}${spec.emit.cnpj}55001${String(spec.nNF).padStart(9, '0')}1${spec.cNF}`;
  return base + keyDigit(base);
};

const xmlText = (text: string): string =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

const money = (value: number): string => value.toFixed(2);

const party = (role: 'emit' | 'dest', p: NfeParty, indent: string): string[] => {
  const address = role === 'emit' ? 'enderEmit' : 'enderDest';
  const foreign = p.idEstrangeiro !== undefined;
  const where = p.address ?? (foreign ? ABROAD : PAULISTA);
  return [
    `${indent}<${role}>`,
    p.cnpj
      ? `${indent}  <CNPJ>${p.cnpj}</CNPJ>`
      : `${indent}  <idEstrangeiro>${xmlText(p.idEstrangeiro ?? '')}</idEstrangeiro>`,
    `${indent}  <xNome>${xmlText(p.xNome)}</xNome>`,
    `${indent}  <${address}>`,
    `${indent}    <xLgr>${xmlText(where.xLgr)}</xLgr>`,
    `${indent}    <nro>${xmlText(where.nro)}</nro>`,
    `${indent}    <xBairro>${xmlText(where.xBairro)}</xBairro>`,
    `${indent}    <cMun>${where.cMun}</cMun>`,
    `${indent}    <xMun>${xmlText(where.xMun)}</xMun>`,
    `${indent}    <UF>${where.UF}</UF>`,
    ...(where.CEP ? [`${indent}    <CEP>${where.CEP}</CEP>`] : []),
    ...(p.cPais ? [`${indent}    <cPais>${p.cPais}</cPais>`] : []),
    ...(p.xPais ? [`${indent}    <xPais>${xmlText(p.xPais)}</xPais>`] : []),
    `${indent}  </${address}>`,
    ...(role === 'emit'
      ? [`${indent}  <IE>${p.ie ?? '111222333444'}</IE>`, `${indent}  <CRT>3</CRT>`]
      : foreign
        ? [`${indent}  <indIEDest>9</indIEDest>`]
        : [`${indent}  <indIEDest>1</indIEDest>`, `${indent}  <IE>${p.ie ?? '110042490114'}</IE>`]),
    `${indent}</${role}>`,
  ];
};

const item = (spec: NfeItemSpec, n: number, indent: string): string[] => {
  const total = money(Number(spec.qCom) * Number(spec.vUnCom));
  const ean = spec.cEAN ?? 'SEM GTIN';
  return [
    `${indent}<det nItem="${n}">`,
    `${indent}  <prod>`,
    `${indent}    <cProd>${xmlText(spec.cProd)}</cProd>`,
    `${indent}    <cEAN>${ean}</cEAN>`,
    `${indent}    <xProd>${xmlText(spec.xProd)}</xProd>`,
    `${indent}    <NCM>${spec.NCM}</NCM>`,
    ...(spec.CEST ? [`${indent}    <CEST>${spec.CEST}</CEST>`] : []),
    ...(spec.EXTIPI ? [`${indent}    <EXTIPI>${spec.EXTIPI}</EXTIPI>`] : []),
    `${indent}    <CFOP>${spec.CFOP}</CFOP>`,
    `${indent}    <uCom>${spec.uCom}</uCom>`,
    `${indent}    <qCom>${Number(spec.qCom).toFixed(4)}</qCom>`,
    `${indent}    <vUnCom>${Number(spec.vUnCom).toFixed(10)}</vUnCom>`,
    `${indent}    <vProd>${total}</vProd>`,
    `${indent}    <cEANTrib>${ean}</cEANTrib>`,
    `${indent}    <uTrib>${spec.uCom}</uTrib>`,
    `${indent}    <qTrib>${Number(spec.qCom).toFixed(4)}</qTrib>`,
    `${indent}    <vUnTrib>${Number(spec.vUnCom).toFixed(10)}</vUnTrib>`,
    `${indent}    <indTot>1</indTot>`,
    `${indent}  </prod>`,
    `${indent}  <imposto>`,
    `${indent}    <ICMS><ICMS00><orig>${spec.CFOP.startsWith('3') ? '1' : '0'}</orig><CST>00</CST><modBC>3</modBC><vBC>${total}</vBC><pICMS>18.00</pICMS><vICMS>${money(Number(total) * 0.18)}</vICMS></ICMS00></ICMS>`,
    `${indent}    <PIS><PISNT><CST>07</CST></PISNT></PIS>`,
    `${indent}    <COFINS><COFINSNT><CST>07</CST></COFINSNT></COFINS>`,
    `${indent}  </imposto>`,
    `${indent}</det>`,
  ];
};

/** A signature as the issuer's certificate writes it (the digest and value are placeholders of the right form). */
const signature = (key: string, indent: string): string[] => [
  `${indent}<Signature xmlns="http://www.w3.org/2000/09/xmldsig#">`,
  `${indent}  <SignedInfo>`,
  `${indent}    <CanonicalizationMethod Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>`,
  `${indent}    <SignatureMethod Algorithm="http://www.w3.org/2000/09/xmldsig#rsa-sha1"/>`,
  `${indent}    <Reference URI="#NFe${key}">`,
  `${indent}      <Transforms>`,
  `${indent}        <Transform Algorithm="http://www.w3.org/2000/09/xmldsig#enveloped-signature"/>`,
  `${indent}        <Transform Algorithm="http://www.w3.org/TR/2001/REC-xml-c14n-20010315"/>`,
  `${indent}      </Transforms>`,
  `${indent}      <DigestMethod Algorithm="http://www.w3.org/2000/09/xmldsig#sha1"/>`,
  `${indent}      <DigestValue>${Buffer.from(key.slice(0, 20)).toString('base64')}</DigestValue>`,
  `${indent}    </Reference>`,
  `${indent}  </SignedInfo>`,
  `${indent}  <SignatureValue>${Buffer.from(`signature of ${key}`).toString('base64')}</SignatureValue>`,
  `${indent}  <KeyInfo><X509Data><X509Certificate>${Buffer.from(`certificate ${key.slice(6, 20)}`).toString('base64')}</X509Certificate></X509Data></KeyInfo>`,
  `${indent}</Signature>`,
];

/** The invoice's XML text. */
export const nfeXml = (spec: NfeSpec): string => {
  const key = accessKey(spec);
  const authorised = spec.authorised ?? true;
  const nfeIndent = authorised ? '  ' : '';
  const i = `${nfeIndent}    `;
  const total = spec.items.reduce((sum, it) => sum + Number(money(Number(it.qCom) * Number(it.vUnCom))), 0);
  const foreignDest = spec.dest.idEstrangeiro !== undefined;
  const nfe = [
    `${nfeIndent}<NFe xmlns="http://www.portalfiscal.inf.br/nfe">`,
    `${nfeIndent}  <infNFe Id="NFe${key}" versao="4.00">`,
    `${i}<ide>`,
    `${i}  <cUF>${spec.cUF}</cUF>`,
    `${i}  <cNF>${spec.cNF}</cNF>`,
    `${i}  <natOp>${xmlText(spec.natOp)}</natOp>`,
    `${i}  <mod>55</mod>`,
    `${i}  <serie>1</serie>`,
    `${i}  <nNF>${spec.nNF}</nNF>`,
    `${i}  <dhEmi>${spec.dhEmi}</dhEmi>`,
    `${i}  <tpNF>${spec.tpNF}</tpNF>`,
    `${i}  <idDest>${foreignDest ? 3 : (spec.dest.address ?? PAULISTA).UF === (spec.emit.address ?? PAULISTA).UF ? 1 : 2}</idDest>`,
    `${i}  <cMunFG>3550308</cMunFG>`,
    `${i}  <tpImp>1</tpImp>`,
    `${i}  <tpEmis>1</tpEmis>`,
    `${i}  <cDV>${key.slice(-1)}</cDV>`,
    `${i}  <tpAmb>1</tpAmb>`,
    `${i}  <finNFe>1</finNFe>`,
    `${i}  <indFinal>0</indFinal>`,
    `${i}  <indPres>9</indPres>`,
    `${i}  <procEmi>0</procEmi>`,
    `${i}  <verProc>ERP 5.2</verProc>`,
    `${i}</ide>`,
    ...party('emit', spec.emit, i),
    ...party('dest', spec.dest, i),
    ...spec.items.flatMap((it, n) => item(it, n + 1, i)),
    `${i}<total>`,
    `${i}  <ICMSTot><vProd>${money(total)}</vProd><vNF>${money(total)}</vNF></ICMSTot>`,
    `${i}</total>`,
    `${i}<transp><modFrete>9</modFrete></transp>`,
    `${i}<pag><detPag><tPag>90</tPag><vPag>0.00</vPag></detPag></pag>`,
    `${nfeIndent}  </infNFe>`,
    ...(spec.signed === false ? [] : signature(key, `${nfeIndent}  `)),
    `${nfeIndent}</NFe>`,
  ];
  const lines = authorised
    ? [
        '<nfeProc xmlns="http://www.portalfiscal.inf.br/nfe" versao="4.00">',
        ...nfe,
        '  <protNFe versao="4.00">',
        `    <infProt Id="ID1${key.slice(0, 14)}">`,
        '      <tpAmb>1</tpAmb>',
        '      <verAplic>SP_NFE_PL009_V4</verAplic>',
        `      <chNFe>${key}</chNFe>`,
        `      <dhRecbto>${spec.dhEmi.replace(/:00-03:00$/, ':41-03:00')}</dhRecbto>`,
        `      <nProt>1352600${String(spec.nNF).padStart(8, '0')}</nProt>`,
        `      <digVal>${Buffer.from(key.slice(20, 40)).toString('base64')}</digVal>`,
        '      <cStat>100</cStat>',
        '      <xMotivo>Autorizado o uso da NF-e</xMotivo>',
        '    </infProt>',
        '  </protNFe>',
        '</nfeProc>',
      ]
    : nfe;
  return `<?xml version="1.0" encoding="UTF-8"?>\n${lines.join('\n')}\n`;
};

/** An event on an invoice (here its cancellation), as SEFAZ returns it: what a ZIP of a month's XMLs also holds. */
export const cancellationEventXml = (key: string): string =>
  [
    '<?xml version="1.0" encoding="UTF-8"?>',
    '<procEventoNFe xmlns="http://www.portalfiscal.inf.br/nfe" versao="1.00">',
    '  <evento versao="1.00">',
    `    <infEvento Id="ID110111${key}01">`,
    '      <cOrgao>35</cOrgao>',
    `      <chNFe>${key}</chNFe>`,
    '      <tpEvento>110111</tpEvento>',
    '      <detEvento versao="1.00"><descEvento>Cancelamento</descEvento><xJust>Pedido cancelado pelo cliente</xJust></detEvento>',
    '    </infEvento>',
    '  </evento>',
    '</procEventoNFe>',
    '',
  ].join('\n');
