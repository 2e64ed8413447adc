// Cost per delivery (the lean shape of the delivery workflow, docs/architecture.md): the work Temporal does for a
// lifecycle, read from the histories, and the webhook outbox's guarantees when its worker dies.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { temporal as proto } from '@temporalio/proto';
import type { Simulator } from '../../simulator/server.js';
import { deliveryWorkflowId } from '../../shared/deliveries/definitions.js';
import { webhookFanoutWorkflowId, webhookMessageId } from '../../shared/webhooks/definitions.js';
import { recordEventWithMessage, sweepUndispatched } from '../../src/webhooks/dispatcher.js';
import { insertEventWithContext } from '../../src/webhooks/outbox-repository.js';
import {
  createDeliveryFor,
  merchantWith,
  simCompany,
  startSimulator,
  waitForStatus,
  webhookOutcome,
  type Merchant,
} from '../helpers/fixtures.js';
import { workflowExists as exists } from '../helpers/replay.js';
import { startStack, type Stack } from '../helpers/stack.js';

let stack: Stack;
let sim: Simulator;
const key = (m: Merchant) => m.tenant.secret_key;
const E = proto.api.enums.v1.EventType;

/** A webhook receiver answering 200, keeping the webhook-id of every request. */
const received: string[] = [];
let receiver: http.Server;
let receiverUrl: string;

beforeAll(async () => {
  stack = await startStack();
  sim = await startSimulator();
  receiver = http.createServer((req, res) => {
    received.push(String(req.headers['webhook-id']));
    req.resume().on('end', () => res.writeHead(200).end());
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
});
afterAll(async () => {
  receiver?.close();
  await sim?.close();
  await stack?.close();
});

/** A delivery driven by the courier to `delivered` (the simulator moves it every 100 ms). */
async function deliveredDelivery(m: Merchant) {
  const d = await createDeliveryFor(stack, m);
  return waitForStatus(stack, key(m), d.id, 'delivered', 30_000);
}

const workflowExists = (workflowId: string) => exists(stack, workflowId);

describe('the work of one lifecycle', () => {
  it('no endpoint: nothing but the delivery workflow, no message stored', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ auto_progress: { delay_ms: 100 } })]);
    const d = await deliveredDelivery(m);
    expect(d.events).toHaveLength(7);
    for (const e of d.events) expect(await workflowExists(webhookFanoutWorkflowId(e.id))).toBe(false);
    const { rows } = await stack.pool.query('SELECT count(*)::int AS n FROM webhook_messages WHERE delivery_id = $1', [
      d.id,
    ]);
    expect(rows[0].n).toBe(0);
  });

  it('one healthy endpoint: every event arrives once, no workflow per event, and the delivery workflow stays small', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ auto_progress: { delay_ms: 100 } })]);
    const ep = await stack.request('POST', '/v1/webhook_endpoints', { key: key(m), body: { url: receiverUrl } });
    expect(ep.status).toBe(201);
    const d = await deliveredDelivery(m);
    const outcomes = await Promise.all(d.events.map((e: { id: string }) => webhookOutcome(stack, e.id)));
    expect(outcomes.map((o) => o.outcomes[ep.body.id])).toEqual(Array(7).fill('succeeded'));
    for (const e of d.events) {
      expect(received.filter((id) => id === webhookMessageId(e.id))).toHaveLength(1);
      expect(await workflowExists(webhookFanoutWorkflowId(e.id))).toBe(false);
    }

    // The delivery workflow's own history: a workflow task per step, nothing started from it, nothing reported back.
    const handle = stack.temporal.workflow.getHandle(deliveryWorkflowId(d.id));
    await handle.result();
    const events = (await handle.fetchHistory()).events ?? [];
    const count = (type: number) => events.filter((e) => e.eventType === type).length;
    expect(count(E.EVENT_TYPE_WORKFLOW_TASK_STARTED)).toBeLessThanOrEqual(d.events.length + 2);
    // The booking answered at once: its first attempt ran in the workflow task, like every write; no activity task.
    expect(count(E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)).toBe(0);
    expect(events.length).toBeLessThan(150);
    expect(count(E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED)).toBe(0);
    expect(count(E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED)).toBe(0);
    expect(count(E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED)).toBe(0);
    // One timer for the whole lifecycle's deadlines, never cancelled.
    expect(count(E.EVENT_TYPE_TIMER_STARTED)).toBe(1);
    expect(count(E.EVENT_TYPE_TIMER_CANCELED)).toBe(0);
  });
});

