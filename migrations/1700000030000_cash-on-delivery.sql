-- Up Migration
-- Cash on delivery (design.md, third round, "Cash on delivery: collection, remittance, settlement";
-- docs/cash-on-delivery.md). An append-only double-entry ledger: one journal transaction per business event, its
-- entries (integer centavos, debit or credit) balance; balances are sums of entries, never stored.

-- Remittance terms per (tenant, courier company): hours the courier has to hand collected cash over (default 48 h).
CREATE TABLE cod_remittance_terms (
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  company_id uuid NOT NULL REFERENCES courier_companies(id),
  terms_hours integer NOT NULL CHECK (terms_hours BETWEEN 1 AND 8760),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, company_id)
);

-- One row per COD delivery whose cash was collected (the fleet `delivered` event): what was expected, what the
-- courier declared, when it is due, the remittance that covers it now (null: outstanding) and whether cod.overdue
-- was raised. Amounts here are the record of the collection; the ledger holds the money.
CREATE TABLE cod_collections (
  delivery_id uuid PRIMARY KEY REFERENCES deliveries(id),
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  livemode boolean NOT NULL,
  company_id uuid NOT NULL REFERENCES courier_companies(id),
  expected_aoa bigint NOT NULL CHECK (expected_aoa >= 0),
  collected_aoa bigint NOT NULL CHECK (collected_aoa >= 0),
  declared boolean NOT NULL,
  collected_at timestamptz NOT NULL DEFAULT now(),
  due_at timestamptz NOT NULL,
  remittance_id uuid,
  overdue_notified_at timestamptz
);
CREATE INDEX cod_collections_outstanding_idx ON cod_collections (tenant_id, livemode, company_id, collected_at)
  WHERE remittance_id IS NULL;
-- GET /v1/cod/balances sums a tenant's collections per company: an index-only scan (npm run bench:cod: the balances'
-- p95 at 1,000,000 ledger entries went from 61 ms, a scan of every collection, to under 8 ms).
CREATE INDEX cod_collections_tenant_idx ON cod_collections (tenant_id, livemode, company_id)
  INCLUDE (collected_aoa, collected_at, due_at, remittance_id);
CREATE INDEX cod_collections_overdue_idx ON cod_collections (due_at)
  WHERE remittance_id IS NULL AND overdue_notified_at IS NULL;

-- Remittances: reported by the courier (status reported -> confirmed | disputed) or recorded by the merchant
-- (confirmed at once). request_hash: the canonical body, so the same remittance_ref with the same body answers the
-- same and with another body 409.
CREATE TABLE cod_remittances (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  livemode boolean NOT NULL,
  company_id uuid NOT NULL REFERENCES courier_companies(id),
  remittance_ref text,
  source text NOT NULL CHECK (source IN ('courier', 'merchant', 'test_helper')),
  status text NOT NULL CHECK (status IN ('reported', 'confirmed', 'disputed')),
  method text NOT NULL CHECK (method IN ('bank_transfer', 'cash', 'multicaixa_express')),
  bank_reference text,
  paid_at timestamptz NOT NULL,
  total_aoa bigint NOT NULL CHECK (total_aoa >= 0),
  fee_deducted_aoa bigint NOT NULL CHECK (fee_deducted_aoa >= 0),
  request_hash text NOT NULL,
  dispute_reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  confirmed_at timestamptz,
  disputed_at timestamptz
);
CREATE UNIQUE INDEX cod_remittances_ref_idx ON cod_remittances (company_id, remittance_ref) WHERE remittance_ref IS NOT NULL;
CREATE INDEX cod_remittances_tenant_idx ON cod_remittances (tenant_id, livemode, created_at DESC, id DESC);

CREATE TABLE cod_remittance_items (
  remittance_id uuid NOT NULL REFERENCES cod_remittances(id),
  delivery_id uuid NOT NULL REFERENCES deliveries(id),
  position integer NOT NULL,
  tracking_ref text NOT NULL,
  amount_aoa bigint NOT NULL CHECK (amount_aoa >= 0),
  fee_deducted_aoa bigint NOT NULL CHECK (fee_deducted_aoa >= 0),
  PRIMARY KEY (remittance_id, delivery_id)
);
CREATE INDEX cod_remittance_items_delivery_idx ON cod_remittance_items (delivery_id);

-- The journal: one row per business event. idempotency_key makes a replay book nothing twice
-- (collection:<delivery>, remittance:<remittance>, confirmation:<remittance>, dispute:<remittance>).
CREATE TABLE cod_journal (
  id uuid PRIMARY KEY,
  tenant_id uuid NOT NULL REFERENCES tenants(id),
  livemode boolean NOT NULL,
  company_id uuid NOT NULL REFERENCES courier_companies(id),
  kind text NOT NULL CHECK (kind IN ('collection', 'remittance', 'fee_deduction', 'confirmation', 'dispute', 'correction')),
  idempotency_key text NOT NULL,
  delivery_id uuid REFERENCES deliveries(id),
  remittance_id uuid REFERENCES cod_remittances(id),
  memo jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, livemode, idempotency_key)
);

