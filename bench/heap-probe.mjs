// Preload of the memory investigation (docs/operations.md "Where the memory goes"): with
//   PROBE_DIR=/tmp/probe NODE_OPTIONS=--import=./bench/heap-probe.mjs npm run bench:rss
// every thread of every Node process (the worker's workflow thread included) writes its memory figures to
// PROBE_DIR/<n>-<pid>-<thread>.json when the process gets SIGTTIN (`kill -TTIN <pid>`), and a heap snapshot beside
// them when PROBE_SNAPSHOT=1. Summarise a snapshot with `npx tsx bench/heap-summary.ts <file>`.
import fs from 'node:fs';
import v8 from 'node:v8';
import { BroadcastChannel, isMainThread, threadId } from 'node:worker_threads';

const dir = process.env.PROBE_DIR;
if (dir) {
  const channel = new BroadcastChannel('heap-probe');
  channel.unref();
  let n = 0;
  const dump = (seq) => {
    const base = `${dir}/${seq}-${process.pid}-${threadId}`;
    const figures = {
      pid: process.pid,
      threadId,
      main: isMainThread,
      script: process.argv[1],
      memory: process.memoryUsage(),
      heap: v8.getHeapStatistics(),
      spaces: v8.getHeapSpaceStatistics(),
    };
    fs.writeFileSync(`${base}.json`, JSON.stringify(figures, null, 1));
    if (process.env.PROBE_SNAPSHOT === '1') v8.writeHeapSnapshot(`${base}.heapsnapshot`);
  };
  channel.onmessage = (event) => dump(event.data);
  if (isMainThread)
    process.on('SIGTTIN', () => {
      n += 1;
      channel.postMessage(n);
      dump(n);
    });
}
