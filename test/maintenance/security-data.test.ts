// Data hygiene, on the real stack: the scheduled maintenance purge deletes what has outlived its retention (and
// nothing else), no secret is kept in the idempotency cache, a reused Idempotency-Key whose record expired never
// gives a 500, and one quote makes at most one delivery, as the database itself enforces.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensurePurgeSchedule } from '../../src/maintenance/schedule.js';
import type { Simulator } from '../../simulator/server.js';
import { PURGE_KINDS } from '../../shared/maintenance/definitions.js';
import { maintenancePurgeWorkflow } from '../../workflows/maintenance/workflows.js';
import {
  createDeliveryFor,
  merchantWith,
  quote,
  quoteBody,
  simCompany,
  startSimulator,
  type Merchant,
} from '../helpers/fixtures.js';
import { dashboardSession } from '../helpers/dashboard-session.js';
import { startStack, type Stack } from '../helpers/stack.js';

const BATCH = 2;

let stack: Stack;
let sim: Simulator;
let m: Merchant;

beforeAll(async () => {
  sim = await startSimulator();
  stack = await startStack({ purgeBatchSize: BATCH, webhookScheduleMs: [0], webhookTimeoutMs: 1000 });
  m = await merchantWith(stack, sim, [simCompany()]);
}, 120_000);
afterAll(async () => {
  await stack?.close();
  await sim?.close();
});

const secret = () => ({ key: m.tenant.secret_key });
const HOUR = "interval '1 hour'";
const DAY = "interval '1 day'";

