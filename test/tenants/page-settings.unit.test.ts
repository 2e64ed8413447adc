// The shop profile's checks (src/tenants/service.ts pageSettingsErrors): what PUT /v1/settings/shop and
// `admin tenant settings` refuse, each at its pointer.
import { describe, expect, it } from 'vitest';
import { pageSettingsErrors } from '../../src/tenants/service.js';

describe('the shop profile checks', () => {
  const refused = (values: Parameters<typeof pageSettingsErrors>[0]) =>
    pageSettingsErrors(values).map((e) => `${e.pointer} ${e.code}`);

  it('takes help contacts that are ones, empty and null values (they clear), and any display name', () => {
    expect(
      refused({
        display_name: 'Loja Kianda',
        help_email: ' ajuda@loja-kianda.ao ',
        help_phone: '+244 923 000 111',
        help_url: 'https://loja-kianda.ao/ajuda',
      }),
    ).toEqual([]);
    expect(refused({ help_email: '', help_phone: null, help_url: '   ' })).toEqual([]);
  });

  it('names every contact that is not one', () => {
    expect(refused({ help_email: 'ajuda', help_phone: 'ligue-nos', help_url: 'loja-kianda.ao' })).toEqual([
      '/help_email invalid_format',
      '/help_phone invalid_format',
      '/help_url invalid_format',
    ]);
    expect(refused({ help_url: 'javascript:alert(1)' })).toEqual(['/help_url invalid_format']);
    expect(refused({ help_phone: '12' })).toEqual(['/help_phone invalid_format']);
  });
});
