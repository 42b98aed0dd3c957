/**
 * Imports run one way: no file imports itself back through others, and the core's shared layer
 * (shared/pipeline/core/) never reaches up into a room that uses it. `npm run deps` checks it;
 * `npm test` runs it first.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import cycle: the files involved cannot be read, tested or loaded one before the other.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-stays-below',
      severity: 'error',
      comment: 'shared/pipeline/core/ is what every room shares: it imports no room of the pipeline.',
      from: { path: '^shared/pipeline/core/' },
      to: { path: '^shared/pipeline/(?!core/)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsConfig: { fileName: 'tsconfig.json' },
    // TypeScript's own parser, with every `import type` read as an import: a cycle through types
    // is a cycle too. (Babel read the files the same way at three times the CPU.)
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { extensions: ['.ts', '.tsx', '.js', '.mjs'] },
  },
};
