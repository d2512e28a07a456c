import { defineConfig } from 'vite';

/**
 * The console is served by the gateway under /console/: hashed assets land in dist/assets (cached
 * long), index.html references them by absolute path. No inline script or style is emitted, so the
 * gateway's Content-Security-Policy (script-src 'self'; style-src 'self') holds.
 */
export default defineConfig({
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    cssCodeSplit: false,
    sourcemap: false,
  },
});
