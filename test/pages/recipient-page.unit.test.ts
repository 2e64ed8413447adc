// The recipient's section of the tracking page (src/pages/recipient-page.ts): escaped values, the token only in its
// hidden fields and links, the window form only when open, the script allowed by the CSP's hash, under 50 kB.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  RECIPIENT_CSS,
  RECIPIENT_PAGE_CSP,
  RECIPIENT_SCRIPT,
  renderRecipientSection,
} from '../../src/pages/recipient-page.js';
import { renderTrackingPage, type TrackingPageInput } from '../../src/pages/tracking-page.js';

const VIEW: TrackingPageInput = {
  reference: 'DLV-7KQ2M9XH4T',
  status: 'in_transit',
  events: [{ event_type: 'delivery.attempt_failed', occurred_at: '2026-11-23T09:40:00.000Z' }],
  livemode: true,
  shop_name: 'Loja Kianda',
  courier_name: 'Kandengue Express',
  expected_at: null,
  help: { email: null, phone: null, url: null },
};
const base = { token: 'tok"<en>', selfPath: '/track/abc', windowOpen: true, now: new Date('2026-11-23T10:00:00Z') };

describe('the recipient section', () => {
  it('escapes the token and what was typed; the window form only when open', () => {
    const html = renderRecipientSection(
      {
        ...base,
        failed: {
          form: 'instructions',
          errors: { instructions: 'too_long' },
          values: { instructions: '</textarea><script>' },
        },
      },
      'pt',
    );
    expect(html).toContain('value="tok&quot;&lt;en&gt;"');
    expect(html).toContain('&lt;/textarea&gt;&lt;script&gt;');
    expect(html).not.toContain('<script>');
    expect(html).toContain('action="/track/abc/window"');
    expect(renderRecipientSection({ ...base, windowOpen: false }, 'pt')).not.toContain('/window"');
    expect(renderRecipientSection({ ...base, formsOpen: false, notice: 'over' }, 'en')).not.toContain('<form');
  });

  it('the CSP allows the script by its hash and forms to this origin only; the page stays under 50 kB', () => {
    const hash = createHash('sha256').update(RECIPIENT_SCRIPT).digest('base64');
    expect(RECIPIENT_PAGE_CSP).toContain(`script-src 'sha256-${hash}'`);
    expect(RECIPIENT_PAGE_CSP).toContain("form-action 'self'");
    const page = renderTrackingPage(VIEW, 'pt', '/track/abc', base.now, {
      html: renderRecipientSection(base, 'pt'),
      css: RECIPIENT_CSS,
      script: RECIPIENT_SCRIPT,
    });
    expect(page).toContain(`<script>${RECIPIENT_SCRIPT}</script>`);
    expect(page).not.toContain('http-equiv="refresh"'); // what the recipient types must stay
    expect(Buffer.byteLength(page)).toBeLessThan(50 * 1024);
  });
});