-- Entries: the account (per tenant, mode and company), debit or credit, a positive amount. The delivery it is about
-- (every entry names one), so a delivery's cash line is a sum too.
CREATE TABLE cod_entries (
  id bigserial PRIMARY KEY,
  transaction_id uuid NOT NULL REFERENCES cod_journal(id),
  tenant_id uuid NOT NULL,
  livemode boolean NOT NULL,
  company_id uuid NOT NULL,
  delivery_id uuid NOT NULL,
  account text NOT NULL CHECK (account IN ('customer_payments', 'courier_cash_held', 'remittances_in_transit',
                                           'merchant_cash', 'courier_fees')),
  direction text NOT NULL CHECK (direction IN ('debit', 'credit')),
  amount_aoa bigint NOT NULL CHECK (amount_aoa > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX cod_entries_balance_idx ON cod_entries (tenant_id, livemode, company_id, account) INCLUDE (direction, amount_aoa);
CREATE INDEX cod_entries_delivery_idx ON cod_entries (delivery_id);
CREATE INDEX cod_entries_transaction_idx ON cod_entries (transaction_id);

-- Append-only: journal rows and entries are never updated nor deleted (a correction is a new transaction).
CREATE FUNCTION cod_ledger_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the cash-on-delivery ledger is append-only (% on %)', TG_OP, TG_TABLE_NAME
    USING ERRCODE = 'restrict_violation';
END $$;
CREATE TRIGGER cod_journal_append_only BEFORE UPDATE OR DELETE ON cod_journal
  FOR EACH ROW EXECUTE FUNCTION cod_ledger_append_only();
CREATE TRIGGER cod_entries_append_only BEFORE UPDATE OR DELETE ON cod_entries
  FOR EACH ROW EXECUTE FUNCTION cod_ledger_append_only();

-- An entry joins only a journal transaction written in the same database transaction, with its tenant, mode and
-- company: a committed transaction can never be unbalanced later.
CREATE FUNCTION cod_entry_check() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE j cod_journal%ROWTYPE;
BEGIN
  SELECT * INTO j FROM cod_journal WHERE id = NEW.transaction_id;
  IF j.tenant_id IS DISTINCT FROM NEW.tenant_id OR j.livemode IS DISTINCT FROM NEW.livemode
     OR j.company_id IS DISTINCT FROM NEW.company_id THEN
    RAISE EXCEPTION 'cod entry % does not match its journal transaction', NEW.transaction_id USING ERRCODE = 'check_violation';
  END IF;
  IF (SELECT xmin::text FROM cod_journal WHERE id = NEW.transaction_id)
     <> (pg_current_xact_id()::text::bigint % 4294967296)::text THEN
    RAISE EXCEPTION 'cod journal transaction % is closed', NEW.transaction_id USING ERRCODE = 'check_violation';
  END IF;
  RETURN NEW;
END $$;
CREATE TRIGGER cod_entries_check BEFORE INSERT ON cod_entries FOR EACH ROW EXECUTE FUNCTION cod_entry_check();

-- Every journal transaction balances (debits = credits) and has at least two entries, checked at commit.
CREATE FUNCTION cod_journal_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE debits bigint; credits bigint; n integer;
BEGIN
  SELECT coalesce(sum(amount_aoa) FILTER (WHERE direction = 'debit'), 0),
         coalesce(sum(amount_aoa) FILTER (WHERE direction = 'credit'), 0), count(*)
    INTO debits, credits, n FROM cod_entries WHERE transaction_id = NEW.id;
  IF n < 2 OR debits <> credits THEN
    RAISE EXCEPTION 'cod journal transaction % does not balance (debits %, credits %, % entries)', NEW.id, debits, credits, n
      USING ERRCODE = 'check_violation';
  END IF;
  RETURN NULL;
END $$;
CREATE CONSTRAINT TRIGGER cod_journal_balanced AFTER INSERT ON cod_journal
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION cod_journal_balanced();

-- Down Migration
DROP TABLE IF EXISTS cod_entries;
DROP TABLE IF EXISTS cod_journal;
DROP FUNCTION IF EXISTS cod_journal_balanced();
DROP FUNCTION IF EXISTS cod_entry_check();
DROP FUNCTION IF EXISTS cod_ledger_append_only();
DROP TABLE IF EXISTS cod_remittance_items;
DROP TABLE IF EXISTS cod_remittances;
DROP TABLE IF EXISTS cod_collections;
DROP TABLE IF EXISTS cod_remittance_terms;
