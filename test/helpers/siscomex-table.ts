/**
 * NCM tables as Siscomex publishes them (shared/ncm-table/siscomex-table.ts), built by the tests:
 * an entry is a code (dotted as the table writes it) and its description, in force from `starts`
 * to `ends` (dd/mm/yyyy; 31/12/9999: no end set), created by the act the table names.
 */
export type SiscomexEntry = {
  Codigo: string;
  Descricao: string;
  Data_Inicio: string;
  Data_Fim: string;
  Tipo_Ato_Ini: string;
  Numero_Ato_Ini: string;
  Ano_Ato_Ini: string;
};

export const siscomexEntry = (
  Codigo: string,
  Descricao: string,
  { starts = '01/04/2022', ends = '31/12/9999' }: { starts?: string; ends?: string } = {},
): SiscomexEntry => ({
  Codigo,
  Descricao,
  Data_Inicio: starts,
  Data_Fim: ends,
  Tipo_Ato_Ini: 'Res Gecex',
  Numero_Ato_Ini: '272',
  Ano_Ato_Ini: '2021',
});

/** A whole publication: `Vigente em <asOf>` (dd/mm/yyyy), its act, its entries. */
export const siscomexTable = (asOf: string, act: string, entries: readonly SiscomexEntry[]) => ({
  Data_Ultima_Atualizacao_NCM: `Vigente em ${asOf}`,
  Ato: act,
  Nomenclaturas: [...entries],
});