describe('the maintenance purge', () => {
  /** Ids of the rows inserted below, by kind: `old` must go, `fresh` must stay. */
  const old: Record<string, string[]> = {};
  const fresh: Record<string, string[]> = {};
  let usedQuoteId: string;

  beforeAll(async () => {
    const { pool } = stack;
    const tenantId = m.tenant.tenant_id;
    const courierId = m.couriers[m.slug];
    const delivery = await createDeliveryFor(stack, m);
    usedQuoteId = (
      await pool.query<{ quote_id: string }>('SELECT quote_id FROM deliveries WHERE id = $1', [delivery.id])
    ).rows[0].quote_id;
    // The delivery's own quote is long expired but used: it must stay (deliveries.quote_id references it).
    await pool.query(
      `UPDATE quotes SET valid_until = now() - 30 * ${DAY}, created_at = now() - 30 * ${DAY} WHERE id = $1`,
      [usedQuoteId],
    );
    const endpoint = await stack.request('POST', '/v1/webhook_endpoints', {
      ...secret(),
      body: { url: 'http://127.0.0.1:9/purge-hook' },
    });
    expect(endpoint.status).toBe(201);

    // Five old rows of each kind (three batches of two), and two fresh ones just inside their retention.
    const ages: Record<(typeof PURGE_KINDS)[number], { old: string; fresh: string }> = {
      idempotency_keys: { old: `now() - 25 * ${HOUR}`, fresh: `now() - 23 * ${HOUR}` },
      quotes: { old: `now() - 25 * ${HOUR}`, fresh: `now() - 23 * ${HOUR}` }, // valid_until; QUOTE_RETENTION_MS = 24 h
      fleet_receipts: { old: `now() - 8 * ${DAY}`, fresh: `now() - 6 * ${DAY}` }, // FLEET_RECEIPT_RETENTION_MS = 7 days
      webhook_attempts: { old: `now() - 31 * ${DAY}`, fresh: `now() - 29 * ${DAY}` }, // WEBHOOK_RETENTION_MS = 30 days
      webhook_messages: { old: `now() - 31 * ${DAY}`, fresh: `now() - 29 * ${DAY}` },
      workflow_pings: { old: `now() - 25 * ${HOUR}`, fresh: `now() - 23 * ${HOUR}` },
    };
    const inserts: Record<(typeof PURGE_KINDS)[number], (id: string, at: string) => Promise<unknown>> = {
      idempotency_keys: (id, at) =>
        pool.query(
          `INSERT INTO idempotency_keys (tenant_id, key_scope, idempotency_key, request_hash, status_code, response_body, created_at)
                    VALUES ($1, 'POST /v1/quotes', $2, 'h', 200, '{}', ${at})`,
          [tenantId, id],
        ),
      quotes: (id, at) =>
        pool.query(
          `INSERT INTO quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel, payload_hash, created_at)
                    VALUES ($1, $2, $3, 100000, 60, ${at}, '{}', '{}', '{}', 'h', ${at} - interval '15 minutes')`,
          [id, tenantId, courierId],
        ),
      fleet_receipts: (id, at) =>
        pool.query(`INSERT INTO fleet_webhook_receipts (courier_id, webhook_id, received_at) VALUES ($1, $2, ${at})`, [
          courierId,
          id,
        ]),
      webhook_attempts: (id, at) =>
        pool.query(
          `INSERT INTO webhook_attempts (id, endpoint_id, tenant_id, message_id, event_id, event_type, attempt, status, attempted_at)
                    VALUES ($1, $2, $3, 'msg_x', gen_random_uuid(), 'delivery.created', 1, 'failed', ${at})`,
          [id, endpoint.body.id, tenantId],
        ),
      webhook_messages: (id, at) =>
        pool.query(
          `INSERT INTO webhook_messages (id, tenant_id, delivery_id, event_id, event_type, body, created_at)
                    VALUES ($1, $2, $3, gen_random_uuid(), 'delivery.created', '{}', ${at})`,
          [id, tenantId, delivery.id],
        ),
      workflow_pings: (id, at) =>
        pool.query(`INSERT INTO workflow_pings (id, message, written_at) VALUES ($1, 'old ping', ${at})`, [id]),
    };
    for (const kind of PURGE_KINDS) {
      old[kind] = Array.from({ length: 5 }, () => (kind === 'webhook_messages' ? `msg_${randomUUID()}` : randomUUID()));
      fresh[kind] = Array.from({ length: 2 }, () =>
        kind === 'webhook_messages' ? `msg_${randomUUID()}` : randomUUID(),
      );
      for (const id of old[kind]) await inserts[kind](id, ages[kind].old);
      for (const id of fresh[kind]) await inserts[kind](id, ages[kind].fresh);
    }
  });

  /** Which of `ids` of `kind` are still in the database. */
  const present = async (kind: string, ids: string[]): Promise<string[]> => {
    const sql: Record<string, string> = {
      idempotency_keys: 'SELECT idempotency_key AS id FROM idempotency_keys WHERE idempotency_key = ANY($1)',
      quotes: 'SELECT id::text FROM quotes WHERE id::text = ANY($1)',
      fleet_receipts: 'SELECT webhook_id AS id FROM fleet_webhook_receipts WHERE webhook_id = ANY($1)',
      webhook_attempts: 'SELECT id::text FROM webhook_attempts WHERE id::text = ANY($1)',
      webhook_messages: 'SELECT id FROM webhook_messages WHERE id = ANY($1)',
      workflow_pings: 'SELECT id::text FROM workflow_pings WHERE id::text = ANY($1)',
    };
    const { rows } = await stack.pool.query<{ id: string }>(sql[kind], [ids]);
    return rows.map((r) => r.id).sort();
  };

  it('one run deletes at most maxBatches batches per kind', async () => {
    const result = await stack.temporal.workflow.execute(maintenancePurgeWorkflow, {
      taskQueue: stack.config.taskQueue,
      workflowId: `purge-bounded-${randomUUID()}`,
      args: [{ maxBatches: 1 }],
    });
    for (const kind of PURGE_KINDS) {
      expect(result[kind], kind).toBe(BATCH);
      expect((await present(kind, old[kind])).length, kind).toBe(5 - BATCH);
      expect(await present(kind, fresh[kind]), kind).toEqual([...fresh[kind]].sort());
    }
  });

  it('the maintenance-purge schedule is created idempotently and its run deletes every expired row, keeping fresh ones and used quotes', async () => {
    const scheduleId = `maintenance-purge-test-${randomUUID()}`;
    // Created, then (as a second worker or a restart would) updated: no error, one schedule with the current settings.
    await ensurePurgeSchedule(stack.temporal, { ...stack.config, purgeIntervalMs: 2 * 3600_000 }, scheduleId);
    await ensurePurgeSchedule(stack.temporal, stack.config, scheduleId);
    const handle = stack.temporal.schedule.getHandle(scheduleId);
    try {
      const described = await handle.describe();
      expect(described.spec.intervals?.[0]?.every).toBe(stack.config.purgeIntervalMs);
      expect(described.action).toMatchObject({
        type: 'startWorkflow',
        workflowType: maintenancePurgeWorkflow.name,
        taskQueue: stack.config.taskQueue,
      });

      await handle.trigger();
      let workflowId: string | undefined;
      for (let i = 0; i < 200 && !workflowId; i++) {
        workflowId = (await handle.describe()).info.recentActions[0]?.action.workflow.workflowId;
        if (!workflowId) await new Promise((r) => setTimeout(r, 100));
      }
      expect(workflowId).toBeDefined();
      const result = await stack.temporal.workflow.getHandle<typeof maintenancePurgeWorkflow>(workflowId!).result();

      for (const kind of PURGE_KINDS) {
        expect(await present(kind, old[kind]), kind).toEqual([]);
        expect(await present(kind, fresh[kind]), kind).toEqual([...fresh[kind]].sort());
        expect(result[kind], kind).toBeGreaterThanOrEqual(5 - BATCH);
      }
      expect(await present('quotes', [usedQuoteId])).toEqual([usedQuoteId]);
    } finally {
      await handle.delete();
    }
  });
});

