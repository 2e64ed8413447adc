// The SMSC simulator's SMPP side (docs/recipients.md "The SMSC simulator"): npm `smpp`'s server. It takes binds (the
// configured system_id and password), answers submit_sm with a message id, records every message, and after a short
// delay sends its delivery receipt as a deliver_sm (DELIVRD, or UNDELIV for destinations matching a pattern). On
// demand it refuses the next submits, throttles (ESME_RTHROTTLED above K submits a second), drops connections (now, or
// on the next submit before answering it) and sends a message from a phone (a deliver_sm MO, e.g. "PARAR").
import { randomBytes } from 'node:crypto';
import smpp from 'smpp';
import { encodeSms, isGsm7, smsSegments } from '../../src/notifications/smpp/encoding.js';
import { textOf } from '../../src/notifications/smpp/deliver.js';
import { messageStateOf, receiptText } from '../../src/notifications/smpp/receipts.js';
import { statusName } from '../../src/notifications/smpp/status.js';

export interface SmscMessage {
  id: string;
  from: string;
  to: string;
  text: string;
  data_coding: number;
  encoding: 'gsm7' | 'ucs2' | 'other';
  segments: number;
  /** The text came in the message_payload TLV (one submit for a long message). */
  message_payload: boolean;
  submitted_at: string;
  /** The connection was dropped before the submit_sm_resp: the client never learned this id. */
  dropped: boolean;
  receipt: { stat: string; sent_at: string; response_status: string | null } | null;
}

export interface SmscConfig {
  systemId: string;
  password: string;
  /** The wait before a submitted message's delivery receipt. */
  receiptDelayMs: number;
  /** Destinations matching this pattern (a regular expression) get UNDELIV receipts; null: none. */
  undeliverable: string | null;
  /** false: enquire_link goes unanswered (a link that looks alive but is dead). */
  answerEnquireLink: boolean;
}

export interface SmscStats {
  sessions: number;
  submits: number;
  refused: number;
  throttled: number;
  dropped: number;
  enquire_links: number;
  receipts_pending: number;
}

type Log = (line: string) => void;
const ESME_ROK = 0;

export class SmscSimulation {
  readonly config: SmscConfig;
  private readonly messages: SmscMessage[] = [];
  private readonly bound = new Set<smpp.Session>();
  private readonly timers = new Set<NodeJS.Timeout>();
  /** Receipts with no bound session to take them: sent on the next bind. */
  private readonly pendingReceipts: (() => void)[] = [];
  private refusals: { count: number; status: number } = { count: 0, status: 0 };
  private throttlePerSecond: number | null = null;
  private recentSubmits: number[] = [];
  private dropOnNextSubmit = false;
  private readonly stats = { submits: 0, refused: 0, throttled: 0, dropped: 0, enquire_links: 0 };

  constructor(
    config: SmscConfig,
    private readonly log: Log = () => {},
  ) {
    this.config = { ...config };
  }

  /** Wires one TCP connection of the SMPP server. */
  attach(session: smpp.Session): void {
    session.socket.setNoDelay(true);
    session.on('error', () => session.destroy());
    session.on('close', () => this.bound.delete(session));
    for (const command of ['bind_transceiver', 'bind_transmitter', 'bind_receiver'])
      session.on(command, (pdu: smpp.PDU) => this.onBind(session, pdu));
    session.on('submit_sm', (pdu: smpp.PDU) => this.onSubmit(session, pdu));
    session.on('enquire_link', (pdu: smpp.PDU) => {
      this.stats.enquire_links++;
      if (this.config.answerEnquireLink) session.send(pdu.response());
    });
    session.on('unbind', (pdu: smpp.PDU) => {
      this.bound.delete(session);
      session.send(pdu.response(), () => session.close());
    });
  }

  private onBind(session: smpp.Session, pdu: smpp.PDU): void {
    if (pdu.system_id !== this.config.systemId || pdu.password !== this.config.password) {
      const status = pdu.system_id === this.config.systemId ? 'ESME_RINVPASWD' : 'ESME_RINVSYSID';
      this.log(`bind refused for "${pdu.system_id}" (${status})`);
      session.send(pdu.response({ command_status: smpp.errors[status] }), () => session.close());
      return;
    }
    session.send(pdu.response({ system_id: 'smsc-simulator' }));
    this.bound.add(session);
    this.log(`${pdu.command} from "${pdu.system_id}"`);
    for (const send of this.pendingReceipts.splice(0)) send();
  }

  private onSubmit(session: smpp.Session, pdu: smpp.PDU): void {
    if (!this.bound.has(session)) {
      session.send(pdu.response({ command_status: smpp.errors.ESME_RINVBNDSTS }));
      return;
    }
    this.stats.submits++;
    if (this.refusals.count > 0) {
      this.refusals.count--;
      this.stats.refused++;
      session.send(pdu.response({ command_status: this.refusals.status }));
      return;
    }
    const now = Date.now();
    this.recentSubmits = this.recentSubmits.filter((at) => at > now - 1000);
    if (this.throttlePerSecond !== null && this.recentSubmits.length >= this.throttlePerSecond) {
      this.stats.throttled++;
      session.send(pdu.response({ command_status: smpp.errors.ESME_RTHROTTLED }));
      return;
    }
    this.recentSubmits.push(now);
    const message = this.record(pdu);
    if (this.dropOnNextSubmit) {
      this.dropOnNextSubmit = false;
      this.stats.dropped++;
      message.dropped = true;
      this.log(`dropped the connection mid-submit (message ${message.id} to ${message.to})`);
      session.destroy();
      return;
    }
    session.send(pdu.response({ message_id: message.id }));
    this.log(`${message.id} ${message.from} -> ${message.to} (${message.segments} segment(s)): ${message.text}`);
    if (pdu.registered_delivery & 0x03)
      this.later(() => this.sendReceipt(session, message), this.config.receiptDelayMs);
  }

