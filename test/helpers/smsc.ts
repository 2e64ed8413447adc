// An SMSC simulator in the test process, on free ports (simulator/smsc/): its SMPP_URL for the code under test, its
// recorded messages, and its control API for refusing, throttling, dropping and inbound messages.
import { createSmsc, type Smsc, type SmscMessage, type SmscOptions } from '../../simulator/smsc/server.js';

export interface TestSmsc extends Smsc {
  /** Calls the control API (JSON), e.g. control('POST', '/_control/throttle', { per_second: 2 }). */
  control(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }>;
  /** The recorded messages once there are at least `count` (matching `filter`), or throws after `timeoutMs`. */
  waitForMessages(count: number, filter?: { to?: string }, timeoutMs?: number): Promise<SmscMessage[]>;
}

export async function startSmsc(options: SmscOptions = {}): Promise<TestSmsc> {
  const smsc = await createSmsc({ smppPort: 0, httpPort: 0, receiptDelayMs: 50, ...options });
  return {
    ...smsc,
    async control(method, path, body) {
      const response = await fetch(`${smsc.controlUrl}${path}`, {
        method,
        headers: body === undefined ? {} : { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      return { status: response.status, body: await response.json() };
    },
    async waitForMessages(count, filter = {}, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        const messages = smsc.messages(filter);
        if (messages.length >= count) return messages;
        if (Date.now() > deadline)
          throw new Error(`the SMSC has ${messages.length} message(s), expected ${count} within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}
