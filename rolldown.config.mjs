// The server as one entry file plus lazy chunks (demo, doctor): Node 20's ESM loader pays per
// module (zod and the MCP SDK alone are ~180), so a bundle answers `initialize` sooner. tsc's
// dist/ stays beside it for the library exports (dist/protocols/mi/miParser.js).
import { defineConfig } from 'rolldown';

export default defineConfig({
  input: { 'dbg-mcp': 'dist/main.js' },
  platform: 'node',
  // The pty binding loads a native addon found next to its package: it stays a dependency.
  external: [/^@lydell\/node-pty/],
  output: {
    dir: 'dist',
    format: 'esm',
    minify: true,
    entryFileNames: '[name].js',
    chunkFileNames: 'chunks/[name]-[hash].js',
  },
});