  private record(pdu: smpp.PDU): SmscMessage {
    const text = textOf(pdu);
    const dataCoding = Number(pdu.data_coding ?? 0);
    const { segments } = smsSegments(text);
    const ucs2Segments = text.length <= 70 ? 1 : Math.ceil(text.length / 67);
    const message: SmscMessage = {
      id: randomBytes(8).toString('hex'),
      from: String(pdu.source_addr),
      to: String(pdu.destination_addr),
      text,
      data_coding: dataCoding,
      encoding: dataCoding === 0 ? 'gsm7' : dataCoding === 8 ? 'ucs2' : 'other',
      // The segments the phone receives in the coding the message came in.
      segments: dataCoding === 8 ? ucs2Segments : segments,
      message_payload: pdu.message_payload !== undefined,
      submitted_at: new Date().toISOString(),
      dropped: false,
      receipt: null,
    };
    this.messages.push(message);
    return message;
  }

  private sendReceipt(origin: smpp.Session, message: SmscMessage): void {
    if (!this.messages.includes(message)) return; // cleared meanwhile
    const session = this.bound.has(origin) ? origin : [...this.bound][0];
    if (!session) {
      this.pendingReceipts.push(() => this.sendReceipt(origin, message));
      return;
    }
    const stat = this.isUndeliverable(message.to) ? 'UNDELIV' : 'DELIVRD';
    const text = receiptText({
      id: message.id,
      stat,
      err: stat === 'DELIVRD' ? '000' : '001',
      submitted: new Date(message.submitted_at),
      done: new Date(),
      text: isGsm7(message.text) ? message.text : '',
    });
    message.receipt = { stat, sent_at: new Date().toISOString(), response_status: null };
    session.deliver_sm(
      {
        source_addr_ton: 1,
        source_addr_npi: 1,
        source_addr: message.to,
        dest_addr_ton: 5,
        destination_addr: message.from,
        esm_class: 0x04,
        data_coding: 0,
        short_message: encodeSms(text).bytes,
        receipted_message_id: message.id,
        message_state: messageStateOf(stat),
      },
      (resp) => {
        if (message.receipt) message.receipt.response_status = statusName(resp.command_status || ESME_ROK);
      },
    );
  }

  private isUndeliverable(to: string): boolean {
    if (!this.config.undeliverable) return false;
    try {
      return new RegExp(this.config.undeliverable).test(to);
    } catch {
      return false;
    }
  }

  private later(run: () => void, ms: number): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      run();
    }, ms);
    this.timers.add(timer);
  }

  // --- the control API's operations (./control.ts) ---

  list(filter: { to?: string } = {}): SmscMessage[] {
    const to = filter.to?.replace(/^\+/, '');
    return this.messages.filter((message) => !to || message.to === to);
  }

  clear(): number {
    return this.messages.splice(0).length;
  }

  refuse(count: number, status: number): void {
    this.refusals = { count, status };
  }

  throttle(perSecond: number | null): void {
    this.throttlePerSecond = perSecond;
    this.recentSubmits = [];
  }

  /** Drops every bound connection now (returns how many), or arms a drop on the next submit (returns 0). */
  drop(when: 'now' | 'next_submit'): number {
    if (when === 'next_submit') {
      this.dropOnNextSubmit = true;
      return 0;
    }
    const sessions = [...this.bound];
    for (const session of sessions) session.destroy();
    this.stats.dropped += sessions.length;
    return sessions.length;
  }

  /** A message from a phone (deliver_sm, esm_class 0) to the first bound session: its deliver_sm_resp status, or null
   * when no session is bound. */
  inbound(message: { from: string; to: string; text: string }): Promise<string | null> {
    const session = [...this.bound][0];
    if (!session) return Promise.resolve(null);
    const encoded = encodeSms(message.text);
    const long = encoded.segments > 1;
    this.log(`inbound ${message.from} -> ${message.to}: ${message.text}`);
    return new Promise((resolve) => {
      session.deliver_sm(
        {
          source_addr_ton: 1,
          source_addr_npi: 1,
          source_addr: message.from.replace(/^\+/, ''),
          destination_addr: message.to,
          esm_class: 0,
          data_coding: encoded.dataCoding,
          short_message: long ? Buffer.alloc(0) : encoded.bytes,
          ...(long ? { message_payload: encoded.bytes } : {}),
        },
        (resp) => resolve(statusName(resp.command_status || ESME_ROK)),
      );
    });
  }

  status(): SmscStats & { throttle_per_second: number | null; refusing: number; drop_on_next_submit: boolean } {
    return {
      sessions: this.bound.size,
      ...this.stats,
      receipts_pending: this.pendingReceipts.length,
      throttle_per_second: this.throttlePerSecond,
      refusing: this.refusals.count,
      drop_on_next_submit: this.dropOnNextSubmit,
    };
  }

  stop(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const session of this.bound) session.destroy();
  }
}
