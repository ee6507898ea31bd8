// The inbox (src/inbox): `npm run build` writes it to dist/inbox, which the server serves at `/`
// (src/http/routes/inbox.ts); `npm run dev` serves it with hot reload and hands /graphql to a
// server running on PORT (default 4000).
import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

const apiPort = process.env.PORT ?? '4000';

export default defineConfig({
  root: fileURLToPath(new URL('./src/inbox', import.meta.url)),
  base: '/',
  // Copied as they are to the root of dist/inbox: the service worker, the manifest, the icons.
  publicDir: fileURLToPath(new URL('./src/inbox/public', import.meta.url)),
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist/inbox', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Every asset is a file under /assets: nothing inlined, no preload polyfill, so the page
    // runs under `script-src 'self'` and `style-src 'self'`.
    assetsInlineLimit: 0,
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
  server: {
    proxy: { '/graphql': { target: `http://127.0.0.1:${apiPort}` } },
  },
});
