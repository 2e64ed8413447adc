// SMS over SMPP 3.4 (docs/recipients.md "SMS over SMPP"): one bind_transceiver session to the SMSC at SMPP_URL, kept
// alive by enquire_link and re-established with exponential backoff (and a fresh bind) whenever it drops. Submits
// wait in a bounded queue while there is no session and go out at most `window` at a time (the SMSC's window);
// ESME_RTHROTTLED pauses sending. A submit whose connection drops before its submit_sm_resp fails retryable
// (CONNECTION_LOST): the SMSC may have taken it, so the outbox's retry makes delivery at-least-once, never a silent loss.
import type { Logger } from 'pino';
import smpp from 'smpp';
import {
  SmsSubmitError,
  type DeliveryReceipt,
  type InboundMessage,
  type SmsMessage,
  type SmsTransport,
  type SubmitResult,
} from '../transport.js';
import { destinationAddress, senderAddress } from './addresses.js';
import { encodeSms, type EncodedSms } from './encoding.js';
import { deliverInbound, deliverReceipt, type Listeners } from './deliver.js';
import { ESME_RINVBNDSTS, ESME_RTHROTTLED, ESME_RX_T_APPN, isRetryableStatus, statusName } from './status.js';

export interface SmppOptions {
  /** smpp://system_id:password@host:port (port 2775 when left out). */
  url: string;
  /** Submits outstanding at once (without their submit_sm_resp): the SMSC's window. */
  window?: number;
  /** enquire_link every this often; a link that answered none of the last one is dropped and re-established. */
  enquireLinkMs?: number;
  /** The longest wait for a bind_transceiver_resp, a submit_sm_resp or a TCP connection. */
  responseTimeoutMs?: number;
  /** Reconnection backoff: the first wait, doubled on each failure up to the longest. */
  reconnectMinMs?: number;
  reconnectMaxMs?: number;
  /** The pause after an ESME_RTHROTTLED. */
  throttlePauseMs?: number;
  /** Submits waiting for a session or a window slot; beyond, submit fails retryable (QUEUE_FULL). */
  maxWaiting?: number;
  /** How long a submit waits to be sent (for a session, a window slot) before it fails retryable (SMSC_UNAVAILABLE). */
  waitTimeoutMs?: number;
  logger: Pick<Logger, 'debug' | 'info' | 'warn' | 'error'>;
}

interface Waiting {
  message: SmsMessage;
  encoded: EncodedSms;
  resolve: (result: SubmitResult) => void;
  reject: (err: SmsSubmitError) => void;
  timer: NodeJS.Timeout;
}

/** SMSC address and credentials from smpp://user:pass@host:port. */
export function parseSmppUrl(url: string): { host: string; port: number; systemId: string; password: string } {
  const parsed = new URL(url);
  if (parsed.protocol !== 'smpp:') throw new Error('SMPP_URL must look like smpp://system_id:password@host:port');
  return {
    host: parsed.hostname,
    port: parsed.port ? Number(parsed.port) : 2775,
    systemId: decodeURIComponent(parsed.username),
    password: decodeURIComponent(parsed.password),
  };
}

const unref = (timer: NodeJS.Timeout) => (timer.unref(), timer);

export class SmppTransport implements SmsTransport {
  private readonly smsc: ReturnType<typeof parseSmppUrl>;
  private readonly opts: Required<Omit<SmppOptions, 'url' | 'logger'>>;
  private readonly log: SmppOptions['logger'];
  private readonly listeners: Listeners = { receipt: [], inbound: [] };
  private session: smpp.Session | null = null;
  private bound = false;
  private closed = false;
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | null = null;
  private enquireTimer: NodeJS.Timeout | null = null;
  private pausedUntil = 0;
  private pauseTimer: NodeJS.Timeout | null = null;
  private readonly waiting: Waiting[] = [];
  /** The submits sent and not answered, each with the function that fails it. */
  private readonly inFlight = new Set<(err: SmsSubmitError) => void>();
  private boundWaiters: (() => void)[] = [];

  constructor(options: SmppOptions) {
    this.smsc = parseSmppUrl(options.url);
    this.log = options.logger;
    this.opts = {
      window: options.window ?? 10,
      enquireLinkMs: options.enquireLinkMs ?? 30_000,
      responseTimeoutMs: options.responseTimeoutMs ?? 10_000,
      reconnectMinMs: options.reconnectMinMs ?? 500,
      reconnectMaxMs: options.reconnectMaxMs ?? 30_000,
      throttlePauseMs: options.throttlePauseMs ?? 1000,
      maxWaiting: options.maxWaiting ?? 1000,
      waitTimeoutMs: options.waitTimeoutMs ?? 30_000,
    };
    this.connect();
  }

