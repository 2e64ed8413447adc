// The SMSC simulator's control API (JSON over HTTP, docs/recipients.md "The SMSC simulator"): read and clear the
// recorded messages, refuse or throttle the next submits, drop connections, send a message from a phone.
import type { FastifyInstance, FastifyReply } from 'fastify';
import { statusCode } from '../../src/notifications/smpp/status.js';
import type { SmscSimulation } from './smsc.js';

const problem = (reply: FastifyReply, status: number, error: string, detail: string) =>
  reply.code(status).send({ error, detail });

const body = (value: unknown): Record<string, unknown> =>
  value && typeof value === 'object' ? (value as Record<string, unknown>) : {};

const isCount = (value: unknown): value is number => Number.isInteger(value) && (value as number) >= 0;

export function smscControlRoutes(app: FastifyInstance, smsc: SmscSimulation): void {
  app.get<{ Querystring: { to?: string } }>('/_control/messages', (request) => ({
    data: smsc.list({ to: request.query.to }),
  }));
  app.delete('/_control/messages', () => ({ cleared: smsc.clear() }));
  app.get('/_control/status', () => ({ ...smsc.status(), config: smsc.config }));

  // {receipt_delay_ms?, undeliverable?: "regex" | null, answer_enquire_link?: boolean}
  app.patch('/_control/config', (request, reply) => {
    const { receipt_delay_ms: delay, undeliverable, answer_enquire_link: answer } = body(request.body);
    if (answer !== undefined && typeof answer !== 'boolean')
      return problem(reply, 422, 'invalid_switch', 'answer_enquire_link must be true or false');
    if (delay !== undefined && !isCount(delay))
      return problem(reply, 422, 'invalid_delay', 'receipt_delay_ms must be a whole number of milliseconds');
    if (undeliverable !== undefined && undeliverable !== null && typeof undeliverable !== 'string')
      return problem(reply, 422, 'invalid_pattern', 'undeliverable must be a regular expression (text) or null');
    if (typeof undeliverable === 'string') {
      try {
        new RegExp(undeliverable);
      } catch {
        return problem(reply, 422, 'invalid_pattern', 'undeliverable is not a valid regular expression');
      }
    }
    if (delay !== undefined) smsc.config.receiptDelayMs = delay;
    if (undeliverable !== undefined) smsc.config.undeliverable = undeliverable;
    if (answer !== undefined) smsc.config.answerEnquireLink = answer;
    return smsc.config;
  });

  // {count, status: "ESME_RSYSERR" | 8}: the next `count` submits are answered with that command_status.
  app.post('/_control/refuse', (request, reply) => {
    const { count, status } = body(request.body);
    const code = statusCode((status ?? 'ESME_RSYSERR') as string | number);
    if (!isCount(count)) return problem(reply, 422, 'invalid_count', 'count must be a whole number');
    if (code === undefined)
      return problem(reply, 422, 'invalid_status', 'status must be an SMPP error name (ESME_R...) or a number > 0');
    smsc.refuse(count, code);
    return { refusing: count, status: code };
  });

  // {per_second: K | null}: above K submits in a second, ESME_RTHROTTLED.
  app.post('/_control/throttle', (request, reply) => {
    const { per_second: perSecond } = body(request.body);
    if (perSecond !== null && !isCount(perSecond))
      return problem(reply, 422, 'invalid_rate', 'per_second must be a whole number, or null to stop throttling');
    smsc.throttle(perSecond);
    return { throttle_per_second: perSecond };
  });

  // {when: "now" | "next_submit"}
  app.post('/_control/drop', (request, reply) => {
    const { when = 'now' } = body(request.body);
    if (when !== 'now' && when !== 'next_submit')
      return problem(reply, 422, 'invalid_when', 'when must be "now" or "next_submit"');
    return { when, dropped: smsc.drop(when) };
  });

  // {from, to?, text}: a message from a phone to the bound client (e.g. "PARAR").
  app.post('/_control/inbound', async (request, reply) => {
    const { from, to = 'Entregas', text } = body(request.body);
    if (typeof from !== 'string' || typeof to !== 'string' || typeof text !== 'string' || !from || !text)
      return problem(reply, 422, 'invalid_message', 'from and text are required (to: optional)');
    const status = await smsc.inbound({ from, to, text });
    if (status === null) return problem(reply, 409, 'no_session', 'no client is bound to the SMSC');
    return { delivered: status === 'ESME_ROK', response_status: status };
  });
}
