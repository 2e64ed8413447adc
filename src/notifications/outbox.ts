// The SMS sender (docs/recipients.md "The outbox"), run by the worker process beside the Temporal worker: claims due
// messages of the outbox under a lease, submits them through the SmsTransport with at most `window` in flight, and
// records each outcome; applies delivery receipts and opt-out replies. A message is committed with its delivery event
// (src/notifications/enqueue.ts) and wakes the sender through NOTIFY; a poll every `pollMs` catches what a lost
// listener missed, and the tries that come due. Nothing here is on a delivery's path: the workflow never waits for it.
import pg from 'pg';
import type { Pool } from '../platform/db.js';
import { isOptOutKeyword, normalizePhone } from '../../shared/notifications/messages.js';
import { SmsSubmitError, type DeliveryReceipt, type InboundMessage, type SmsTransport } from './transport.js';
import {
  applyReceipt,
  claimDue,
  listenForQueued,
  markFinal,
  markRetry,
  markSubmitted,
  optOut,
  type ClaimedNotification,
} from './repository.js';

interface Logger {
  info(message: string, attrs?: Record<string, unknown>): void;
  warn(message: string, attrs?: Record<string, unknown>): void;
}

export interface SmsOutboxOptions {
  pool: Pool;
  /** Null with SMS_PROVIDER=none: every message is stored not_sent (no_provider). */
  transport: SmsTransport | null;
  log: Logger;
  /** Submits in flight at once (the SMSC's window). */
  window?: number;
  /** How long a claimed message is this sender's; past it (the sender died) another claims it again. */
  leaseMs?: number;
  /** Tries before a message is failed. */
  maxAttempts?: number;
  /** The wait after the first failed try, doubled each time up to `backoffCapMs`. */
  backoffMs?: number;
  backoffCapMs?: number;
  /** The safety poll (due retries, a lost listener). */
  pollMs?: number;
  /** Only this tenant's messages (tests sharing one database). */
  tenantId?: string;
}

export const SMS_OUTBOX_DEFAULTS = {
  window: 10,
  leaseMs: 60_000,
  maxAttempts: 8,
  backoffMs: 2_000,
  backoffCapMs: 600_000,
  pollMs: 1_000,
} as const;

/** The wait before try `attempts + 1`: exponential with jitter (half to all of it), capped. */
export function retryDelayMs(attempts: number, baseMs: number, capMs: number, random = Math.random): number {
  const full = Math.min(capMs, baseMs * 2 ** Math.max(0, attempts - 1));
  return Math.round(full / 2 + (random() * full) / 2);
}

/** What a receipt's final state makes of the message; null: not final (accepted), nothing changes. */
function receiptOutcome(r: DeliveryReceipt): { status: 'delivered' | 'failed'; reason: string | null } | null {
  if (r.state === 'delivered') return { status: 'delivered', reason: null };
  if (r.state === 'accepted') return null;
  return { status: 'failed', reason: r.error ? `${r.state}:${r.error}` : r.state };
}

/** Receipts that came before their submit was recorded are kept this long (then dropped). */
const EARLY_RECEIPT_MS = 5 * 60_000;

/** Applies delivery receipts, keeping one that came before its submit was recorded until the submit is. */
function createReceipts(pool: Pool) {
  const early = new Map<string, { receipt: DeliveryReceipt; at: number }>();

  async function apply(r: DeliveryReceipt, keep = true): Promise<void> {
    const outcome = receiptOutcome(r);
    if (!outcome) return;
    if (await applyReceipt(pool, r.messageId, outcome.status, outcome.reason, r.at)) return;
    if (!keep) return;
    // The SMSC may answer before this sender recorded the submit: keep it for the submit, then look once more (the
    // submit may have been recorded meanwhile, before it looked for early receipts).
    const now = Date.now();
    for (const [id, e] of early) if (now - e.at > EARLY_RECEIPT_MS) early.delete(id);
    early.set(r.messageId, { receipt: r, at: now });
    if (await applyReceipt(pool, r.messageId, outcome.status, outcome.reason, r.at)) early.delete(r.messageId);
  }

  return {
    apply,
    /** The submit of `messageId` is recorded: applies its receipt if it came first. */
    async submitted(messageId: string): Promise<void> {
      const held = early.get(messageId);
      if (!held) return;
      early.delete(messageId);
      await apply(held.receipt, false);
    },
  };
}

/** A reply: PARAR / STOP opts its phone out (src/notifications/repository.ts optOut says for which tenant). */
async function handleInbound(pool: Pool, log: Logger, m: InboundMessage): Promise<void> {
  if (!isOptOutKeyword(m.text)) return;
  const phone = normalizePhone(m.from);
  if (!phone) return;
  const opted = await optOut(pool, phone, m.to, m.text.trim().slice(0, 40));
  log.info(opted ? 'SMS opt-out recorded' : 'SMS opt-out from a phone we never messaged', {
    tenantId: opted?.tenant_id,
  });
}

