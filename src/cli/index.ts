// The admin command line (the operator's tool; merchants have the dashboard): one module per command group in
// ./commands, each calling the same domain services as the API's routes.
//   npm run --silent admin -- tenant create --name "Loja X" --allowed-origin https://shop.example --json
import { pathToFileURL } from 'node:url';
import { Command, CommanderError } from 'commander';
import type { Client } from '@temporalio/client';
import { loadConfig, type Config } from '../platform/config.js';
import { createPool, type Pool } from '../platform/db.js';
import { connectTemporal } from '../platform/temporal.js';
import { codCommands } from './commands/cod.js';
import { courierCommands } from './commands/courier.js';
import { deliveryCommands } from './commands/delivery.js';
import { keyCommands } from './commands/key.js';
import { tenantCommands } from './commands/tenant.js';
import { userCommands } from './commands/user.js';
import { IgnoredError, UsageError } from './context.js';

export function buildProgram(
  getPool: () => Pool,
  out: (text: string) => void = (t) => process.stdout.write(t),
  getTemporal: () => Promise<Client> = () => connectTemporal(loadConfig()),
  getConfig: () => Config = () => loadConfig(),
) {
  const print = (json: boolean, value: unknown, human: string) =>
    out(json ? JSON.stringify(value) + '\n' : human + '\n');
  const program = new Command('admin')
    .description('Delivery API administration')
    .exitOverride()
    .showHelpAfterError(false);
  program.configureOutput({ writeErr: (text) => process.stderr.write(text), writeOut: (text) => out(text) });
  const ctx = { getPool, getTemporal, getConfig, print };
  tenantCommands(program, ctx);
  keyCommands(program, ctx);
  userCommands(program, ctx);
  courierCommands(program, ctx);
  deliveryCommands(program, ctx);
  codCommands(program, ctx);
  return program;
}

/** Runs one command; the exit code: 0 done, 1 failed (connections...), 2 a usage mistake, 3 an ignored action. */
export async function runAdmin(argv: string[]): Promise<number> {
  let pool: Pool | null = null;
  let temporal: Client | null = null;
  const getPool = () => (pool ??= createPool(loadConfig().databaseUrl, 2));
  const getTemporal = async () => (temporal ??= await connectTemporal(loadConfig()));
  const program = buildProgram(getPool, undefined, getTemporal);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode === 0 ? 0 : 2;
    if (err instanceof UsageError || err instanceof IgnoredError) {
      process.stderr.write(`error: ${err.message}\n`);
      return err instanceof UsageError ? 2 : 3;
    }
    const message = (err as Error).message;
    process.stderr.write(
      `error: ${message}\nCheck DATABASE_URL (is Postgres up and migrated? run \`npm run migrate\`) and, for delivery commands, TEMPORAL_ADDRESS.\n`,
    );
    return 1;
  } finally {
    await (pool as Pool | null)?.end();
    await (temporal as Client | null)?.connection.close();
  }
}

// Run as a program (tsx src/cli/index.ts, or the bundle .build/dist/admin.js), not when imported by tests.
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runAdmin(process.argv.slice(2)).then((code) => process.exit(code));
}
