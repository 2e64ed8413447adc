import { Client, Connection } from '@temporalio/client';
import type { Config } from './config.js';

export async function connectTemporal(config: Pick<Config, 'temporalAddress' | 'temporalNamespace'>): Promise<Client> {
  const connection = await Connection.connect({ address: config.temporalAddress, connectTimeout: '10s' });
  return new Client({ connection, namespace: config.temporalNamespace });
}