/** A connection of its own that LISTENs for queued messages; `ensure` (re)connects it after a loss. */
function createListener(pool: Pool, log: Logger, onQueued: () => void) {
  let listener: pg.Client | null = null;
  return {
    ensure(): void {
      if (listener) return;
      const options = (pool as unknown as { options: pg.ClientConfig }).options;
      const client = new pg.Client({ ...options, application_name: 'delivery-api sms outbox' });
      listener = client;
      const lost = () => {
        if (listener !== client) return;
        listener = null; // the next poll listens again
        client.end().catch(() => {});
      };
      client.on('error', lost);
      client.on('end', lost);
      client.on('notification', onQueued);
      client
        .connect()
        .then(() => listenForQueued(client))
        .catch((err: Error) => {
          log.warn('SMS outbox cannot listen; polling only', { error: err.message });
          lost();
        });
    },
    async end(): Promise<void> {
      const l = listener;
      listener = null;
      await l?.end().catch(() => {});
    },
  };
}

type Settings = SmsOutboxOptions & Required<Pick<SmsOutboxOptions, keyof typeof SMS_OUTBOX_DEFAULTS>>;

/** ESME_RTHROTTLED (the SMSC's window) and QUEUE_FULL (the transport's queue): slow down, the message is not at fault. */
export const isBackPressure = (code: string): boolean => code === 'ESME_RTHROTTLED' || code === 'QUEUE_FULL';

/** Submits one claimed message and records the outcome: submitted, a later try, or failed. */
async function send(o: Settings, receipts: ReturnType<typeof createReceipts>, row: ClaimedNotification): Promise<void> {
  const { pool, transport } = o;
  if (!transport) return markFinal(pool, row.id, 'not_sent', 'no_provider', false);
  try {
    const { messageId } = await transport.submit({ from: row.sender_id, to: row.recipient, text: row.body });
    if (await markSubmitted(pool, row.id, messageId)) await receipts.submitted(messageId);
  } catch (err) {
    const retryable = !(err instanceof SmsSubmitError) || err.retryable;
    const code = err instanceof SmsSubmitError ? err.code : (err as Error).message.slice(0, 200);
    if (!retryable) return markFinal(pool, row.id, 'failed', code, true);
    // The SMSC (or our own queue) asking to slow down says nothing of the message: a later try, not one of its tries.
    if (isBackPressure(code))
      return markRetry(pool, row.id, retryDelayMs(row.attempts + 1, o.backoffMs, o.backoffCapMs), code, false);
    if (row.attempts + 1 >= o.maxAttempts)
      return markFinal(pool, row.id, 'failed', `${code} (after ${o.maxAttempts} tries)`, true);
    await markRetry(pool, row.id, retryDelayMs(row.attempts + 1, o.backoffMs, o.backoffCapMs), code);
  }
}

export function createSmsOutbox(options: SmsOutboxOptions) {
  const o = { ...SMS_OUTBOX_DEFAULTS, ...options };
  const { pool, transport, log } = o;
  let inFlight = 0;
  let pumping = false;
  let again = false;
  let stopped = true;
  let timer: NodeJS.Timeout | null = null;
  const receipts = createReceipts(pool);
  const listener = createListener(pool, log, () => void pump());

  /** Claims as many due messages as the window has room for, and again while it fills it; one pump at a time. */
  async function pump(): Promise<void> {
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    try {
      do {
        again = false;
        const room = o.window - inFlight;
        if (stopped || room <= 0) break;
        const rows = await claimDue(pool, room, o.leaseMs, o.tenantId ?? null);
        for (const row of rows) {
          inFlight++;
          send(o, receipts, row)
            .catch((err: Error) =>
              log.warn('SMS outcome not recorded; the lease gives it another try', { error: err.message }),
            )
            .finally(() => {
              inFlight--;
              void pump();
            });
        }
        if (rows.length === room) again = true;
      } while (again);
    } catch (err) {
      log.warn('SMS outbox claim failed; retried at the next poll', { error: (err as Error).message });
    } finally {
      pumping = false;
    }
  }

  transport?.onReceipt((r) =>
    receipts
      .apply(r)
      .catch((err: Error) => log.warn('SMS receipt not recorded', { messageId: r.messageId, error: err.message })),
  );
  transport?.onInbound((m) =>
    handleInbound(pool, log, m).catch((err: Error) => log.warn('SMS reply not handled', { error: err.message })),
  );

  return {
    start(): void {
      if (!stopped) return;
      stopped = false;
      listener.ensure();
      timer = setInterval(() => {
        listener.ensure();
        void pump();
      }, o.pollMs);
      timer.unref();
      void pump();
    },
    /** Stops claiming and waits (up to `waitMs`) for the submits in flight; the transport is its owner's to close. */
    async stop(waitMs = 10_000): Promise<void> {
      stopped = true;
      if (timer) clearInterval(timer);
      timer = null;
      await listener.end();
      const deadline = Date.now() + waitMs;
      while ((inFlight > 0 || pumping) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    },
    /** Looks for due messages now (tests; the listener does it on every commit). */
    wake: () => void pump(),
    get inFlight() {
      return inFlight;
    },
  };
}
export type SmsOutbox = ReturnType<typeof createSmsOutbox>;
