// npx tsx bench/heap-summary.ts <file.heapsnapshot> [label ...]: a heap snapshot without a GUI (docs/operations.md
// "Where the memory goes"). Prints the self size by node type and by constructor, and for each label given
// ("object:Activator", "object:SourceMap" ...) what is held only through the nodes of that label, in total and each.
import fs from 'node:fs';

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[]]; edge_fields: string[]; edge_types: [string[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

const [file, ...labels] = process.argv.slice(2);
if (!file) throw new Error('usage: npx tsx bench/heap-summary.ts <file.heapsnapshot> [type:name ...]');
const snap = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
const meta = snap.snapshot.meta;
const N = meta.node_fields.length;
const E = meta.edge_fields.length;
const [iType, iName, iSize, iEdges] = ['type', 'name', 'self_size', 'edge_count'].map((f) =>
  meta.node_fields.indexOf(f),
);
const { nodes, edges, strings } = snap;
const count = nodes.length / N;
const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(2);
const type = (n: number) => meta.node_types[0][nodes[n * N + iType]];
const label = (n: number) => `${type(n)}:${strings[nodes[n * N + iName]]}`;
const size = (n: number) => nodes[n * N + iSize];

// By type, and by constructor (strings, code and closures each as one group).
const byType = new Map<string, number>();
const byName = new Map<string, [number, number]>();
let total = 0;
for (let n = 0; n < count; n++) {
  const t = type(n);
  total += size(n);
  byType.set(t, (byType.get(t) ?? 0) + size(n));
  const group = /string/.test(t) ? '(strings)' : t === 'closure' ? '(closures)' : label(n).slice(0, 70);
  const entry = byName.get(group) ?? [0, 0];
  entry[0] += size(n);
  entry[1] += 1;
  byName.set(group, entry);
}
console.log(`${file}: ${mb(total)} MB live in ${count} nodes`);
console.log(
  'by type:',
  [...byType]
    .sort((a, b) => b[1] - a[1])
    .map(([t, s]) => `${t} ${mb(s)}`)
    .join(', '),
);
for (const [name, [s, c]] of [...byName].sort((a, b) => b[1][0] - a[1][0]).slice(0, 25))
  console.log(`${mb(s).padStart(8)} MB ${String(c).padStart(8)}  ${name}`);

// What a label's nodes hold on their own: reachable through them, not from the root around them.
const firstEdge = new Uint32Array(count + 1);
for (let n = 0, e = 0; n <= count; n++) {
  firstEdge[n] = e;
  if (n < count) e += nodes[n * N + iEdges] * E;
}
function reach(starts: number[], seen: Uint8Array, stop?: Uint8Array): void {
  const queue = [...starts];
  for (const s of starts) seen[s] = 1;
  while (queue.length) {
    const n = queue.pop()!;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += E) {
      if (meta.edge_types[0][edges[e]] === 'weak') continue;
      const to = edges[e + 2] / N;
      if (seen[to] || stop?.[to]) continue;
      seen[to] = 1;
      queue.push(to);
    }
  }
}
for (const wanted of labels) {
  const isTarget = new Uint8Array(count);
  const targets: number[] = [];
  for (let n = 0; n < count; n++)
    if (label(n) === wanted) {
      isTarget[n] = 1;
      targets.push(n);
    }
  const fromRoot = new Uint8Array(count);
  reach([0], fromRoot, isTarget);
  const throughTargets = new Uint8Array(count);
  reach(targets, throughTargets);
  let held = 0;
  for (let n = 0; n < count; n++) if (throughTargets[n] && !fromRoot[n]) held += size(n);
  console.log(
    `${targets.length} x ${wanted}: ${mb(held)} MB held only through them` +
      (targets.length ? `, ${(held / targets.length / 1024).toFixed(1)} KB each` : ''),
  );
}
