// The API keys an API process has authenticated, kept so that a request's authentication costs no round trip to
// Postgres (docs/operations.md "API key cache"). A cached key is never trusted past a change to it:
//   - this process forgets a key at once when it changes it (src/keys/repository.ts calls keyChanged);
//   - every change to api_keys, whoever makes it (another API process, the admin command line, SQL by hand), is
//     announced on channel api_keys_changed when it commits (trigger of migration 1700000009000); each cache listens
//     on a connection of its own and forgets the key on the announcement;
//   - while that connection is not listening (not yet, or lost), nothing is cached: every request asks Postgres;
//   - a read is stored only when it began while listening and nothing was announced before it ended; no entry is
//     older than a minute.
import { LRUCache } from 'lru-cache';
import pg from 'pg';
import type { KeyKind } from '../platform/secrets.js';
import type { KeyRow } from './repository.js';

const CHANNEL = 'api_keys_changed';
/** A cached key is read again after this, whatever was announced: a bound should an announcement ever be lost. */
const MAX_AGE_MS = 60_000;
/** Keys held at most, the least recently used dropped first: a flood of distinct keys cannot grow the process. */
const MAX_KEYS = 10_000;
/** After losing its connection (or failing to make it), the listener tries again on the first lookup past this. */
const RECONNECT_MS = 2_000;

/** Every cache of this process, so that a change made here is forgotten by all of them at once. */
const caches = new Set<KeyCache>();

/** A key was changed by this process (revoked, new origins...): every cache of the process forgets it now. */
export function keyChanged(keyId: string): void {
  for (const cache of caches) cache.forget(keyId);
}

export class KeyCache {
  /** Keyed by kind and hash; the least recently used is dropped past MAX_KEYS, and no entry outlives MAX_AGE_MS. */
  #entries = new LRUCache<string, KeyRow>({ max: MAX_KEYS, ttl: MAX_AGE_MS });
  /** Bumped by every forget: a read that started before a change does not store what it read. */
  #generation = 0;
  #listener: pg.Client | null = null;
  #listening = false;
  #closed = false;
  #retryAt = 0;

  /** `pool`: the listener connects as the pool's clients do (same database, role and TLS). */
  constructor(
    private readonly pool: pg.Pool,
    private readonly onError: (err: Error) => void = () => {},
  ) {
    caches.add(this);
  }

  /** The key of this kind and hash: from the cache, or `read` from Postgres (and kept when found and safe to keep). */
  async lookup(hash: Buffer, kind: KeyKind, read: () => Promise<KeyRow | null>): Promise<KeyRow | null> {
    const id = `${kind}:${hash.toString('base64')}`;
    const hit = this.#entries.get(id);
    if (hit) return hit;
    this.#startListening();
    // Kept only when a change committed after this read began would have been announced to this cache: it was
    // listening already, and nothing was announced (or changed here) meanwhile.
    const trusted = this.#listening;
    const generation = this.#generation;
    const row = await read();
    if (row && trusted && this.#listening && generation === this.#generation) this.#entries.set(id, row);
    return row;
  }

  /** Forgets one key (by its id), or every key. */
  forget(keyId?: string): void {
    this.#generation++;
    if (keyId === undefined) return this.#entries.clear();
    const ids = [...this.#entries.entries()].filter(([, row]) => row.id === keyId).map(([id]) => id);
    for (const id of ids) this.#entries.delete(id);
  }

  /** Stops listening and forgets everything (the app's onClose). */
  async close(): Promise<void> {
    this.#closed = true;
    caches.delete(this);
    const listener = this.#listener;
    this.#listener = null;
    this.#stopped();
    await listener?.end().catch(() => {});
  }

  /** Connects the listener on first use (building the app connects nothing), and again a while after losing it. */
  #startListening(): void {
    if (this.#listener || this.#closed || Date.now() < this.#retryAt) return;
    const client = new pg.Client({ ...this.pool.options, application_name: 'delivery-api key cache' });
    this.#listener = client;
    const lost = (err?: Error) => {
      if (this.#listener !== client) return;
      this.#listener = null;
      this.#stopped();
      client.end().catch(() => {});
      if (err) this.onError(err);
      this.#retryAt = Date.now() + RECONNECT_MS;
    };
    client.on('error', lost);
    client.on('end', () => lost());
    client.on('notification', (message) => this.forget(message.payload || undefined));
    client
      .connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      .then(() => {
        if (this.#listener === client) this.#listening = true;
      })
      .catch((err: Error) => lost(err));
  }

  #stopped(): void {
    this.#listening = false;
    this.forget();
  }
}
