// The fuzzer's client side, in a worker thread so that generating requests, parsing answers and validating them
// against the OpenAPI document do not compete with the API for the test process's event loop.
// Started by `runFuzzWorker` (below) from test/http/fuzz.test.ts; runs `concurrency` fast-check lanes against the API
// and posts back the histogram, the violations and the known-bug counts.
import fc from 'fast-check';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { OpenApiResponses, Sender, checkResponse, type FuzzRequest, type Violation } from './fuzz.js';
import { KNOWN_BUGS, requestArb, type World } from './fuzz-requests.js';

export interface FuzzJob {
  url: string;
  document: unknown;
  world: World;
  total: number;
  concurrency: number;
  seed: number;
}

export interface FuzzResult {
  sent: number;
  seconds: number;
  histogram: [number | string, number][];
  perOp: [string, [number | string, number][]][];
  violations: Violation[];
  known: [string, number][];
  violationCount: number;
}

/** Runs the job in a worker thread (TypeScript through tsx's loader); `onProgress` gets the count now and then. */
export function runFuzzWorker(
  job: FuzzJob,
  rootDir: string,
  onProgress: (done: number, seconds: number) => void,
): Promise<FuzzResult> {
  const tsx = pathToFileURL(path.join(rootDir, 'node_modules/tsx/dist/esm/api/index.mjs')).href;
  const self = pathToFileURL(path.join(rootDir, 'test/helpers/fuzz-worker.ts')).href;
  const worker = new Worker(
    `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(self)}); })`,
    {
      eval: true,
      workerData: job,
    },
  );
  return new Promise((resolve, reject) => {
    worker.on('message', (m: { progress?: [number, number]; result?: FuzzResult; error?: string }) => {
      if (m.progress) onProgress(...m.progress);
      if (m.error) reject(new Error(m.error));
      if (m.result) resolve(m.result);
    });
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`fuzz worker exited with ${code}`)));
  });
}

async function main(job: FuzzJob) {
  const api = new OpenApiResponses(job.document);
  const baseUrl = job.url;
  const world = job.world;
  const sender = new Sender(job.url, job.concurrency);
  const violations: Violation[] = [];
  let violationCount = 0;
  const known = new Map<string, number>();
  const started = Date.now();
  let done = 0;
  const every = Math.max(1000, Math.floor(job.total / 10));

  const run = async (req: FuzzRequest) => {
    const res = await sender.send(req);
    if (++done % every === 0) parentPort!.postMessage({ progress: [done, (Date.now() - started) / 1000] });
    if (!res) return;
    // Ids the run creates become targets of later requests.
    if (res.status === 201 && req.op === 'POST /v1/webhook_endpoints') world.endpoints.a.push(JSON.parse(res.text).id);
    if (res.status === 201 && req.op === 'POST /v1/widget/deliveries') world.deliveries.a.push(JSON.parse(res.text).id);
    for (const v of checkResponse(api, baseUrl, req, res)) {
      const bug = KNOWN_BUGS.find((k) => k.matches(v));
      if (bug) {
        known.set(bug.id, (known.get(bug.id) ?? 0) + 1);
        continue;
      }
      violationCount++;
      if (violations.length < 500) violations.push(v);
    }
  };

  const perLane = Math.ceil(job.total / job.concurrency);
  await Promise.all(
    Array.from({ length: job.concurrency }, (_, lane) =>
      fc.assert(
        fc.asyncProperty(requestArb, async (make) => {
          await run(make(world));
        }),
        { numRuns: perLane, seed: job.seed + lane, endOnFailure: true },
      ),
    ),
  );
  const seconds = (Date.now() - started) / 1000;
  await sender.close();
  const result: FuzzResult = {
    sent: sender.sent,
    seconds,
    histogram: [...sender.histogram.entries()],
    perOp: [...sender.perOp.entries()].map(([op, m]) => [op, [...m.entries()]]),
    violations: violations.map((v) => ({
      ...v,
      request: { ...v.request, body: v.request.body?.toString().slice(0, 2000) },
    })),
    known: [...known.entries()],
    violationCount,
  };
  parentPort!.postMessage({ result });
}

if (!isMainThread && parentPort && (workerData as FuzzJob | undefined)?.document) {
  // fast-check keeps the property's own error as `cause`: pass it on, it says what broke.
  const describe = (err: unknown): string =>
    err instanceof Error
      ? `${err.stack ?? err.message}${err.cause ? `\nCaused by: ${describe(err.cause)}` : ''}`
      : String(err);
  main(workerData as FuzzJob).catch((err) =>
    parentPort!.postMessage({ error: `seed ${(workerData as FuzzJob).seed}: ${describe(err)}` }),
  );
}
