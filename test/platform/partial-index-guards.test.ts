// A row updated by its id under a guard that is also a partial index's condition (`dispatched_at IS NULL`, `status =
// 'queued'`, ...) is found by its primary key. Once ANALYZE has seen such a partial index nearly empty (every message
// dispatched, every SMS sent: the steady state), Postgres preferred it to the primary key and read every row in it
// to find the one: each mark then cost the size of the backlog an outage leaves, a backlog's drain the square of it
// (bench:lifecycle's statistics showed the undispatched index scanned once per webhook message). The guards are
// written `(...) IS TRUE`, which Postgres does not match to the index's condition (docs/operations.md "A guard by
// its primary key"). Each statement is taken from the function that sends it and explained on temporary copies
// of its table (same columns and indexes) holding 1,000 rows that are all done.
import { randomUUID } from 'node:crypto';
import { describe, expect, inject, it } from 'vitest';
import { createPool, type Pool } from '../../src/platform/db.js';
import { insertAttempt, markMessageDispatched } from '../../src/webhooks/repository.js';
import {
  markWorkflowStarted,
  restartableDelivery,
  useQuoteForRedispatch,
} from '../../src/deliveries/start-repository.js';
import { markFinal, markRetry, markSubmitted } from '../../src/notifications/repository.js';

interface Sent {
  text: string;
  values: unknown[];
}

/** The statements a repository function sends (answered with no rows: only the text and values matter here). */
async function statementsOf(call: (pool: Pool) => Promise<unknown>): Promise<Sent[]> {
  const sent: Sent[] = [];
  const recorder = {
    query: async (text: string, values: unknown[] = []) => {
      sent.push({ text, values });
      return { rows: [], rowCount: 0 };
    },
  } as unknown as Pool;
  await call(recorder);
  return sent;
}

/** 1,000 rows that are all done (dispatched, started, used, sent), in a temporary copy of the table. */
const DONE_ROWS: Record<string, string> = {
  webhook_messages: `INSERT INTO pg_temp.webhook_messages (id, tenant_id, delivery_id, event_id, event_type, body, dispatched_at)
    SELECT 'msg_' || g, gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 'delivery.created', '{}', now()
      FROM generate_series(1, 1000) g`,
  deliveries: `INSERT INTO pg_temp.deliveries (id, tenant_id, reference, status, company_id, quote_id, origin, destination, parcel,
      payment_method, quoted_fee_aoa, workflow_started_at)
    SELECT gen_random_uuid(), gen_random_uuid(), 'ref-' || g, 'delivered', gen_random_uuid(), gen_random_uuid(), '{}', '{}', '{}',
      'prepaid', 150000, now()
      FROM generate_series(1, 1000) g`,
  quotes: `INSERT INTO pg_temp.quotes (id, tenant_id, company_id, fee_aoa, eta_minutes, valid_until, origin, destination, parcel,
      payload_hash, used_at)
    SELECT gen_random_uuid(), gen_random_uuid(), gen_random_uuid(), 150000, 60, now(), '{}', '{}', '{}', 'h', now()
      FROM generate_series(1, 1000) g`,
  notifications: `INSERT INTO pg_temp.notifications (id, tenant_id, livemode, delivery_id, event_id, kind, recipient, language,
      sender_id, body, encoding, segments, status)
    SELECT gen_random_uuid(), gen_random_uuid(), true, gen_random_uuid(), gen_random_uuid(), 'created', '+244923000000',
      'pt-AO', 'Loja', 'texto', 'gsm7', 1, 'delivered'
      FROM generate_series(1, 1000) g`,
};

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  Plans?: PlanNode[];
}

/** Every scan of `table` in the plan, as "<node> <index> <condition>". */
function scansOf(node: PlanNode, table: string): string[] {
  const own =
    node['Relation Name'] === table && node['Node Type'] !== 'ModifyTable'
      ? [`${node['Node Type']} ${node['Index Name'] ?? '-'} ${node['Index Cond'] ?? '-'}`]
      : [];
  return [...own, ...(node.Plans ?? []).flatMap((child) => scansOf(child, table))];
}

const id = randomUUID();
const cases: [string, string, (pool: Pool) => Promise<unknown>][] = [
  ['markMessageDispatched', 'webhook_messages', (pool) => markMessageDispatched(pool, 'msg_1')],
  [
    'insertAttempt (a success that marks its message dispatched)',
    'webhook_messages',
    (pool) =>
      insertAttempt(pool, {
        endpointId: randomUUID(),
        tenantId: randomUUID(),
        livemode: true,
        messageId: 'msg_1',
        eventId: randomUUID(),
        eventType: 'delivery.created',
        attempt: 1,
        status: 'succeeded',
        statusCode: 200,
        latencyMs: 12,
        error: null,
        trigger: 'event',
        dispatchesMessage: true,
      }),
  ],
  ['markWorkflowStarted', 'deliveries', (pool) => markWorkflowStarted(pool, id)],
  ['restartableDelivery', 'deliveries', (pool) => restartableDelivery(pool, id)],
  ['useQuoteForRedispatch', 'quotes', (pool) => useQuoteForRedispatch(pool, id, randomUUID())],
  ['markSubmitted', 'notifications', (pool) => markSubmitted(pool, id, 'smsc-1')],
  ['markRetry', 'notifications', (pool) => markRetry(pool, id, 1000, 'throttled')],
  ['markFinal', 'notifications', (pool) => markFinal(pool, id, 'failed', 'rejected', true)],
];

describe('a guard on a partial index condition reads the row by its primary key', () => {
  it.each(cases)(
    '%s finds its %s row by id, with statistics that see the partial index empty',
    async (_, table, call) => {
      const [statement] = await statementsOf(call);
      expect(statement, 'the function sends a statement').toBeDefined();
      const pool = createPool(inject('databaseUrl'), 1);
      const client = await pool.connect();
      try {
        // A temporary table shadows the real one on this connection (pg_temp comes first in the search path).
        await client.query(`CREATE TEMP TABLE ${table} (LIKE public.${table} INCLUDING ALL)`);
        await client.query(DONE_ROWS[table]);
        await client.query(`ANALYZE pg_temp.${table}`);
        const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: PlanNode }] }>(
          `EXPLAIN (FORMAT JSON) ${statement.text}`,
          statement.values,
        );
        const scans = scansOf(rows[0]['QUERY PLAN'][0].Plan, table);
        expect(scans.length, `a scan of ${table}`).toBeGreaterThan(0);
        for (const scan of scans) expect(scan).toMatch(/^Index Scan \S*pkey \((\w+\.)?id = /);
      } finally {
        client.release(true);
        await pool.end();
      }
    },
  );
});