  /** Resolves once a session is bound (now, or after the next successful bind). */
  ready(): Promise<void> {
    if (this.bound) return Promise.resolve();
    return new Promise((resolve) => this.boundWaiters.push(resolve));
  }

  /** The session's state, for logs, health and tests. */
  state(): { bound: boolean; inFlight: number; waiting: number; reconnects: number } {
    return { bound: this.bound, inFlight: this.inFlight.size, waiting: this.waiting.length, reconnects: this.failures };
  }

  submit(message: SmsMessage): Promise<SubmitResult> {
    if (this.closed) return Promise.reject(new SmsSubmitError('the SMPP transport is closed', true, 'CLOSED'));
    if (!senderAddress(message.from) || !destinationAddress(message.to)) {
      const which = senderAddress(message.from) ? `destination "${message.to}"` : `sender id "${message.from}"`;
      return Promise.reject(new SmsSubmitError(`invalid ${which}`, false, 'INVALID_ADDRESS'));
    }
    if (this.waiting.length >= this.opts.maxWaiting)
      return Promise.reject(new SmsSubmitError('too many submits waiting for the SMSC', true, 'QUEUE_FULL'));
    return new Promise((resolve, reject) => {
      const entry: Waiting = { message, encoded: encodeSms(message.text), resolve, reject, timer: undefined! };
      entry.timer = unref(
        setTimeout(() => {
          const index = this.waiting.indexOf(entry);
          if (index < 0) return;
          this.waiting.splice(index, 1);
          reject(
            new SmsSubmitError(
              'not sent in time: no SMPP session, or the window stayed full',
              true,
              'SMSC_UNAVAILABLE',
            ),
          );
        }, this.opts.waitTimeoutMs),
      );
      this.waiting.push(entry);
      this.pump();
    });
  }

  onReceipt(listener: (receipt: DeliveryReceipt) => void | Promise<void>): void {
    this.listeners.receipt.push(listener);
  }

  onInbound(listener: (message: InboundMessage) => void | Promise<void>): void {
    this.listeners.inbound.push(listener);
  }

  /** Unbinds and closes; submits still waiting fail retryable (CLOSED), those in flight get their answer first. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of [this.reconnectTimer, this.pauseTimer]) if (timer) clearTimeout(timer);
    for (const entry of this.waiting.splice(0)) {
      clearTimeout(entry.timer);
      entry.reject(new SmsSubmitError('the SMPP transport is closed', true, 'CLOSED'));
    }
    const session = this.session;
    if (!session) return;
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer);
        session.destroy();
        resolve();
      };
      const timer = setTimeout(done, 2000);
      session.once('close', done);
      if (!this.bound || !session.unbind({}, done)) done();
    });
  }

  private connect(): void {
    if (this.closed) return;
    const { host, port, systemId, password } = this.smsc;
    const session = smpp.connect({ host, port });
    session.socket.setNoDelay(true); // small PDUs, each waited for: no Nagle delay
    this.session = session;
    // Connection and bind share one deadline: a silent SMSC is dropped and tried again.
    const bindDeadline = unref(
      setTimeout(() => {
        this.log.warn({ smsc: `${host}:${port}` }, 'SMPP: no bind within the response timeout');
        session.destroy();
      }, this.opts.responseTimeoutMs),
    );
    session.on('connect', () => {
      session.bind_transceiver({ system_id: systemId, password, interface_version: 0x34 }, (pdu) => {
        clearTimeout(bindDeadline);
        if (this.session !== session) return;
        if (pdu.command_status === 0) return this.onBound(session);
        this.log.error({ status: statusName(pdu.command_status) }, 'SMPP: the SMSC refused the bind');
        session.destroy();
      });
    });
    session.on('error', (err: Error) => {
      this.log.warn({ err: err.message, smsc: `${host}:${port}` }, 'SMPP: connection error');
      session.destroy();
    });
    session.on('close', () => {
      clearTimeout(bindDeadline);
      this.onClosed(session);
    });
    session.on('deliver_sm', (pdu: smpp.PDU) => this.onDeliver(session, pdu));
    session.on('enquire_link', (pdu: smpp.PDU) => session.send(pdu.response()));
    session.on('unbind', (pdu: smpp.PDU) => {
      session.send(pdu.response());
      session.close();
    });
  }

  private onBound(session: smpp.Session): void {
    this.log.info({ smsc: `${this.smsc.host}:${this.smsc.port}`, after: this.failures }, 'SMPP: bound');
    this.bound = true;
    this.failures = 0;
    let unanswered = false;
    this.enquireTimer = setInterval(() => {
      if (unanswered) {
        this.log.warn('SMPP: enquire_link unanswered, reconnecting');
        return session.destroy();
      }
      unanswered = true;
      session.enquire_link({}, () => (unanswered = false));
    }, this.opts.enquireLinkMs);
    this.enquireTimer.unref();
    for (const resolve of this.boundWaiters.splice(0)) resolve();
    this.pump();
  }

  private onClosed(session: smpp.Session): void {
    if (this.session !== session) return;
    this.session = null;
    this.bound = false;
    if (this.enquireTimer) clearInterval(this.enquireTimer);
    for (const fail of [...this.inFlight])
      fail(
        new SmsSubmitError(
          'the SMPP connection dropped before the submit_sm_resp: the SMSC may or may not have the message',
          true,
          'CONNECTION_LOST',
        ),
      );
    if (this.closed) return;
    const delay = Math.min(this.opts.reconnectMaxMs, this.opts.reconnectMinMs * 2 ** this.failures);
    this.failures++;
    this.log.warn({ in_ms: delay, failures: this.failures }, 'SMPP: connection lost, reconnecting');
    this.reconnectTimer = unref(setTimeout(() => this.connect(), delay));
  }

  /** Sends waiting submits while there is a bound session, a free window slot and no throttling pause. */
  private pump(): void {
    while (this.bound && this.session && this.waiting.length > 0 && this.inFlight.size < this.opts.window) {
      const wait = this.pausedUntil - Date.now();
      if (wait > 0) {
        this.pauseTimer ??= unref(setTimeout(() => ((this.pauseTimer = null), this.pump()), wait));
        return;
      }
      const entry = this.waiting.shift()!;
      clearTimeout(entry.timer);
      this.send(this.session, entry);
    }
  }

