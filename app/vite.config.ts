// Builds the renderer once for both hosts: Electron loads it from airlock://app/, web mode
// serves it from http://127.0.0.1:PORT/. Both apply a strict CSP (script-src 'self', no
// inline), so nothing may be inlined into index.html.
import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    emptyOutDir: true,
    // The modulepreload polyfill would be an inline script: the CSP forbids it, and both
    // hosts (Chromium in Electron, a current browser) support modulepreload natively.
    modulePreload: { polyfill: false },
    assetsInlineLimit: 0,
    sourcemap: false,
    target: 'es2022',
  },
});
