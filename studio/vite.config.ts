// Builds Strata Studio into dist/studio, served by Strata at /admin (src/http/routes/admin-app.ts).
import { fileURLToPath } from 'node:url';
import vue from '@vitejs/plugin-vue';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/admin/',
  plugins: [vue()],
  build: {
    outDir: fileURLToPath(new URL('../dist/studio', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    reportCompressedSize: true,
    // The rich-text editor (Quill, ~205 KB before gzip) and the code editor (CodeMirror, ~360 KB before gzip, 118 KB
    // gzipped) are the chunks above 200 KB; only forms with such a field load them, so the first screen is unaffected.
    chunkSizeWarningLimit: 384,
  },
});
