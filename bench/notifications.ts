// npm run bench:notifications — recipients' SMS through the outbox (docs/recipients.md "The outbox") to the SMSC
// simulator over SMPP, each figure beside its floor, in a fresh database (dropped at the end).
//
// 1. throughput: BENCH_SMS_MESSAGES messages written by the enqueue path (src/notifications/enqueue.ts: one
//    transaction per message, as a delivery event writes it, 8 at a time) while one sender (src/notifications/outbox.ts,
//    window SMPP_WINDOW) sends them; messages per second from the first write to the last submit recorded, and to the
//    last delivery receipt applied. Target: >= 100/s. Floor: the same number of bare submits through the same SMPP
//    transport, no database (the SMSC simulator's own pace).
// 2. wake-up: BENCH_SMS_SINGLES messages written one at a time, 200 ms apart: p50 / p95 from the commit to the SMSC's
//    recording it. The sender listens (NOTIFY at commit); its safety poll is 1 s, so a p50 well under it is the
//    listener's doing.
// The SMSC simulator runs in this process (receipts after 20 ms), like the sender.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import { createSmsc } from '../simulator/smsc/server.js';
import { inTransaction, type Pool } from '../src/platform/db.js';
import { enqueueNotification } from '../src/notifications/enqueue.js';
import { createSmsOutbox } from '../src/notifications/outbox.js';
import { SmppTransport } from '../src/notifications/smpp/transport.js';
import { seedDeliveries } from '../scripts/lib/seed-deliveries.js';
import { benchDatabaseWithPool, cleanupList, machineLine, pct, say } from './lib.js';

const MESSAGES = Number(process.env.BENCH_SMS_MESSAGES ?? 2000);
const SINGLES = Number(process.env.BENCH_SMS_SINGLES ?? 50);
const WINDOW = Number(process.env.SMPP_WINDOW ?? 10);
const TARGET_PER_S = 100;
const PHONE = '244923000000';
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function counts(pool: Pool) {
  const { rows } = await pool.query<{ submitted: number; delivered: number }>(
    `SELECT count(*) FILTER (WHERE status IN ('submitted', 'delivered'))::int AS submitted,
            count(*) FILTER (WHERE status = 'delivered')::int AS delivered FROM notifications`,
  );
  return rows[0];
}

async function main() {
  const { cleanups, cleanup } = cleanupList();
  let ok = true;
  try {
    const { pool } = await benchDatabaseWithPool(cleanups);
    const [tenant] = await seedDeliveries(pool, 1, 1);
    const { rows } = await pool.query<{ id: string }>('SELECT id FROM deliveries LIMIT 1');
    const deliveryId = rows[0].id;
    await pool.query(`UPDATE deliveries SET destination = destination || $2::jsonb WHERE id = $1`, [
      deliveryId,
      JSON.stringify({ contact: { name: 'Ana', phone: `+${PHONE}` } }),
    ]);
    await pool.query(
      `INSERT INTO notification_settings (tenant_id, livemode, sms_enabled) VALUES ($1, true, true), ($1, false, true)`,
      [tenant.tenant_id],
    );

    const smsc = await createSmsc({ smppPort: 0, httpPort: 0, receiptDelayMs: 20 });
    cleanups.push(() => smsc.close());
    const transport = new SmppTransport({ url: smsc.smppUrl, window: WINDOW, logger: pino({ level: 'silent' }) });
    cleanups.push(() => transport.close());
    const defaults = { baseUrl: 'https://api.example.ao', senderId: 'Entregas' };
    const enqueue = () =>
      inTransaction(pool, (client) =>
        enqueueNotification(client, { eventId: randomUUID(), eventType: 'delivery.delivered', deliveryId }, defaults),
      );

    // ---- floor: bare submits through the same transport ----
    say(`Floor: ${MESSAGES} bare submits through the SMPP transport (window ${WINDOW})`);
    const f0 = performance.now();
    let floorSent = 0;
    await Promise.all(
      Array.from({ length: WINDOW }, async () => {
        while (floorSent < MESSAGES) {
          const i = floorSent++;
          await transport.submit({ from: 'Entregas', to: PHONE, text: `floor ${i}: a sua encomenda foi entregue.` });
        }
      }),
    );
    const floorPerS = MESSAGES / ((performance.now() - f0) / 1000);
    smsc.simulation.clear();

    // ---- throughput through the outbox ----
    const outbox = createSmsOutbox({ pool, transport, window: WINDOW, log: { info: () => {}, warn: console.warn } });
    outbox.start();
    cleanups.push(() => outbox.stop());
    await sleep(500); // the listener connected
    say(`Throughput: ${MESSAGES} messages written (8 transactions at a time) and sent by one sender`);
    const t0 = performance.now();
    let written = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (written < MESSAGES) {
          written++;
          await enqueue();
        }
      }),
    );
    const writtenS = (performance.now() - t0) / 1000;
    let submittedS = NaN;
    let deliveredS = NaN;
    const deadline = performance.now() + 300_000;
    while (performance.now() < deadline) {
      const c = await counts(pool);
      const t = (performance.now() - t0) / 1000;
      if (Number.isNaN(submittedS) && c.submitted >= MESSAGES) submittedS = t;
      if (c.delivered >= MESSAGES) {
        deliveredS = t;
        break;
      }
      await sleep(20);
    }
    const perS = MESSAGES / submittedS;

    // ---- wake-up latency ----
    say(`Wake-up: ${SINGLES} single messages, 200 ms apart`);
    smsc.simulation.clear();
    const latencies: number[] = [];
    for (let i = 0; i < SINGLES; i++) {
      const before = smsc.messages().length;
      await enqueue();
      const c1 = performance.now();
      while (smsc.messages().length <= before && performance.now() - c1 < 5000) await sleep(1);
      latencies.push(performance.now() - c1);
      await sleep(200);
    }
    latencies.sort((a, b) => a - b);

    console.table([
      {
        what: 'outbox -> SMSC',
        messages: MESSAGES,
        'written s': +writtenS.toFixed(2),
        'all submitted s': +submittedS.toFixed(2),
        'all delivered s': +deliveredS.toFixed(2),
        'messages/s': +perS.toFixed(0),
      },
      { what: 'floor: bare submits', messages: MESSAGES, 'messages/s': +floorPerS.toFixed(0) },
    ]);
    const met = perS >= TARGET_PER_S;
    ok = met;
    console.log(
      `Outbox to the SMSC simulator: ${perS.toFixed(0)} messages/s (floor: bare submits ${floorPerS.toFixed(0)}/s; window ${WINDOW}). Target >= ${TARGET_PER_S}/s: ${met ? 'met' : 'NOT met'}.`,
    );
    console.log(
      `Wake-up, commit -> SMSC: p50 ${pct(latencies, 50).toFixed(1)} ms, p95 ${pct(latencies, 95).toFixed(1)} ms over ${SINGLES} single messages (the safety poll is 1000 ms).`,
    );
    console.log(`${machineLine()}; the SMSC simulator and the sender in this process.`);
  } finally {
    await cleanup();
  }
  if (!ok) process.exitCode = 1;
}

await main();
