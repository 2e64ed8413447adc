// The shop profile (GET/PUT /v1/settings/shop, docs/dashboard.md "Settings"): what the recipients' tracking page and
// SMS show of the merchant: its name as customers know it and a help contact. One per account, not per mode: the
// tracking page shows it for live and test deliveries alike.
import { z } from 'zod';

const EXAMPLE = {
  name: 'Kianda Comércio, Lda',
  display_name: 'Loja Kianda',
  help_email: 'ajuda@loja-kianda.ao',
  help_phone: '+244 923 000 111',
  help_url: 'https://loja-kianda.ao/ajuda',
};

const DISPLAY_NAME = "The shop's name as customers know it; null: the account's name (`name`).";
const HELP_EMAIL = 'Help contact: an e-mail address (a mailto: link on the tracking page).';
const HELP_PHONE = 'Help contact: a phone number, 6-30 digits, spaces, +, (, ), . and - (a tel: link).';
const HELP_URL = 'Help contact: an http(s) page.';

export const ShopProfile = z
  .object({
    name: z.string().describe("The account's name, set when it was opened (read-only)."),
    display_name: z.string().nullable().describe(DISPLAY_NAME),
    help_email: z.string().nullable().describe(HELP_EMAIL),
    help_phone: z.string().nullable().describe(HELP_PHONE),
    help_url: z.string().meta({ format: 'uri' }).nullable().describe(HELP_URL),
  })
  .meta({ id: 'ShopProfile', examples: [EXAMPLE] });
export type ShopProfile = z.infer<typeof ShopProfile>;

/** A value sent: trimmed by the service; an empty string or null clears the setting. */
const field = (max: number, description: string, format?: 'uri') =>
  z
    .string()
    .max(max)
    .meta(format ? { format } : {})
    .nullable()
    .optional()
    .describe(`${description} Empty or null clears it.`);

/** A PUT changes the fields it names; the others keep their values. */
export const ShopProfileChange = z
  .strictObject({
    display_name: field(100, DISPLAY_NAME),
    help_email: field(254, HELP_EMAIL),
    help_phone: field(30, HELP_PHONE),
    help_url: field(500, HELP_URL, 'uri'),
  })
  .meta({
    id: 'ShopProfileChange',
    examples: [{ display_name: 'Loja Kianda', help_phone: '+244 923 000 111' }, { help_url: null }],
  });
export type ShopProfileChange = z.infer<typeof ShopProfileChange>;
