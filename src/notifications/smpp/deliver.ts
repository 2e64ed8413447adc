// A deliver_sm from the SMSC, handed to the transport's listeners: a delivery receipt (./receipts.ts) or a message from
// a phone (decoded by its data_coding). Each returns the listeners' results, so the session answers the deliver_sm
// only once they are done (and with a temporary error when one failed: the SMSC then delivers it again).
import type { Logger } from 'pino';
import type smpp from 'smpp';
import type { DeliveryReceipt, InboundMessage } from '../transport.js';
import { decodeSms } from './encoding.js';
import { deliverKind, parseReceipt } from './receipts.js';

export interface Listeners {
  receipt: ((receipt: DeliveryReceipt) => void | Promise<void>)[];
  inbound: ((message: InboundMessage) => void | Promise<void>)[];
}

type Log = Pick<Logger, 'debug' | 'warn'>;

/** The text of a deliver_sm: message_payload when present, else short_message (the library decodes both). */
export function textOf(pdu: smpp.PDU): string {
  const field = pdu.message_payload ?? pdu.short_message;
  const value: unknown = field && typeof field === 'object' && 'message' in field ? field.message : field;
  if (typeof value === 'string') return value;
  return Buffer.isBuffer(value) ? decodeSms(pdu.data_coding ?? 0, value) : '';
}

function call<T>(listeners: ((value: T) => void | Promise<void>)[], value: T): Promise<void>[] {
  return listeners.map(async (listener) => listener(value));
}

/** Receipts: the listeners' results, or undefined when the deliver_sm is not a receipt. */
export function deliverReceipt(pdu: smpp.PDU, listeners: Listeners, log: Log): Promise<void>[] | undefined {
  if (deliverKind(pdu.esm_class ?? 0) !== 'receipt') return undefined;
  const receipt = parseReceipt({
    text: textOf(pdu),
    receiptedMessageId: pdu.receipted_message_id,
    messageState: pdu.message_state,
    networkErrorCode: pdu.network_error_code,
  });
  if (!receipt) {
    log.warn({ text: textOf(pdu) }, 'SMPP: a delivery receipt that names no message');
    return [];
  }
  log.debug({ message_id: receipt.messageId, state: receipt.state }, 'SMPP: delivery receipt');
  return call(listeners.receipt, receipt);
}

/** Messages from a phone (esm_class message type 0); other kinds (acknowledgements) are answered and ignored. */
export function deliverInbound(pdu: smpp.PDU, listeners: Listeners, log: Log): Promise<void>[] | undefined {
  if (deliverKind(pdu.esm_class ?? 0) !== 'inbound') return undefined;
  const message: InboundMessage = {
    from: String(pdu.source_addr ?? ''),
    to: String(pdu.destination_addr ?? ''),
    text: textOf(pdu),
  };
  log.debug({ to: message.to }, 'SMPP: inbound message');
  return call(listeners.inbound, message);
}
