// npm run bench: every benchmark, one after the other, and bench/RESULTS.md with their figures. Each benchmark
// measures its own floor in the same run (bare courier calls, bare SQL, bare transaction + StartWorkflow,
// bare Temporal round trips), so every figure in the report stands beside the floor it is compared with.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT_DIR } from '../src/platform/config.js';

const BENCHES: { name: string; script: string; what: string }[] = [
  {
    name: 'quotes',
    script: 'bench/quotes.ts',
    what: 'POST /v1/quotes against 5 simulated couriers (50 ms each), beside a bare fan-out to the same couriers; then one courier hanging.',
  },
  {
    name: 'deliveries',
    script: 'bench/deliveries.ts',
    what: 'POST /v1/deliveries (API and worker in their own processes, workflows running), beside a bare transaction + bare StartWorkflow, each alone and in the same seconds; GET /v1/deliveries over 1,000,000 rows per query shape, beside the same SQL run bare.',
  },
  {
    name: 'webhooks',
    script: 'bench/webhooks.ts',
    what: 'Fleet event in -> signed merchant webhook out, with 1,000 deliveries in flight, beside bare HTTP and bare Temporal round trips.',
  },
  {
    name: 'lifecycle',
    script: 'bench/lifecycle.ts',
    what: "Whole lifecycles (quote, create, courier moves every 300 ms to delivered, one webhook endpoint) at stepped offered rates, each rate taken by the delivery and then by a minimal floor workflow, up to where the floor stops keeping up: the sustained rate, CPU seconds per lifecycle over every process of the stack, and Temporal history events, workflow tasks and actions per delivery; the ceiling (target: the delivery sustains the floor's rate at <= 1.1x its CPU per lifecycle); the same for a delivery with one failed attempt and for a return to sender (both attempts fail, the return is delivered), BENCH_KINDS.",
  },
  {
    name: 'replay',
    script: 'bench/workflow-replay.ts',
    what: "The delivery workflow's own code, replayed from recorded lifecycles (no server, database or network): the promises it creates per lifecycle (each costs a stack trace in the SDK's promise hook) and its CPU per replayed lifecycle.",
  },
  {
    name: 'cod',
    script: 'bench/cod.ts',
    what: 'Cash on delivery: GET /v1/cod/balances over 1,000,000 ledger entries (100 tenants, 10 courier companies, bulk-loaded with SQL), beside the same SQL run bare; a 500-item remittance (POST /v1/cod/remittances) end to end.',
  },
  {
    name: 'notifications',
    script: 'bench/notifications.ts',
    what: "Recipients' SMS: messages per second written by the enqueue path and sent by the outbox's sender to the SMSC simulator over SMPP, beside bare SMPP submits; the wake-up from commit to the SMSC. The lifecycle with SMS on vs off: `BENCH_SMS=on|off npm run bench:lifecycle`.",
  },
  {
    name: 'cluster',
    script: 'bench/cluster.ts',
    what: 'The create and lifecycle benchmarks above again, on a Temporal cluster (frontend, history, matching and worker services in four processes on Postgres, as `npm run cluster` runs it) instead of the dev server (one process, SQLite): the same figures, side by side with the ones above.',
  },
  {
    name: 'rss',
    script: 'bench/rss.ts',
    what: 'Peak RSS of the API and the worker, each in its own production process (npm run build; start:api / start:worker), under quote + create load with every delivery driven to delivered and webhooks sent.',
  },
];

/** Progress lines ("[name] 12 s ...") and ANSI colours are for the terminal, not the report. */
const forReport = (output: string) =>
  output
    .replace(/\x1b\[[0-9;]*m/g, '')
    .split('\n')
    .filter((line) => !/^\s+\[[^\]]+\]\s+\d+ s /.test(line) && !/^\s+\[#*\.*\]/.test(line) && !/npm warn/.test(line))
    .join('\n')
    .trim();

function run(script: string): Promise<{ code: number; output: string; seconds: number }> {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', script], {
      cwd: ROOT_DIR,
      env: process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const take = (chunk: Buffer, stream: NodeJS.WriteStream) => {
      output += chunk.toString();
      stream.write(chunk);
    };
    child.stdout.on('data', (c: Buffer) => take(c, process.stdout));
    child.stderr.on('data', (c: Buffer) => take(c, process.stderr));
    child.on('exit', (code) =>
      resolve({ code: code ?? 1, output, seconds: Math.round((Date.now() - started) / 1000) }),
    );
  });
}

/** The lines of a benchmark's output that state a figure against its target or floor: the run's summary. */
const verdicts = (output: string) =>
  forReport(output)
    .split('\n')
    .filter((line) => /\b(PASS|FAIL)\b|^Sustained:|^Ceiling:|^Topology:|Target .*: (met|NOT met)\.$/.test(line))
    .map((line) => line.trim());

const only = process.argv.slice(2);
const sections: string[] = [];
const summary: string[] = [];
let failed = 0;
for (const bench of BENCHES.filter((b) => only.length === 0 || only.includes(b.name))) {
  console.log(`\n\x1b[1m### npm run bench:${bench.name}\x1b[0m`);
  const result = await run(bench.script);
  if (result.code !== 0) failed++;
  summary.push(
    `- **${bench.name}**: ${verdicts(result.output).join(' / ') || (result.code === 0 ? 'done' : `failed (exit ${result.code})`)}`,
  );
  sections.push(
    [
      `## ${bench.name}`,
      '',
      bench.what,
      '',
      `Command: \`npm run bench:${bench.name}\` — ${result.code === 0 ? 'all targets met' : `exit code ${result.code}: a target was missed or the run failed`} (${result.seconds} s).`,
      '',
      '```',
      forReport(result.output),
      '```',
    ].join('\n'),
  );
}

const load = os
  .loadavg()
  .map((l) => l.toFixed(1))
  .join(' / ');
// The baseline (bench/BASELINE.md: the figures of the code before an optimisation, measured once and kept) goes
// into every report, so the report always shows baseline and now side by side.
const baselineFile = path.join(ROOT_DIR, 'bench', 'BASELINE.md');
const baseline = fs.existsSync(baselineFile) ? fs.readFileSync(baselineFile, 'utf8').trim() : '';
const report = [
  '# Benchmark results',
  '',
  `Written by \`npm run bench\` on ${new Date().toISOString()}: Node ${process.version}, ${os.cpus().length} CPU (${os.cpus()[0]?.model.trim()}), ${Math.round(os.totalmem() / 2 ** 30)} GiB, load average at the end ${load}.`,
  'These machines are noisy: compare each figure with the floor measured beside it in the same run, not with another run.',
  '',
  '## Summary of this run',
  '',
  ...summary,
  '',
  ...(baseline ? [baseline.replace(/^# /, '## '), ''] : []),
  ...sections.flatMap((s) => [s, '']),
].join('\n');
fs.writeFileSync(path.join(ROOT_DIR, 'bench', 'RESULTS.md'), report);
console.log(`\nbench/RESULTS.md written${failed ? `; ${failed} benchmark(s) missed a target or failed` : ''}.`);
if (failed) process.exitCode = 1;