describe('no secret in the idempotency cache', () => {
  it('webhook endpoint creation and secret rotation store their answer without the secret; a replay says it withholds it', async () => {
    const create = { 'idempotency-key': `create-${randomUUID()}` };
    const body = { url: 'http://127.0.0.1:9/secret-hook' };
    const first = await stack.request('POST', '/v1/webhook_endpoints', { ...secret(), body, headers: create });
    expect(first.status).toBe(201);
    expect(first.body.secret).toMatch(/^whsec_/);
    expect(first.headers.get('idempotent-replay-withheld')).toBeNull();

    const rotate = { 'idempotency-key': `rotate-${randomUUID()}` };
    const rotated = await stack.request('POST', `/v1/webhook_endpoints/${first.body.id}/rotate_secret`, {
      ...secret(),
      headers: rotate,
    });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(first.body.secret);

    // Neither secret anywhere in the table; the records name what they left out.
    const { rows } = await stack.pool.query<{
      idempotency_key: string;
      body: string;
      withheld_fields: string[] | null;
    }>(
      'SELECT idempotency_key, response_body::text AS body, withheld_fields FROM idempotency_keys WHERE tenant_id = $1 AND idempotency_key = ANY($2)',
      [m.tenant.tenant_id, [create['idempotency-key'], rotate['idempotency-key']]],
    );
    expect(rows).toHaveLength(2);
    for (const row of rows) {
      expect(row.body).not.toContain(first.body.secret);
      expect(row.body).not.toContain(rotated.body.secret);
      expect(row.body).not.toContain('whsec_');
      expect(JSON.parse(row.body).id).toBe(first.body.id);
      expect(row.withheld_fields).toEqual(['secret']);
    }
    const anywhere = await stack.pool.query(
      `SELECT 1 FROM idempotency_keys WHERE response_body::text LIKE '%whsec\\_%'`,
    );
    expect(anywhere.rowCount).toBe(0);

    // Replays: the same answer without `secret`, and a header saying so.
    const replay = await stack.request('POST', '/v1/webhook_endpoints', { ...secret(), body, headers: create });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('idempotent-replay-withheld')).toBe('secret');
    const { secret: _created, ...createdWithout } = first.body;
    expect(replay.body).toEqual(createdWithout);
    const rotateReplay = await stack.request('POST', `/v1/webhook_endpoints/${first.body.id}/rotate_secret`, {
      ...secret(),
      headers: rotate,
    });
    expect(rotateReplay.status).toBe(200);
    expect(rotateReplay.headers.get('idempotent-replay-withheld')).toBe('secret');
    expect(rotateReplay.body.secret).toBeUndefined();
    expect(rotateReplay.body.id).toBe(first.body.id);
    // The replay rotated nothing: the signing secret is still the one the first rotation returned.
    const stored = await stack.pool.query<{ secret: string }>('SELECT secret FROM webhook_endpoints WHERE id = $1', [
      first.body.id,
    ]);
    expect(stored.rows[0].secret).toBe(rotated.body.secret);
  });

  it('API key creation stores its answer without the key; a replay (same Idempotency-Key) leaves it out and says so', async () => {
    // Keys are issued from a dashboard session (a secret key gets 403 session_required).
    const t = await stack.tenant();
    const owner = await dashboardSession(stack, t.tenant_id);
    const headers = { 'idempotency-key': `api-key-${randomUUID()}` };
    const body = { kind: 'secret' };
    const countKeys = async () =>
      Number(
        (await stack.pool.query('SELECT count(*) AS n FROM api_keys WHERE tenant_id = $1', [t.tenant_id])).rows[0].n,
      );
    const before = await countKeys();
    const first = await owner.request('POST', '/v1/api_keys', { body, headers });
    expect(first.status, JSON.stringify(first.body)).toBe(201);
    expect(first.body.secret).toMatch(/^sk_live_/);
    expect(first.headers.get('idempotent-replay-withheld')).toBeNull();

    const { rows } = await stack.pool.query<{ body: string; withheld_fields: string[] | null }>(
      'SELECT response_body::text AS body, withheld_fields FROM idempotency_keys WHERE tenant_id = $1 AND idempotency_key = $2',
      [t.tenant_id, headers['idempotency-key']],
    );
    expect(rows).toHaveLength(1);
    expect(rows[0].body).not.toContain(first.body.secret);
    expect(rows[0].body).not.toContain(first.body.secret.slice(8));
    expect(JSON.parse(rows[0].body).id).toBe(first.body.id);
    expect(rows[0].withheld_fields).toEqual(['secret']);

    const replay = await owner.request('POST', '/v1/api_keys', { body, headers });
    expect(replay.status).toBe(201);
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.headers.get('idempotent-replay-withheld')).toBe('secret');
    expect(replay.body.secret).toBeUndefined();
    expect(JSON.stringify(replay.body)).not.toContain(first.body.secret);
    const { secret: _key, ...createdWithout } = first.body;
    expect(replay.body).toEqual(createdWithout);
    // The replay made no second key.
    expect(await countKeys()).toBe(before + 1);

    // A publishable key is public and readable at any time (`publishable_key`): its replay still withholds `secret`
    // and carries the key in `publishable_key`, as GET /v1/api_keys does.
    const pkHeaders = { 'idempotency-key': `api-key-${randomUUID()}` };
    const pkBody = { kind: 'publishable', allowed_origins: ['https://replay.test'] };
    const pk = await owner.request('POST', '/v1/api_keys', { body: pkBody, headers: pkHeaders });
    expect(pk.body.publishable_key).toBe(pk.body.secret);
    const pkReplay = await owner.request('POST', '/v1/api_keys', { body: pkBody, headers: pkHeaders });
    expect(pkReplay.headers.get('idempotent-replay-withheld')).toBe('secret');
    expect(pkReplay.body.secret).toBeUndefined();
    expect(pkReplay.body.publishable_key).toBe(pk.body.secret);
  });

  it('answers without a secret are replayed whole, without the header', async () => {
    const headers = { 'idempotency-key': `quote-${randomUUID()}` };
    const first = await stack.request('POST', '/v1/quotes', { ...secret(), body: quoteBody(), headers });
    const again = await stack.request('POST', '/v1/quotes', { ...secret(), body: quoteBody(), headers });
    expect(first.status).toBe(200);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('idempotent-replay-withheld')).toBeNull();
  });
});

