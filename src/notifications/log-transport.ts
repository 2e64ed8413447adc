// SMS_PROVIDER=log: no SMSC. Each message is written to the log (pino, info; the recipient token and PIN-like numbers
// masked, logs hold no secrets) with a generated message id, and its delivery receipt (`delivered`) follows at once. For development without the SMSC simulator and for deployments
// that should not send SMS yet but keep the message log working (docs/recipients.md "SMS over SMPP").
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { smsSegments } from './smpp/encoding.js';
import type { DeliveryReceipt, InboundMessage, SmsMessage, SmsTransport, SubmitResult } from './transport.js';

/** The text as logged: a link's recipient token (`r=...`) and PIN-like numbers (4 to 8 digits) are masked. */
export function masked(text: string): string {
  return text.replace(/([?&]r=)[^\s&#]+/g, '$1***').replace(/(?<![\d/=-])\d{4,8}(?![\d/-])/g, '****');
}

export class LogTransport implements SmsTransport {
  private readonly receiptListeners: ((receipt: DeliveryReceipt) => void | Promise<void>)[] = [];

  constructor(private readonly logger: Pick<Logger, 'info' | 'warn'>) {}

  async submit(message: SmsMessage): Promise<SubmitResult> {
    const messageId = `log-${randomUUID()}`;
    const { encoding, segments } = smsSegments(message.text);
    this.logger.info(
      {
        sms: {
          message_id: messageId,
          from: message.from,
          to: message.to,
          encoding,
          segments,
          text: masked(message.text),
        },
      },
      'SMS (SMS_PROVIDER=log, not sent)',
    );
    // The receipt after the submit's answer, as an SMSC's would be.
    setImmediate(() => {
      const receipt: DeliveryReceipt = { messageId, state: 'delivered', at: new Date() };
      for (const listener of this.receiptListeners)
        void Promise.resolve()
          .then(() => listener(receipt))
          .catch((err: Error) => this.logger.warn({ err: err.message }, 'SMS receipt listener failed'));
    });
    return { messageId };
  }

  onReceipt(listener: (receipt: DeliveryReceipt) => void | Promise<void>): void {
    this.receiptListeners.push(listener);
  }

  /** No phone can answer a log. */
  onInbound(_listener: (message: InboundMessage) => void | Promise<void>): void {}

  async close(): Promise<void> {}
}
