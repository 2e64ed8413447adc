// How cash on delivery's rows are shown: the Remittance object, the courier's receipt, the CSV statement.
import type { RemittanceItemRow, RemittanceRow, StatementLine } from './remittance-repository.js';

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function toRemittance(r: RemittanceRow, items: RemittanceItemRow[]) {
  return {
    id: r.id,
    livemode: r.livemode,
    tenant_id: r.tenant_id,
    remittance_ref: r.remittance_ref,
    company_id: r.company_id,
    company_name: r.company_name,
    source: r.source,
    status: r.status,
    method: r.method as 'bank_transfer' | 'cash' | 'multicaixa_express',
    bank_reference: r.bank_reference,
    paid_at: r.paid_at.toISOString(),
    total_aoa: Number(r.total_aoa),
    fee_deducted_aoa: Number(r.fee_deducted_aoa),
    items: items
      .filter((i) => i.remittance_id === r.id)
      .map((i) => ({
        delivery_id: i.delivery_id,
        tracking_ref: i.tracking_ref,
        amount_aoa: Number(i.amount_aoa),
        fee_deducted_aoa: Number(i.fee_deducted_aoa),
      })),
    dispute_reason: r.dispute_reason,
    created_at: r.created_at.toISOString(),
    confirmed_at: iso(r.confirmed_at),
    disputed_at: iso(r.disputed_at),
  };
}

/** The courier's answer to its report (design.md): the remittance's id, ref, merchant, total and status. */
export function toFleetReceipt(r: RemittanceRow) {
  return {
    id: r.id,
    remittance_ref: r.remittance_ref ?? '',
    tenant_id: r.tenant_id,
    total_aoa: Number(r.total_aoa),
    status: r.status,
  };
}

const STATEMENT_COLUMNS = [
  'remittance_id',
  'remittance_ref',
  'created_at',
  'paid_at',
  'company_id',
  'company_name',
  'status',
  'method',
  'bank_reference',
  'delivery_id',
  'delivery_reference',
  'tracking_ref',
  'amount_aoa',
  'fee_deducted_aoa',
];

/** A CSV field (RFC 4180), defused for spreadsheets: a text starting with = + - @ gets a leading quote. */
function csvField(value: string | number | null): string {
  if (value === null) return '';
  let text = String(value);
  if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** The statement: one line per remitted delivery, amounts in centavos, a total line at the end. */
export function toStatementCsv(lines: StatementLine[]): string {
  const rows = lines.map((l) =>
    [
      l.remittance_id,
      l.remittance_ref,
      l.created_at.toISOString(),
      l.paid_at.toISOString(),
      l.company_id,
      l.company_name,
      l.status,
      l.method,
      l.bank_reference,
      l.delivery_id,
      l.reference,
      l.tracking_ref,
      Number(l.amount_aoa),
      Number(l.fee_deducted_aoa),
    ]
      .map(csvField)
      .join(','),
  );
  const total = lines.reduce((s, l) => s + Number(l.amount_aoa), 0);
  const fees = lines.reduce((s, l) => s + Number(l.fee_deducted_aoa), 0);
  const totalLine = ['total', '', '', '', '', '', '', '', '', '', '', '', total, fees].map(csvField).join(',');
  return [STATEMENT_COLUMNS.join(','), ...rows, totalLine].join('\r\n') + '\r\n';
}
