// What the HTTP layer's authentication asks of the keys domain (src/http/plugins/auth.ts takes it as an option, so
// the HTTP layer imports no domain): the stored key with this hash, from the process's key cache (src/keys/cache.ts).
import type { Pool } from '../platform/db.js';
import type { KeyKind } from '../platform/secrets.js';
import { KeyCache } from './cache.js';
import { keyByHash, type KeyRow } from './repository.js';

export interface KeyStore {
  find(hash: Buffer, kind: KeyKind): Promise<KeyRow | null>;
  close(): Promise<void>;
}

/** `onListenerLost`: the cache lost its Postgres listener and asks Postgres on every request until it is back. */
export function keyStore(pool: Pool, onListenerLost: (err: unknown) => void): KeyStore {
  const cache = new KeyCache(pool, onListenerLost);
  return {
    find: (hash, kind) => cache.lookup(hash, kind, () => keyByHash(pool, hash, kind)),
    close: () => cache.close(),
  };
}
