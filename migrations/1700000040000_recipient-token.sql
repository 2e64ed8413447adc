-- Up Migration
-- The recipient link (design.md "Recipients hear from the service", docs/recipients.md): /track/{id}?r=<token>, one
-- token per delivery, 122 random bits (gen_random_uuid() draws from the server's strong random source). It unlocks the
-- recipient's forms on the tracking page, never the merchant's data.
ALTER TABLE deliveries ADD COLUMN recipient_token text NOT NULL DEFAULT replace(gen_random_uuid()::text, '-', '');

-- Down Migration
ALTER TABLE deliveries DROP COLUMN IF EXISTS recipient_token;
