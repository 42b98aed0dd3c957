/**
 * The operations console's browser app. Built by `npm run console:build` into out/console-web
 * (or CONSOLE_WEB_OUT_DIR), with relative asset paths so it can be served under any path: an S3
 * bucket behind CloudFront on AWS, the local console's loopback server locally. The page reads
 * its API URL and sign-in settings from ./config.json at start, so one build serves everywhere.
 */
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const here = (path: string): string => fileURLToPath(new URL(path, import.meta.url));

export default defineConfig({
  root: here('.'),
  base: './',
  plugins: [react()],
  resolve: {
    // The front door (shared/console/web-contract.ts) reaches a module that imports node:path
    // (see src/shims/node-path.ts).
    alias: [{ find: /^node:path$/, replacement: here('./src/shims/node-path.ts') }],
  },
  build: {
    outDir: process.env.CONSOLE_WEB_OUT_DIR ?? here('../out/console-web'),
    emptyOutDir: true,
    target: 'es2022',
    // One page for a few operators, React, zod and the OIDC client included: one 550 kB file
    // (165 kB gzipped) is what it costs, and splitting it would save nothing on a page loaded
    // once per session.
    chunkSizeWarningLimit: 600,
  },
});