describe('the outbox when its worker dies', () => {
  /** An event recorded with its message as the local activity does, whose first attempts never happened (the worker died). */
  async function orphanedMessage(m: Merchant, deliveryId: string) {
    const eventId = crypto.randomUUID();
    const { message } = await recordEventWithMessage(
      stack.pool,
      {
        deliveryId,
        tenantId: m.tenant.tenant_id,
        eventId,
        eventType: 'delivery.operator_action',
        occurredAt: new Date().toISOString(),
        source: 'operator',
        payload: { action: 'note', note: 'orphaned' },
        toStatus: null,
      },
      true,
    );
    expect(message).not.toBeNull();
    // Older than the sweeper's wait.
    await stack.pool.query(`UPDATE webhook_messages SET created_at = now() - interval '5 minutes' WHERE id = $1`, [
      message!.messageId,
    ]);
    return message!;
  }

  it('the sweep hands an undispatched message to its retry workflow: it arrives once', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ auto_progress: { delay_ms: 100 } })]);
    const ep = await stack.request('POST', '/v1/webhook_endpoints', { key: key(m), body: { url: receiverUrl } });
    const d = await deliveredDelivery(m);
    const message = await orphanedMessage(m, d.id);
    expect(await sweepUndispatched(stack.temporal, stack.pool, stack.config)).toBeGreaterThanOrEqual(1);
    const outcome = await webhookOutcome(stack, message.eventId);
    expect(outcome.outcomes[ep.body.id]).toBe('succeeded');
    expect(received.filter((id) => id === message.messageId)).toHaveLength(1);
    // Swept once: a second pass finds nothing of it.
    await sweepUndispatched(stack.temporal, stack.pool, stack.config);
    const { rows } = await stack.pool.query('SELECT count(*)::int AS n FROM webhook_attempts WHERE message_id = $1', [
      message.messageId,
    ]);
    expect(rows[0].n).toBe(1);
  });

  it('an endpoint that took the message before its worker died is not sent it again', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ auto_progress: { delay_ms: 100 } })]);
    const ep = await stack.request('POST', '/v1/webhook_endpoints', { key: key(m), body: { url: receiverUrl } });
    const d = await deliveredDelivery(m);
    const message = await orphanedMessage(m, d.id);
    // The first attempt had succeeded; the worker died before marking the message dispatched.
    await stack.pool.query(
      `INSERT INTO webhook_attempts (id, endpoint_id, tenant_id, message_id, event_id, event_type, attempt, status, status_code, latency_ms, trigger)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, 'delivery.operator_action', 1, 'succeeded', 200, 5, 'event')`,
      [ep.body.id, m.tenant.tenant_id, message.messageId, message.eventId],
    );
    await sweepUndispatched(stack.temporal, stack.pool, stack.config);
    const outcome = await webhookOutcome(stack, message.eventId);
    expect(outcome.outcomes[ep.body.id]).toBe('succeeded');
    expect(received.filter((id) => id === message.messageId)).toHaveLength(0);
  });

  it('a worker that died between the event and its message: the repeated record stores the message once', async () => {
    const m = await merchantWith(stack, sim, [simCompany({ auto_progress: { delay_ms: 100 } })]);
    await stack.request('POST', '/v1/webhook_endpoints', { key: key(m), body: { url: receiverUrl } });
    const d = await deliveredDelivery(m);
    const input = {
      deliveryId: d.id,
      tenantId: m.tenant.tenant_id,
      eventId: crypto.randomUUID(),
      eventType: 'delivery.operator_action',
      occurredAt: new Date().toISOString(),
      source: 'operator',
      payload: { action: 'note', note: 'between the two statements' },
      toStatus: null,
    };
    // The event's own statement ran; the worker died before the message's.
    expect(await insertEventWithContext(stack.pool, input, true)).not.toBeNull();
    const messages = async () =>
      (
        await stack.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_messages WHERE event_id = $1', [
          input.eventId,
        ])
      ).rows[0].n;
    expect(await messages()).toBe(0);
    // The workflow records the event again (same id): nothing changes twice, the message is stored, to be sent.
    const again = await recordEventWithMessage(stack.pool, input, true);
    expect(again.inserted).toBe(false);
    expect(again.message?.messageId).toBe(webhookMessageId(input.eventId));
    expect(await messages()).toBe(1);
    // Once more (the activity retried after that): the message is there already, this call sends nothing.
    expect((await recordEventWithMessage(stack.pool, input, true)).message).toBeNull();
    expect(await messages()).toBe(1);
  });
});
