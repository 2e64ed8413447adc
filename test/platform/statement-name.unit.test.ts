// The names of prepared statements (src/platform/db.ts): one per distinct text, a valid Postgres identifier, stable.
import { describe, expect, it } from 'vitest';
import { MAX_PREPARED_TEXTS, statementName } from '../../src/platform/db.js';

describe('statementName', () => {
  it('the same text, the same name; another text, another; an identifier Postgres keeps whole (under 64 bytes)', () => {
    const a = statementName('SELECT $1::int');
    expect(a).toBe(statementName('SELECT $1::int'));
    expect(a).not.toBe(statementName('SELECT $1::text'));
    expect(a).toMatch(/^s_[0-9a-f]{24}$/);
  });

  it(`past ${MAX_PREPARED_TEXTS} distinct texts, new texts get no name (they run unnamed); known ones keep theirs`, () => {
    const known = statementName('SELECT $1::bigint');
    for (let i = 0; i < MAX_PREPARED_TEXTS; i++) statementName(`SELECT $1::int + ${i}`);
    expect(statementName('SELECT $1::int + 999999')).toBeNull();
    expect(statementName('SELECT $1::bigint')).toBe(known);
  });
});
