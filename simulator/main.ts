// npm run simulator -- --port 4010 [--config simulator.json] [--host 127.0.0.1]
// Runs the courier simulator as its own process. Without --config it runs the demo companies of the dev command.
// The config file is JSON: {"companies": [CompanyConfig, ...]} or just the array (docs/quotes.md, "Courier simulator").
import { Command } from 'commander';
import fs from 'node:fs';
import { DEMO_SIMULATOR_COMPANIES } from './demo.js';
import { createSimulator, type CompanyConfig } from './server.js';

const program = new Command()
  .name('simulator')
  .description(
    'Courier simulator: speaks the courier protocol for several simulated companies and sends signed fleet events.',
  )
  .option('-p, --port <port>', 'port to listen on', process.env.SIMULATOR_PORT ?? '4010')
  .option('--host <host>', 'address to bind', '127.0.0.1')
  .option('-c, --config <file>', 'JSON file: {"companies": [...]} (default: the demo companies)')
  .option('-q, --quiet', 'do not log fleet events')
  .parse();

const opts = program.opts<{ port: string; host: string; config?: string; quiet?: boolean }>();

function loadCompanies(file: string | undefined): CompanyConfig[] {
  if (!file) return DEMO_SIMULATOR_COMPANIES;
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
  const list = Array.isArray(parsed) ? parsed : (parsed as { companies?: unknown }).companies;
  if (!Array.isArray(list)) throw new Error(`${file}: expected {"companies": [...]} or an array of companies`);
  return list as CompanyConfig[];
}

async function main() {
  const port = Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be a port number, got "${opts.port}"`);
  const companies = loadCompanies(opts.config);
  const sim = await createSimulator({
    port,
    host: opts.host,
    companies,
    log: opts.quiet ? undefined : (line) => console.log(`[simulator] ${line}`),
  });
  console.log(`Courier simulator on ${sim.url}`);
  for (const c of companies) console.log(`  ${c.slug.padEnd(20)} ${sim.endpoint(c.slug)}`);
  console.log(
    `  control: ${sim.url}/_control/companies  (PATCH /_control/{slug}, GET /_control/{slug}/bookings, POST /_control/{slug}/events)`,
  );
  const stop = async () => {
    await sim.close();
    process.exit(0);
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

main().catch((err) => {
  console.error(`The simulator did not start: ${(err as Error).message}`);
  process.exit(1);
});
