// A merchant's webhook receiver for trying the API (docs/quickstart.md): listens on 127.0.0.1:<port>, checks every
// message's Standard Webhooks signature with the endpoint's secret (the standardwebhooks library, as
// clients/typescript's verifyWebhook does), prints one line per message, and answers 204 (or 400 to a bad signature:
// the API retries any answer but 2xx on its schedule, so messages refused with a wrong secret arrive once it is fixed).
//   npx tsx scripts/webhook-receiver.ts 4242 whsec_...
import http from 'node:http';
import { Webhook } from 'standardwebhooks';

const [portArg, secret] = process.argv.slice(2);
const port = Number(portArg);
if (!Number.isInteger(port) || port <= 0 || !secret?.startsWith('whsec_')) {
  console.error('usage: npx tsx scripts/webhook-receiver.ts <port> <whsec_... secret of the webhook endpoint>');
  process.exit(2);
}
const webhook = new Webhook(secret);

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    try {
      // The raw body, byte for byte: the signature covers it.
      const message = webhook.verify(Buffer.concat(chunks).toString('utf8'), req.headers as Record<string, string>) as {
        id: string;
        type: string;
        livemode?: boolean;
        data: { delivery: { reference: string; status: string } };
      };
      const mode = message.livemode === false ? '  (test mode)' : '';
      console.log(
        `verified ${message.type.padEnd(26)} ${message.data.delivery.reference}  status ${message.data.delivery.status}  ${message.id}${mode}`,
      );
      res.writeHead(204).end();
    } catch (err) {
      console.log(`rejected ${req.method} ${req.url}: ${(err as Error).message}`);
      res.writeHead(400).end();
    }
  });
});
server.listen(port, '127.0.0.1', () =>
  console.log(`Listening on http://127.0.0.1:${port}/ for signed webhooks (Ctrl-C stops).`),
);
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.close(() => process.exit(0)));
