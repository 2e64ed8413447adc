// What the notification outbox needs from an SMS channel (docs/recipients.md). `SMS_PROVIDER=smpp` speaks SMPP 3.4
// to the SMSC at SMPP_URL (src/notifications/smpp/), `log` writes each message to the log and reports it delivered,
// `none` sends nothing (the outbox records the message as not sent).

/** One message to submit. `text` is whole: the transport decides how it travels (one submit, long-message TLV). */
export interface SmsMessage {
  /** Sender id (alphanumeric up to 11 characters, or a number). */
  from: string;
  /** E.164 without the plus sign or with it; the transport normalizes. */
  to: string;
  text: string;
}

export interface SubmitResult {
  /** The SMSC's message id: its delivery receipts name it. */
  messageId: string;
}

/** A submit the SMSC refused or could not take; `retryable` says whether the outbox should try again later. */
export class SmsSubmitError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    /** SMPP command_status or a transport code (e.g. ESME_RTHROTTLED, ECONNRESET). */
    readonly code: string,
  ) {
    super(message);
    this.name = 'SmsSubmitError';
  }
}

export type ReceiptState = 'delivered' | 'expired' | 'deleted' | 'undeliverable' | 'rejected' | 'unknown' | 'accepted';

/** A delivery receipt (deliver_sm with esm_class receipt bits) for a submitted message. */
export interface DeliveryReceipt {
  messageId: string;
  state: ReceiptState;
  /** The SMSC's error code, when it gave one. */
  error?: string;
  at: Date;
}

/** A message from a phone (deliver_sm that is not a receipt), e.g. a recipient's "PARAR". */
export interface InboundMessage {
  from: string;
  to: string;
  text: string;
}

export interface SmsTransport {
  /** Resolves once the SMSC accepted the message (submit_sm_resp OK); rejects with SmsSubmitError otherwise. */
  submit(message: SmsMessage): Promise<SubmitResult>;
  /**
   * A listener may return a promise: the SMPP transport answers the deliver_sm once it settles, with a temporary error
   * when it rejects (the SMSC then delivers the receipt or message again).
   */
  onReceipt(listener: (receipt: DeliveryReceipt) => void | Promise<void>): void;
  onInbound(listener: (message: InboundMessage) => void | Promise<void>): void;
  close(): Promise<void>;
}
