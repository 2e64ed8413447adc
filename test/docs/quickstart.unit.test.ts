// docs/quickstart.md is the README's quickstart: the same shell commands, so the two cannot drift. Running them is
// test/system/quickstart.test.ts (against a real `npm run dev`).
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../src/platform/config.js';

/** The ```sh blocks of a page, in order. */
const shellBlocks = (markdown: string): string[] =>
  [...markdown.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((m) => m[1]);

describe('docs/quickstart.md', () => {
  it("is the README's quickstart: the same commands", () => {
    const readme = fs.readFileSync(path.join(ROOT_DIR, 'README.md'), 'utf8');
    const blocks = shellBlocks(fs.readFileSync(path.join(ROOT_DIR, 'docs/quickstart.md'), 'utf8'));
    expect(blocks.length).toBeGreaterThan(4);
    for (const block of blocks) expect(readme).toContain(block);
  });
});
