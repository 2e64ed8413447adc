// The operators' files in ops/ (docs/operations.md "Observability"): the Grafana dashboard's queries are valid PromQL
// (its structure, grid and data source are checked in the unit tier, test/ops/dashboard.unit.test.ts); the alert rules pass `promtool check rules`
// and their unit tests (`promtool test rules`); the Prometheus configuration passes `promtool check config`. CI runs
// the promtool checks in .ci/run as well, where promtool is installed; here it is installed when missing and the user
// may (scripts/lib/promtool.ts), else the promtool tests fail saying how to get it. test/platform/observability.test.ts checks
// that every series these files read is served by the API or the worker.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';
import { ensurePromtool } from '../../scripts/lib/promtool.js';

const OPS = path.join(ROOT_DIR, 'ops');
const dashboardFile = path.join(OPS, 'grafana', 'dashboards', 'delivery-api.json');
let found: string | undefined;
/** promtool, installed by the first test that needs it when missing (apt-get: minutes, hence PROMTOOL_TIMEOUT_MS). */
const promtool = () => (found ??= ensurePromtool());
const PROMTOOL_TIMEOUT_MS = 10 * 60_000;

/** The dashboard's panels, as far as their queries go. */
const dashboard = JSON.parse(fs.readFileSync(dashboardFile, 'utf8')) as {
  panels: { title: string; targets?: { expr: string }[] }[];
};

/** Every query of the dashboard, with Grafana's own variables replaced as Grafana does before asking Prometheus. */
const queries = () =>
  dashboard.panels.flatMap((p) =>
    (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr.replaceAll('$__rate_interval', '1m') })),
  );

describe('the Grafana dashboard', () => {
  it('its queries are valid PromQL (promtool)', { timeout: PROMTOOL_TIMEOUT_MS }, () => {
    // promtool parses rule expressions: each query becomes a recording rule of a throwaway file.
    const rules = {
      groups: [
        { name: 'dashboard', rules: queries().map((q, i) => ({ record: `dashboard:query_${i}`, expr: q.expr })) },
      ],
    };
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'dashboard-')), 'queries.yml');
    fs.writeFileSync(file, JSON.stringify(rules)); // JSON is YAML
    execFileSync(promtool(), ['check', 'rules', file], { encoding: 'utf8' });
  });
});

describe('the alert rules and the Prometheus configuration', { timeout: PROMTOOL_TIMEOUT_MS }, () => {
  it('promtool check rules and check config', () => {
    expect(
      execFileSync(promtool(), ['check', 'rules', path.join(OPS, 'prometheus', 'alerts.yml')], { encoding: 'utf8' }),
    ).toContain('SUCCESS');
    expect(
      execFileSync(promtool(), ['check', 'config', path.join(OPS, 'prometheus', 'prometheus.yml')], {
        encoding: 'utf8',
      }),
    ).toContain('SUCCESS');
  });

  it('promtool test rules: each alert fires on the series that should fire it, and only then', () => {
    expect(
      execFileSync(promtool(), ['test', 'rules', path.join(OPS, 'prometheus', 'alerts.test.yml')], {
        encoding: 'utf8',
      }),
    ).toContain('SUCCESS');
  });
});
