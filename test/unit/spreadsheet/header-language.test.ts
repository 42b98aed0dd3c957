/** The language of a file's people, guessed from the words of its header row. */
import { describe, expect, it } from 'vitest';
import { FALLBACK_LANGUAGE, headerLanguage, LANGUAGES } from '../../../shared/spreadsheet/header-language.js';

const cells = (line: string): string[] => line.split(',');

describe('headerLanguage names the language most of the header’s words are written in', () => {
  it('reads a Brazilian catalogue’s header as Portuguese', () => {
    expect(
      headerLanguage(
        cells(
          'SKU,Descrição,Operação,País,Ficha técnica,NCM,Referência,Fornecedor,Preço unitário,Moeda,Observações',
        ),
      ),
    ).toBe('pt');
  });

  it('reads an Argentine catalogue’s header as Spanish', () => {
    expect(
      headerLanguage(
        cells(
          'SKU,Descripción,Operación,País,Ficha técnica,NCM,Referencia,Proveedor,Precio unitario,Moneda,Observaciones',
        ),
      ),
    ).toBe('es');
  });

  it('reads an English header as English', () => {
    expect(
      headerLanguage(
        cells('SKU,Description,Operation,Country,Datasheet,NCM,Reference,Supplier,Unit price,Currency,Notes'),
      ),
    ).toBe('en');
  });

  it('counts words written without their accents, as people type them', () => {
    expect(headerLanguage(['Codigo', 'Descricao', 'Operacao', 'Preco', 'Observacoes'])).toBe('pt');
    expect(headerLanguage(['Codigo', 'Descripcion', 'Operacion', 'Articulo', 'Mercaderia'])).toBe('es');
  });

  it('compares words without case and whatever Unicode form the accents came in', () => {
    expect(headerLanguage(['DESCRIÇÃO', 'FORNECEDOR'])).toBe('pt');
    // A Mac writes `ç` and `ã` decomposed (NFD): still the same Portuguese words.
    const decomposed = ['Descrição'.normalize('NFD'), 'Observações'.normalize('NFD')];
    expect(decomposed[0]).not.toBe('Descrição');
    expect(headerLanguage(decomposed)).toBe('pt');
    expect(headerLanguage(['DESCRIPCIÓN'.normalize('NFD'), 'PROVEEDOR'])).toBe('es');
  });

  it('finds the words inside longer headers, whatever separates them', () => {
    expect(headerLanguage(['Nombre del producto', 'NCM'])).toBe('es');
    expect(headerLanguage(['preço_unitário', 'ncm'])).toBe('pt');
    expect(headerLanguage(['Customer-Item-Code', 'NCM'])).toBe('en');
  });

  it('lets the majority win when the header mixes languages', () => {
    // Two English words against one Portuguese.
    expect(headerLanguage(['Descrição', 'Supplier', 'Unit price'])).toBe('en');
    // Two Portuguese against one Spanish.
    expect(headerLanguage(['Descripción', 'Fornecedor', 'Moeda'])).toBe('pt');
  });
});

describe('headerLanguage falls back when the header says nothing, and breaks ties in a fixed order', () => {
  it('gives English for a header of words no language owns', () => {
    expect(FALLBACK_LANGUAGE).toBe('en');
    expect(headerLanguage(['SKU', 'NCM'])).toBe('en');
    expect(headerLanguage(['SKU', 'NCM', 'País', 'Código', 'Modelo'])).toBe('en');
    expect(headerLanguage([])).toBe('en');
    expect(headerLanguage(['', '123', '#'])).toBe('en');
  });

  it('gives a tie to the language listed first: Portuguese, then Spanish, then English', () => {
    expect(LANGUAGES).toEqual(['pt', 'es', 'en']);
    expect(headerLanguage(['Descrição', 'Descripción'])).toBe('pt');
    expect(headerLanguage(['Descripción', 'Descrição'])).toBe('pt');
    expect(headerLanguage(['Descrição', 'Description'])).toBe('pt');
    expect(headerLanguage(['Description', 'Descripción'])).toBe('es');
    expect(headerLanguage(['Fornecedor', 'Proveedor', 'Supplier'])).toBe('pt');
  });
});
