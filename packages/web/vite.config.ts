import react from "@vitejs/plugin-react";
import { defineConfig } from "vite";

/** The SPA build. `npm start` serves dist/ through the gateway; `vite` alone proxies /api to it. */
export default defineConfig({
  plugins: [react()],
  build: { target: "es2022", sourcemap: true, manifest: true, reportCompressedSize: false },
  server: { proxy: { "/api": "http://localhost:8080" } },
});
