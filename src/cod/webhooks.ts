// The webhooks of cash-on-delivery events the API records (cod.remitted): stored with the event in its transaction,
// handed to their retry workflow after commit; when that fails the outbox's sweeper sends them.
import type { AppDeps } from '../platform/deps.js';
import { handOverMessage, type OutboxMessage } from '../webhooks/dispatcher.js';

export function sendCodWebhooks(
  deps: AppDeps,
  messages: OutboxMessage[],
  log: { warn(obj: object, msg: string): void },
): void {
  for (const message of messages) {
    handOverMessage(deps.temporal, deps.pool, deps.config, message).catch((err: Error) =>
      log.warn(
        { messageId: message.messageId, err: err.message },
        'cod webhook hand-over failed; the sweeper sends it',
      ),
    );
  }
}
