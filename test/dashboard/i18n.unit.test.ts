// The dashboard's words are complete: Portuguese and English have the same keys, none empty, the same placeholders;
// every status, event type, reason, error code and field-error code of the service has its words in both; and what
// the dashboard shows for a problem, a reason or a source is never a raw code or the API's English detail.
import { describe, expect, it } from 'vitest';
import { ERROR_CODES, FIELD_ERROR_CODES } from '../../src/http/problem.js';
import { ERROR_CATALOG } from '../../src/http/error-catalog.js';
import {
  ATTEMPT_FAILURE_REASONS,
  ATTEMPTS_EXHAUSTED_REASON,
  EVENT_TYPES,
  STALL_REASONS,
  STATUSES,
} from '../../shared/deliveries/vocabulary.js';
import { TRANSITIONS } from '../../shared/deliveries/state-table.js';
import { en } from '../../web/dashboard/src/i18n/en.js';
import { pt } from '../../web/dashboard/src/i18n/pt.js';
import { ALL_ERROR_WORDS } from '../../web/dashboard/src/i18n/errors.js';
import { EVENT_WORDS, REASON_WORDS, SOURCE_WORDS, STATUS_WORDS } from '../../web/dashboard/src/i18n/vocabulary.js';
import {
  describeProblem,
  eventLabel,
  reasonLabel,
  reasonText,
  sourceLabel,
  statusLabel,
} from '../../web/dashboard/src/i18n.js';

/** A code as the API writes them: `courier_rejected`, `delivery.created`. */
const RAW_CODE = /\b[a-z]+(_[a-z0-9]+)+\b|\b[a-z]+\.[a-z_]+\b/;
const placeholders = (text: string) => [...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort();

describe('the dashboard’s words', () => {
  it('Portuguese and English have the same keys, none empty, with the same placeholders', () => {
    expect(Object.keys(en).sort()).toEqual(Object.keys(pt).sort());
    for (const [key, text] of Object.entries(pt)) {
      expect(text.trim(), `pt ${key}`).not.toBe('');
      expect(en[key as keyof typeof en].trim(), `en ${key}`).not.toBe('');
      expect(placeholders(en[key as keyof typeof en]), key).toEqual(placeholders(text));
    }
  });

  it('every vocabulary value has its words in both languages, and none of them is a code', () => {
    const sources = [...new Set(TRANSITIONS.map((t) => t.source)), 'widget'];
    const tables: [string, Record<'pt' | 'en', Record<string, string>>, readonly string[]][] = [
      ['status', STATUS_WORDS, STATUSES],
      ['event', EVENT_WORDS, EVENT_TYPES],
      ['reason', REASON_WORDS, [...STALL_REASONS, ...ATTEMPT_FAILURE_REASONS, ATTEMPTS_EXHAUSTED_REASON]],
      ['source', SOURCE_WORDS, sources],
    ];
    for (const [name, table, values] of tables) {
      expect(Object.keys(table.en).sort(), name).toEqual(Object.keys(table.pt).sort());
      for (const value of values) {
        for (const lang of ['pt', 'en'] as const) {
          const words = table[lang][value];
          expect(words?.trim(), `${lang} ${name} ${value}`).toBeTruthy();
          expect(words, `${lang} ${name} ${value}`).not.toMatch(RAW_CODE);
        }
      }
    }
  });

  it('every error code and field-error code of the catalog has a sentence in both languages', () => {
    expect(Object.keys(ALL_ERROR_WORDS.errors).sort()).toEqual([...ERROR_CODES].sort());
    expect(Object.keys(ERROR_CATALOG).sort()).toEqual([...ERROR_CODES].sort());
    expect(Object.keys(ALL_ERROR_WORDS.fields).sort()).toEqual([...FIELD_ERROR_CODES].sort());
    for (const [code, [ptText, enText]] of Object.entries({ ...ALL_ERROR_WORDS.errors, ...ALL_ERROR_WORDS.fields })) {
      expect(ptText.trim(), code).not.toBe('');
      expect(enText.trim(), code).not.toBe('');
      expect(ptText, code).not.toMatch(RAW_CODE);
      expect(enText, code).not.toMatch(RAW_CODE);
    }
  });
});

describe('what the dashboard shows', () => {
  it('a problem: its code’s sentence (never the English detail), each field by its form label', () => {
    const refused = describeProblem('pt', {
      status: 409,
      error: 'delivery_not_cancellable',
      errors: null,
    });
    expect(refused.sentence).toContain('Esta entrega já não pode ser cancelada');
    expect(describeProblem('pt', { status: 401, error: 'invalid_credentials' }).sentence).toBe(
      'Email ou palavra-passe errados.',
    );
    expect(describeProblem('en', { status: 401, error: 'invalid_credentials' }).sentence).toBe(
      'Wrong email or password.',
    );
    // A code newer than this dashboard: a generic sentence by status.
    expect(describeProblem('pt', { status: 409, error: 'brand_new_code' }).sentence).toBe(pt.problem_unknown);
    expect(describeProblem('pt', { status: 503, error: 'brand_new_code' }).sentence).toBe(pt.problem_unknown_server);
    const invalid = describeProblem('pt', {
      status: 422,
      error: 'validation_failed',
      errors: [
        { pointer: '/destination/city', code: 'required' },
        { pointer: '/parcel/weight_grams', code: 'too_small' },
        { parameter: 'mystery', code: 'brand_new_field_code' },
      ],
    });
    expect(invalid.sentence).toBe('Há campos por corrigir.');
    expect(invalid.fields).toEqual([
      { pointer: '/destination/city', field: 'Destino · Cidade', message: 'é obrigatório' },
      { pointer: '/parcel/weight_grams', field: 'Encomenda · Peso', message: 'é pequeno ou curto demais' },
      { pointer: 'mystery', field: 'Um dos campos', message: 'não é válido' },
    ]);
  });

  it('reasons, statuses, events and sources in words; an unknown code as "unknown", a person’s words as written', () => {
    expect(reasonText('pt', 'courier_rejected')).toBe('a transportadora recusou o pedido');
    expect(reasonText('pt', 'not_allowed_from_in_transit')).toBe('não se aplica a uma entrega em trânsito');
    expect(reasonText('pt', 'some_new_reason')).toBe(pt.reason_unknown);
    expect(reasonText('pt', 'O cliente mudou de casa')).toBe('O cliente mudou de casa');
    expect(reasonLabel('en', 'sla_deadline_passed')).toBe('the delivery deadline passed');
    expect(sourceLabel('pt', 'fleet_webhook')).toBe('pela transportadora');
    expect(sourceLabel('pt', 'new_source')).toBe(pt.source_unknown);
    expect(statusLabel('pt', 'out_for_delivery')).toBe('Em distribuição');
    expect(statusLabel('pt', 'teleported')).toBe(pt.status_unknown);
    expect(eventLabel('en', 'cod.collected')).toBe('Cash collected');
    expect(eventLabel('pt', 'delivery.teleported')).toBe(pt.event_unknown);
    expect(statusLabel('pt', 'toString')).toBe(pt.status_unknown);
  });
});
