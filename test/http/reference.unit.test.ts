// The reference page's pieces without a server (issue 31 item 3): the derived test key's shape, the page without
// inline script and with its configuration escaped, the typed client's sample.
import { describe, expect, it } from 'vitest';
import { clientSample } from '../../src/http/code-samples.js';
import { referenceConfiguration, referencePage } from '../../src/http/plugins/reference.js';
import { deriveKey, parseKey } from '../../src/platform/secrets.js';

describe('deriveKey', () => {
  it('gives a well-formed key of the asked kind and mode, the same for the same secret, another for another', () => {
    const key = deriveKey('secret', 'test', 'session-token-1', 'api-reference-test-key');
    expect(parseKey(key)).toEqual({ kind: 'secret', mode: 'test' });
    expect(deriveKey('secret', 'test', 'session-token-1', 'api-reference-test-key')).toBe(key);
    expect(deriveKey('secret', 'test', 'session-token-2', 'api-reference-test-key')).not.toBe(key);
    expect(deriveKey('secret', 'test', 'session-token-1', 'another use')).not.toBe(key);
  });
});

describe('the reference page', () => {
  it('has no inline script; its configuration is one escaped attribute, with the key only when given', () => {
    const html = referencePage('sk_test_"><script>alert(1)</script>');
    expect(html.match(/<script[^>]*>/g)).toEqual([
      expect.stringMatching(/^<script id="api-reference" data-configuration="[^"]*">$/),
      '<script src="/docs/js/jitless.js">',
      '<script src="/docs/js/scalar.js">',
    ]);
    expect(html).toContain('sk_test_\\&quot;&gt;&lt;script&gt;');
    expect(referenceConfiguration(null).authentication).toEqual({ preferredSecurityScheme: 'secretKey' });
    expect(referenceConfiguration('sk_test_x').authentication.securitySchemes).toEqual({
      secretKey: { token: 'sk_test_x' },
    });
  });

  it('samples a call with the typed client: path parameters, required query, the request example', () => {
    const source = clientSample(
      'post',
      '/v1/deliveries/{id}/confirm_payment',
      {
        parameters: [
          { in: 'path', name: 'id', required: true, schema: { type: 'string', format: 'uuid' } },
          { in: 'query', name: 'expand', required: false, schema: { type: 'string' } },
          { in: 'header', name: 'idempotency-key', schema: { type: 'string' } },
        ],
        requestBody: { content: { 'application/json': { example: { reference: 'TRF-1' } } } },
      },
      'https://api.example.ao',
    );
    expect(source).toBe(
      [
        "import { createClient } from '@delivery-api/client';",
        '',
        "const api = createClient({ apiKey: process.env.DELIVERY_API_KEY, baseUrl: 'https://api.example.ao' });",
        '',
        "const { data, error } = await api.POST('/v1/deliveries/{id}/confirm_payment', {",
        '  params: {"path":{"id":"3f6c1b9e-8a2d-4c1e-9b7a-2d5e8f1a0c42"}},',
        '  body: {',
        '    "reference": "TRF-1"',
        '  },',
        '});',
        'if (error) throw new Error(`${error.error}: ${error.detail}`);',
        'console.log(data);',
      ].join('\n'),
    );
  });
});