describe('a reused Idempotency-Key whose record expired', () => {
  const post = (body: unknown, key: string) =>
    stack.request('POST', '/v1/deliveries', { ...secret(), body, headers: { 'idempotency-key': key } });
  /** Ages the key's record and the delivery made under it well past the 24 h window (or deletes the record: purged). */
  const age = async (key: string, purged = false) => {
    await stack.pool.query(
      purged
        ? 'DELETE FROM idempotency_keys WHERE tenant_id = $1 AND idempotency_key = $2'
        : `UPDATE idempotency_keys SET created_at = now() - 25 * ${HOUR} WHERE tenant_id = $1 AND idempotency_key = $2`,
      [m.tenant.tenant_id, key],
    );
    await stack.pool.query(
      `UPDATE deliveries SET inserted_at = now() - 90 * ${DAY} WHERE tenant_id = $1 AND idempotency_key = $2`,
      [m.tenant.tenant_id, `api:${key}`],
    );
  };
  const unused = async (quoteId: string) =>
    (await stack.pool.query('SELECT used_at FROM quotes WHERE id = $1', [quoteId])).rows[0].used_at === null;

  it('with another body (another quote) is 422 idempotency_key_reused, at any age, record aged or purged; never a 500', async () => {
    for (const purged of [false, true]) {
      const key = randomUUID();
      const q1 = await quote(stack, m);
      const first = await post({ quote_id: q1.quote_id, ...quoteBody() }, key);
      expect(first.status).toBe(201);
      await age(key, purged);

      const q2 = await quote(stack, m);
      stack.expectProblem(await post({ quote_id: q2.quote_id, ...quoteBody() }, key), 422, 'idempotency_key_reused');
      // The refused request consumed nothing: q2 is still unused, and the key still answers the same way.
      expect(await unused(q2.quote_id)).toBe(true);
      stack.expectProblem(await post({ quote_id: q2.quote_id, ...quoteBody() }, key), 422, 'idempotency_key_reused');
      // Another body on the same quote (other metadata) is another request too.
      const other = { quote_id: q1.quote_id, ...quoteBody(), options: { metadata: { order_id: 'other' } } };
      stack.expectProblem(await post(other, key), 422, 'idempotency_key_reused');
      // Under a new key the new quote makes a delivery as usual.
      expect((await post({ quote_id: q2.quote_id, ...quoteBody() }, randomUUID())).status).toBe(201);
    }
  });

  it('with the same body answers with the original delivery (201, replayed), at any age, record aged or purged', async () => {
    for (const purged of [false, true]) {
      const key = randomUUID();
      const q = await quote(stack, m);
      const body = { quote_id: q.quote_id, ...quoteBody() };
      const first = await post(body, key);
      expect(first.status).toBe(201);
      await age(key, purged);

      const again = await post(body, key);
      expect(again.status, JSON.stringify(again.body)).toBe(201);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      expect(again.body.id).toBe(first.body.id);
      expect(again.body.reference).toBe(first.body.reference);
      const count = await stack.pool.query('SELECT count(*)::int AS n FROM deliveries WHERE quote_id = $1', [
        q.quote_id,
      ]);
      expect(count.rows[0].n).toBe(1);
      // Under a new key the used quote is refused as before.
      stack.expectProblem(await post(body, randomUUID()), 422, 'quote_already_used');
    }
  });

  it('a key bound to a delivery is 422 idempotency_key_reused for another quote, even once its record is gone (last 24 h)', async () => {
    const key = randomUUID();
    const q1 = await quote(stack, m);
    expect((await post({ quote_id: q1.quote_id, ...quoteBody() }, key)).status).toBe(201);
    // The record is lost (e.g. the answer never went out and the key was freed), the delivery made under it remains.
    await stack.pool.query('DELETE FROM idempotency_keys WHERE tenant_id = $1 AND idempotency_key = $2', [
      m.tenant.tenant_id,
      key,
    ]);
    const q2 = await quote(stack, m);
    stack.expectProblem(await post({ quote_id: q2.quote_id, ...quoteBody() }, key), 422, 'idempotency_key_reused');
    expect(await unused(q2.quote_id)).toBe(true);
  });
});

describe('one delivery per quote', () => {
  it('the database refuses a second delivery of the same quote (unique deliveries.quote_id)', async () => {
    const d = await createDeliveryFor(stack, m);
    const err = await stack.pool
      .query(
        `INSERT INTO deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel, payment_method, quoted_fee_aoa)
         SELECT gen_random_uuid(), tenant_id, 'DLV-' || substr(md5(random()::text), 1, 10), status, company_id, quote_id, origin, destination, parcel,
                payment_method, quoted_fee_aoa
           FROM deliveries WHERE id = $1`,
        [d.id],
      )
      .catch((e: { code?: string; constraint?: string }) => e);
    expect(err).toMatchObject({ code: '23505', constraint: 'deliveries_quote_id_key' });
  });
});
