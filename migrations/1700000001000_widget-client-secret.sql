-- Up Migration
-- Widget deliveries get a per-delivery client secret (Stripe's PaymentIntent client_secret is the model): the
-- widget's creation answer shows it once, and only its SHA-256 hash is kept. Presented on
-- GET /v1/widget/deliveries/{id}, it unlocks the fuller view with the delivery PIN.
ALTER TABLE deliveries ADD COLUMN client_secret_hash bytea;

-- What a publishable key lets the browser choose: the payment methods its widget may book (NULL: the default,
-- prepaid and bank_transfer) and, for cod, the amount the courier collects when the merchant fixes it
-- (NULL: the widget sends it, and it must be above zero).
ALTER TABLE api_keys ADD COLUMN widget_payment_methods text[];
ALTER TABLE api_keys ADD COLUMN widget_cod_amount_aoa bigint CHECK (widget_cod_amount_aoa > 0);

-- Down Migration
ALTER TABLE api_keys DROP COLUMN IF EXISTS widget_cod_amount_aoa;
ALTER TABLE api_keys DROP COLUMN IF EXISTS widget_payment_methods;
ALTER TABLE deliveries DROP COLUMN IF EXISTS client_secret_hash;
