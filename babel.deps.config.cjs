/**
 * How dependency-cruiser reads TypeScript (.dependency-cruiser.cjs): Babel strips the types, but
 * first every `import type` is read as an import, so a cycle through types is a cycle too.
 */
const typeImportsCount = () => ({
  visitor: {
    // On entering the file, before the TypeScript preset (which elides type imports there too).
    Program(path) {
      for (const node of path.node.body) {
        if (!/^(Import|ExportNamed|ExportAll)Declaration$/.test(node.type) || !node.source) continue;
        if (node.importKind === 'type') node.importKind = 'value';
        if (node.exportKind === 'type') node.exportKind = 'value';
        for (const specifier of node.specifiers ?? []) {
          if (specifier.importKind === 'type') specifier.importKind = 'value';
          if (specifier.exportKind === 'type') specifier.exportKind = 'value';
        }
      }
    },
  },
});

module.exports = {
  plugins: [typeImportsCount],
  presets: [['@babel/preset-typescript', { onlyRemoveTypeImports: true }]],
};
