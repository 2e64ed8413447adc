// npm run smsc -- [--smpp-port 2775] [--http-port 4020] [--host 127.0.0.1] [--system-id entregas] [--password ...]
// Runs the SMSC simulator as its own process and prints its SMPP_URL and control API (docs/recipients.md).
import { Command } from 'commander';
import { createSmsc, SMSC_DEFAULTS } from './server.js';

const program = new Command()
  .name('smsc')
  .description('SMSC simulator: an SMPP 3.4 server that records messages and answers delivery receipts.')
  .option('--smpp-port <port>', 'SMPP port', process.env.SMSC_SMPP_PORT ?? '2775')
  .option('--http-port <port>', 'control API port', process.env.SMSC_HTTP_PORT ?? '4020')
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('--system-id <id>', 'the system_id a client must bind with', SMSC_DEFAULTS.systemId)
  .option('--password <password>', 'the password a client must bind with', SMSC_DEFAULTS.password)
  .option('--receipt-delay <ms>', 'wait before each delivery receipt', String(SMSC_DEFAULTS.receiptDelayMs))
  .option('--undeliverable <regex>', 'destinations matching it get UNDELIV receipts')
  .option('-q, --quiet', 'do not log messages')
  .parse();

const opts = program.opts<{
  smppPort: string;
  httpPort: string;
  host: string;
  systemId: string;
  password: string;
  receiptDelay: string;
  undeliverable?: string;
  quiet?: boolean;
}>();

async function main() {
  const smsc = await createSmsc({
    smppPort: Number(opts.smppPort),
    httpPort: Number(opts.httpPort),
    host: opts.host,
    systemId: opts.systemId,
    password: opts.password,
    receiptDelayMs: Number(opts.receiptDelay),
    undeliverable: opts.undeliverable ?? null,
    log: opts.quiet ? undefined : (line) => console.log(`[smsc] ${line}`),
  });
  console.log(`SMSC simulator: SMPP on port ${smsc.smppPort}, control API on ${smsc.controlUrl}`);
  console.log(`  SMPP_URL=${smsc.smppUrl}`);
  console.log(`  messages: curl ${smsc.controlUrl}/_control/messages`);
  const stop = async () => {
    await smsc.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(`The SMSC simulator did not start: ${(err as Error).message}`);
  process.exit(1);
});
