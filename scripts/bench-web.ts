/**
 * `npm run bench:web`: the sign-in pages as Lighthouse sees them on a phone (issue #9), never a timed test.
 * Lighthouse 12 (the version the issue measured with), its mobile preset with simulated throttling, on Debian's
 * Chromium; the median of BENCH_WEB_RUNS runs (default 3) of `/`, `/register` and `/account/recover`, in the
 * default brand (localhost) and the cloud brand (cloud.localhost, as the brands file maps it), against the gateway
 * started as in production (NODE_ENV=production, the built web app, precompressed files).
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { cpus, tmpdir, totalmem } from "node:os";
import { join, resolve } from "node:path";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";

const ROOT = resolve(import.meta.dirname, "..");
const CHROMIUM = process.env.CHROME_PATH ?? "/usr/bin/chromium";
const RUNS = Number(process.env.BENCH_WEB_RUNS ?? 3);
/** A folder to keep each run's full Lighthouse report in (JSON), for a look at what it flags. */
const REPORTS = process.env.BENCH_WEB_REPORTS;
const PORT = 18183;
const PATHS = ["/", "/register", "/account/recover"];
/** Host names of the brands file (packages/server/config/brands.json): the default brand and one other. */
const HOSTS = [
  { brand: "default", host: "localhost" },
  { brand: "cloud", host: "cloud.localhost" },
];

interface Column {
  name: string;
  target: string;
  /** The figure of one run, from Lighthouse's result. */
  read: (lhr: Result) => number;
  format: (value: number) => string;
  met?: (value: number) => boolean;
}
type Result = {
  categories: Record<string, { score: number | null }>;
  audits: Record<string, { numericValue?: number }>;
};

const score = (id: string) => (lhr: Result) => Math.round((lhr.categories[id]?.score ?? 0) * 100);
const audit = (id: string) => (lhr: Result) => lhr.audits[id]?.numericValue ?? Number.NaN;
const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The table's columns, each with the target where it sets one. */
const COLUMNS: Column[] = [
  { name: "perf", target: "≥ 95", read: score("performance"), format: String, met: (v) => v >= 95 },
  { name: "a11y", target: "100", read: score("accessibility"), format: String, met: (v) => v === 100 },
  { name: "BP", target: "≥ 95", read: score("best-practices"), format: String, met: (v) => v >= 95 },
  { name: "SEO", target: "≥ 95", read: score("seo"), format: String, met: (v) => v >= 95 },
  { name: "FCP", target: "", read: audit("first-contentful-paint"), format: seconds },
  { name: "LCP", target: "", read: audit("largest-contentful-paint"), format: seconds },
  { name: "TBT", target: "", read: audit("total-blocking-time"), format: (ms) => `${Math.round(ms)} ms` },
  { name: "CLS", target: "", read: audit("cumulative-layout-shift"), format: (v) => v.toFixed(3) },
  {
    name: "transferred",
    target: "",
    read: audit("total-byte-weight"),
    format: (bytes) => `${(bytes / 1024).toFixed(0)} KiB`,
  },
];

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

/** The web app as `npm start` builds it (with its precompressed files and preload list). */
function build() {
  const result = spawnSync(
    process.execPath,
    [join(ROOT, "node_modules/vite/bin/vite.js"), "build", "--logLevel", "warn"],
    {
      cwd: join(ROOT, "packages/web"),
      stdio: "inherit",
    },
  );
  if (result.status !== 0) throw new Error("the web build failed");
}

function startGateway(): ChildProcess {
  const dir = mkdtempSync(join(tmpdir(), "gatehouse-bench-web-"));
  return spawn(process.execPath, ["packages/server/src/main.ts"], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: `sqlite:${join(dir, "bench.db")}`,
      PORT: String(PORT),
      HOST: "127.0.0.1",
      PUBLIC_URL: `http://localhost:${PORT}`,
      LOG_LEVEL: "warn",
      NODE_ENV: "production",
      // Required in production; the pages measured send no mail.
      SMTP_URL: "smtp://127.0.0.1:1",
      SESSION_SECRET: "bench-secret-bench-secret-bench-secret",
    },
    stdio: ["ignore", "ignore", "inherit"],
  });
}

async function ready(url: string) {
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

/** One Lighthouse run in a fresh Chromium (an empty cache, as a first visit). */
async function measure(url: string): Promise<Result> {
  const chrome = await chromeLauncher.launch({
    chromePath: CHROMIUM,
    chromeFlags: ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking"],
  });
  try {
    // No config: Lighthouse's default is the mobile preset with simulated throttling.
    const result = await lighthouse(url, {
      port: chrome.port,
      output: "json",
      logLevel: "error",
      onlyCategories: ["performance", "accessibility", "best-practices", "seo"],
    });
    if (!result) throw new Error(`Lighthouse gave no result for ${url}`);
    const lhr = result.lhr as unknown as Result & { runtimeError?: { message: string } };
    if (lhr.runtimeError) throw new Error(`${url}: ${lhr.runtimeError.message}`);
    if (REPORTS) {
      mkdirSync(REPORTS, { recursive: true });
      const name = `${new URL(url).host}${new URL(url).pathname}`.replace(/[^a-z0-9]+/giu, "_");
      writeFileSync(join(REPORTS, `${name}-${Date.now()}.json`), result.report as string);
    }
    return lhr;
  } finally {
    chrome.kill();
  }
}

/** Lighthouse sometimes loses its trace on a loaded machine (NO_NAVSTART, NO_FCP): such a run is repeated. */
async function measureAgainOnFailure(url: string, tries = 3): Promise<Result> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await measure(url);
    } catch (error) {
      if (attempt >= tries) throw error;
      console.error(`${(error as Error).message}: measuring again`);
    }
  }
}

function printTable(rows: { label: string; values: number[] }[]) {
  const header = ["page", ...COLUMNS.map((c) => (c.target ? `${c.name} (${c.target})` : c.name))];
  const body = rows.map((row) => [
    row.label,
    ...COLUMNS.map((column, i) => {
      const value = row.values[i] as number;
      const verdict = column.met ? (column.met(value) ? " ✓" : " ✗") : "";
      return `${column.format(value)}${verdict}`;
    }),
  ]);
  const widths = header.map((_, i) => Math.max(...[header, ...body].map((line) => (line[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((cell, i) => cell.padEnd(widths[i] ?? 0)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
  for (const cells of body) console.log(line(cells));
}

async function main() {
  build();
  const gateway = startGateway();
  try {
    await ready(`http://127.0.0.1:${PORT}/readyz`);
    const rows: { label: string; values: number[] }[] = [];
    for (const { brand, host } of HOSTS) {
      for (const path of PATHS) {
        const url = `http://${host}:${PORT}${path}`;
        const runs: Result[] = [];
        for (let i = 0; i < RUNS; i++) runs.push(await measureAgainOnFailure(url));
        rows.push({ label: `${brand} ${path}`, values: COLUMNS.map((c) => median(runs.map(c.read))) });
        console.error(`measured ${url} (${RUNS} runs)`);
      }
    }
    const lighthouseVersion = (await import("lighthouse/package.json", { with: { type: "json" } })).default.version;
    console.log(
      `\nLighthouse ${lighthouseVersion}, mobile preset, simulated throttling, median of ${RUNS} runs per column; ` +
        `${CHROMIUM}; ${cpus().length} × ${cpus()[0]?.model ?? "CPU"}, ${Math.round(totalmem() / 2 ** 30)} GiB\n`,
    );
    printTable(rows);
  } finally {
    gateway.kill();
  }
}

await main();
