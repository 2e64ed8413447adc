// The Temporal connection options built from the configuration (src/platform/temporal.ts): plain gRPC, TLS, mTLS from files,
// an API key, and the errors a wrong combination gets. Pure: nothing connects.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/platform/config.js';
import { temporalConnectionOptions } from '../../src/platform/temporal.js';

describe('Temporal connection options (TLS, mTLS, API key)', () => {
  let dir: string;
  const file = (name: string, content: string) => {
    const p = path.join(dir, name);
    fs.writeFileSync(p, content);
    return p;
  };
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'temporal-tls-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  const options = (env: Record<string, string>) =>
    temporalConnectionOptions(loadConfig({ TEMPORAL_ADDRESS: 'temporal.example:7233', ...env }));

  it('the dev default: plain gRPC, no key', () => {
    expect(options({})).toEqual({ address: 'temporal.example:7233' });
  });

  it('TEMPORAL_API_KEY alone (Temporal Cloud): TLS on with the system CAs, the key sent', () => {
    expect(options({ TEMPORAL_API_KEY: 'key-123' })).toEqual({
      address: 'temporal.example:7233',
      apiKey: 'key-123',
      tls: {},
    });
  });

  it('mTLS: the CA, the client certificate and key read from disk, the server name', () => {
    const ca = file('ca.pem', '-----BEGIN CERTIFICATE-----\nCA\n-----END CERTIFICATE-----\n');
    const cert = file('client.pem', '-----BEGIN CERTIFICATE-----\nCLIENT\n-----END CERTIFICATE-----\n');
    const key = file('client.key', '-----BEGIN PRIVATE KEY-----\nKEY\n-----END PRIVATE KEY-----\n');
    const built = options({
      TEMPORAL_TLS_CA: ca,
      TEMPORAL_TLS_CERT: cert,
      TEMPORAL_TLS_KEY: key,
      TEMPORAL_TLS_SERVER_NAME: 'frontend.temporal.internal',
    });
    expect(built.apiKey).toBeUndefined();
    expect(built.tls).toEqual({
      serverNameOverride: 'frontend.temporal.internal',
      serverRootCACertificate: fs.readFileSync(ca),
      clientCertPair: { crt: fs.readFileSync(cert), key: fs.readFileSync(key) },
    });
  });

  it('TEMPORAL_TLS=true alone: TLS with the system CAs; TEMPORAL_TLS=false keeps an API key on plain gRPC', () => {
    expect(options({ TEMPORAL_TLS: 'true' })).toEqual({ address: 'temporal.example:7233', tls: {} });
    expect(options({ TEMPORAL_TLS: 'false', TEMPORAL_API_KEY: 'k' })).toEqual({
      address: 'temporal.example:7233',
      apiKey: 'k',
      tls: false,
    });
  });

  it('clear errors: a missing file names its variable; a certificate without its key; TLS off with TLS files', () => {
    expect(() => options({ TEMPORAL_TLS_CA: path.join(dir, 'missing-ca.pem') })).toThrow(
      /TEMPORAL_TLS_CA: cannot read .*missing-ca\.pem \(ENOENT\)/,
    );
    const cert = file('only-cert.pem', 'x');
    expect(() => options({ TEMPORAL_TLS_CERT: cert, TEMPORAL_TLS_KEY: path.join(dir, 'missing.key') })).toThrow(
      /TEMPORAL_TLS_KEY: cannot read/,
    );
    expect(() => options({ TEMPORAL_TLS_CERT: cert })).toThrow(/TEMPORAL_TLS_CERT and TEMPORAL_TLS_KEY go together/);
    expect(() => options({ TEMPORAL_TLS: 'false', TEMPORAL_TLS_CA: cert })).toThrow(/TEMPORAL_TLS=false contradicts/);
  });
});

describe('the Temporal servers we run', () => {
  it('buffer MAX_BUFFERED_EVENTS signals during a workflow task: the dev server and the cluster alike', async () => {
    // docs/architecture.md "Signals buffered during a workflow task": the default (100) lets a flood hit an SDK bug.
    const { MAX_BUFFERED_EVENTS } = await import('../../scripts/lib/temporal-cli.js');
    const { parse } = await import('yaml');
    const file = path.join(import.meta.dirname, '../../deploy/temporal/config/dynamicconfig/cluster.yaml');
    const cluster = parse(fs.readFileSync(file, 'utf8')) as Record<string, { value: unknown }[]>;
    expect(cluster['history.maximumBufferedEventsBatch']).toEqual([{ value: MAX_BUFFERED_EVENTS }]);
    expect(MAX_BUFFERED_EVENTS).toBeGreaterThanOrEqual(1000);
  });
});
