// npm run bench:replay: what the delivery workflow's own code costs, without a server, a database or a network. Three
// recorded lifecycles of the release baseline (test/fixtures/histories) are replayed many times each against a
// workflow bundle (Worker.runReplayHistories runs the workflow code in this process): the promises the workflow's
// code creates per lifecycle (exact, the same at every run), and the CPU milliseconds per replayed lifecycle (the
// median of three rounds). The promises matter because the SDK's promise hook captures and formats a stack trace for
// each one (for the Temporal UI's stack trace query): about half the CPU of a replay with stack traces. The worker's
// bundle captures none (workflows/lib/stack-traces.ts); `.build/workflow-bundle-traced.js` (npm run build) is the one
// with them, WORKFLOW_STACK_TRACES=true: give both to compare.
//
//   npx tsx bench/workflow-replay.ts                 today's bundle (.build/workflow-bundle.js, rebuilt when stale)
//   npx tsx bench/workflow-replay.ts a.js b.js       bundles side by side (a baseline from a worktree, say)
import proto from '@temporalio/proto';
import { DefaultLogger, Runtime, Worker } from '@temporalio/worker';
import fs from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { ROOT_DIR } from '../src/platform/config.js';
import { ensureWorkflowBundle } from '../src/platform/workflow-bundle.js';
import { machineLine, say } from './lib.js';

const { temporal } = proto;
// The SDK logs each replay worker's state changes at INFO.
Runtime.install({ logger: new DefaultLogger('WARN') });

const HISTORIES = path.join(ROOT_DIR, 'test', 'fixtures', 'histories');
const LIFECYCLES = [
  {
    name: 'delivered (5 courier moves)',
    file: 'delivery/pending.dispatched.assigned.pickup_ready.in_transit.out_for_delivery.delivered.history.bin',
  },
  {
    name: 'one failed attempt, then delivered',
    file: 'returns/pending.dispatched.assigned.in_transit.out_for_delivery.attempt_failed-recipient_unavailable.out_for_delivery.delivered.history.bin',
  },
  {
    name: 'failover to a second company',
    file: 'failover/pending.dispatched.assigned.redispatched-courier_failed.dispatched.assigned.pickup_ready.failed.history.bin',
  },
];
const REPLAYS = Number(process.env.BENCH_REPLAYS ?? 200);
const ROUNDS = 3;

// Promises created in a workflow's context (its own Promise constructor, not this process's).
let counting = false;
let workflowPromises = 0;
v8.promiseHooks.onInit((promise) => {
  if (counting && promise.constructor !== Promise) workflowPromises++;
});

async function replay(bundle: string, history: proto.temporal.api.history.v1.IHistory, n: number) {
  const histories = Array.from({ length: n }, (_, i) => ({ workflowId: `replay-${i}`, history }));
  const promisesBefore = workflowPromises;
  const cpu = process.cpuUsage();
  counting = true;
  for await (const result of Worker.runReplayHistories({ workflowBundle: { codePath: bundle } }, histories)) {
    if (result.error) throw new Error(`${result.workflowId} did not replay: ${result.error.message}`);
  }
  counting = false;
  const used = process.cpuUsage(cpu);
  return { promises: (workflowPromises - promisesBefore) / n, cpuMs: (used.user + used.system) / 1000 / n };
}

const bundles = process.argv.slice(2);
if (bundles.length === 0) {
  say('The workflow bundle (built when missing or older than workflows/)');
  bundles.push(await ensureWorkflowBundle());
}

console.log(machineLine());
console.log(`${REPLAYS} replays per lifecycle and round, ${ROUNDS} rounds; CPU: the median round.\n`);
console.log(`| lifecycle | bundle | workflow promises per lifecycle | CPU ms per replayed lifecycle |`);
console.log(`| --- | --- | ---: | ---: |`);
for (const lifecycle of LIFECYCLES) {
  const history = temporal.api.history.v1.History.decode(fs.readFileSync(path.join(HISTORIES, lifecycle.file)));
  for (const bundle of bundles) await replay(bundle, history, 10); // warm up every bundle first
  for (const bundle of bundles) {
    const rounds = [];
    for (let r = 0; r < ROUNDS; r++) rounds.push(await replay(bundle, history, REPLAYS));
    const cpu = rounds.map((r) => r.cpuMs).sort((a, b) => a - b)[Math.floor(ROUNDS / 2)];
    console.log(
      `| ${lifecycle.name} | ${path.basename(bundle)} | ${rounds[0].promises.toFixed(0)} | ${cpu.toFixed(1)} |`,
    );
  }
}
