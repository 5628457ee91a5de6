// Builds the console into crates/server/console (committed; deft serve embeds it).
// The output must be byte-identical for the same inputs: scripts/web.sh check rebuilds and diffs.
import { fileURLToPath } from "node:url";
import { defineConfig } from "vite";

const outDir = fileURLToPath(new URL("../crates/server/console", import.meta.url));

export default defineConfig({
  base: "/",
  oxc: {
    jsx: { runtime: "automatic", importSource: "preact" },
  },
  build: {
    outDir,
    emptyOutDir: true,
    assetsDir: "assets",
    sourcemap: false,
    target: "es2022",
    modulePreload: { polyfill: false },
    rollupOptions: {
      output: {
        entryFileNames: "assets/console-[hash].js",
        chunkFileNames: "assets/[name]-[hash].js",
        assetFileNames: "assets/console-[hash][extname]",
      },
    },
  },
  server: {
    proxy: {
      "/api": "http://127.0.0.1:8030",
      "/health": "http://127.0.0.1:8030",
    },
  },
});