  private send(session: smpp.Session, entry: Waiting): void {
    const finish = (outcome: () => void) => {
      if (!this.inFlight.delete(fail)) return;
      clearTimeout(timer);
      outcome();
      this.pump();
    };
    const fail = (err: SmsSubmitError) => finish(() => entry.reject(err));
    const timer = unref(
      setTimeout(
        () => fail(new SmsSubmitError('no submit_sm_resp in time', true, 'TIMEOUT')),
        this.opts.responseTimeoutMs,
      ),
    );
    this.inFlight.add(fail);
    const sent = session.submit_sm(submitParams(entry), (pdu) => {
      const status = pdu.command_status;
      if (status === 0) return finish(() => entry.resolve({ messageId: String(pdu.message_id) }));
      if (status === ESME_RTHROTTLED) this.pausedUntil = Date.now() + this.opts.throttlePauseMs;
      if (status === ESME_RINVBNDSTS) session.destroy();
      const name = statusName(status);
      fail(new SmsSubmitError(`the SMSC refused the submit: ${name}`, isRetryableStatus(status), name));
    });
    if (!sent) fail(new SmsSubmitError('the SMPP connection is not writable', true, 'CONNECTION_LOST'));
  }

  private onDeliver(session: smpp.Session, pdu: smpp.PDU): void {
    const handled =
      deliverReceipt(pdu, this.listeners, this.log) ?? deliverInbound(pdu, this.listeners, this.log) ?? [];
    // Always a deliver_sm_resp: OK, or a temporary error when a listener failed (the SMSC delivers it again).
    void Promise.allSettled(handled).then((results) => {
      const failed = results.some((result) => result.status === 'rejected');
      session.send(pdu.response(failed ? { command_status: ESME_RX_T_APPN } : {}));
    });
  }
}

/** submit_sm: the sender and destination addresses, a receipt requested, GSM-7 or UCS-2, long texts in message_payload. */
function submitParams({ message, encoded }: Waiting): Record<string, unknown> {
  const source = senderAddress(message.from)!;
  const destination = destinationAddress(message.to)!;
  const long = encoded.segments > 1;
  return {
    source_addr_ton: source.ton,
    source_addr_npi: source.npi,
    source_addr: source.addr,
    dest_addr_ton: destination.ton,
    dest_addr_npi: destination.npi,
    destination_addr: destination.addr,
    registered_delivery: 1,
    data_coding: encoded.dataCoding,
    short_message: long ? Buffer.alloc(0) : encoded.bytes,
    ...(long ? { message_payload: encoded.bytes } : {}),
  };
}
