// The Grafana dashboard of ops/ (docs/operations.md "Observability") loads as a dashboard: uid, title, schema version,
// the data source variable, unique panel ids, a grid without overlaps, a query on every panel. Reading a JSON file
// only; its PromQL is checked by promtool in test/system/ops.test.ts.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';

interface Panel {
  id: number;
  type: string;
  title: string;
  gridPos: { x: number; y: number; w: number; h: number };
  datasource?: { type: string; uid: string };
  targets?: { refId: string; expr: string }[];
}

const dashboard = JSON.parse(
  fs.readFileSync(path.join(ROOT_DIR, 'ops', 'grafana', 'dashboards', 'delivery-api.json'), 'utf8'),
) as {
  uid: string;
  title: string;
  schemaVersion: number;
  panels: Panel[];
  templating: { list: { name: string; type: string; query: string }[] };
};

describe('the Grafana dashboard', () => {
  it('is a dashboard: uid, title, schema version, a Prometheus data source variable', () => {
    expect(dashboard).toMatchObject({ uid: 'delivery-api', title: 'Delivery API' });
    expect(dashboard.schemaVersion).toBeGreaterThanOrEqual(36);
    expect(dashboard.templating.list).toContainEqual(
      expect.objectContaining({ name: 'datasource', type: 'datasource', query: 'prometheus' }),
    );
  });

  it('has unique panel ids, panels inside the 24-column grid that do not overlap, every query on the data source variable', () => {
    const ids = dashboard.panels.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    const taken = new Set<string>();
    for (const p of dashboard.panels) {
      expect(p.title, `panel ${p.id}`).toBeTruthy();
      const { x, y, w, h } = p.gridPos;
      expect(x >= 0 && w > 0 && h > 0 && x + w <= 24, `${p.title}: ${JSON.stringify(p.gridPos)}`).toBe(true);
      for (let cx = x; cx < x + w; cx++) {
        for (let cy = y; cy < y + h; cy++) {
          expect(taken.has(`${cx},${cy}`), `${p.title} overlaps another panel at ${cx},${cy}`).toBe(false);
          taken.add(`${cx},${cy}`);
        }
      }
      if (p.type === 'row') continue;
      expect(['timeseries', 'stat'], p.title).toContain(p.type);
      expect(p.datasource).toEqual({ type: 'prometheus', uid: '${datasource}' });
      expect(p.targets?.length, p.title).toBeGreaterThan(0);
      for (const t of p.targets!) expect(t.expr.trim(), p.title).not.toBe('');
    }
  });
});
