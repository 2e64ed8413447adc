// The recipient's forms (src/recipients/forms.ts): what each accepts, and the words of what it refuses.
import { describe, expect, it } from 'vitest';
import { luandaDate, parseRecipientForm, windowDates } from '../../src/recipients/forms.js';

const NOW = new Date('2026-11-24T23:30:00Z'); // already the 25th in Luanda (UTC+1)

describe('recipient forms', () => {
  it('dates are Luanda days: today and the next six', () => {
    expect(luandaDate(NOW)).toBe('2026-11-25');
    expect(windowDates(NOW)).toEqual([
      '2026-11-25',
      '2026-11-26',
      '2026-11-27',
      '2026-11-28',
      '2026-11-29',
      '2026-11-30',
      '2026-12-01',
    ]);
  });

  it('instructions: trimmed, 1 to 280 characters (counted as characters, not UTF-16 units)', () => {
    expect(parseRecipientForm('instructions', { instructions: '  Portão azul  ' })).toEqual({
      ok: true,
      update: { instructions: 'Portão azul' },
    });
    expect(parseRecipientForm('instructions', { instructions: '🏠'.repeat(280) }).ok).toBe(true);
    expect(parseRecipientForm('instructions', { instructions: 'a'.repeat(281) })).toMatchObject({
      ok: false,
      errors: { instructions: 'too_long' },
    });
    expect(parseRecipientForm('instructions', { instructions: '   ' })).toMatchObject({
      errors: { instructions: 'required' },
    });
  });

  it('location: decimal point or comma, within range', () => {
    expect(parseRecipientForm('location', { lat: '-8,8521', lng: '13.2655' })).toEqual({
      ok: true,
      update: { destination_coordinates: { lat: -8.8521, lng: 13.2655 } },
    });
    expect(parseRecipientForm('location', { lat: '91', lng: '1e3' })).toMatchObject({
      ok: false,
      errors: { lat: 'out_of_range', lng: 'not_a_number' },
      values: { lat: '91', lng: '1e3' },
    });
    expect(parseRecipientForm('location', {})).toMatchObject({ errors: { lat: 'required', lng: 'required' } });
  });

  it('window: an offered date and slot only', () => {
    expect(parseRecipientForm('window', { date: '2026-12-01', slot: '12:00-16:00' }, NOW)).toEqual({
      ok: true,
      update: { preferred_window: { date: '2026-12-01', from: '12:00', to: '16:00' } },
    });
    expect(parseRecipientForm('window', { date: '2026-12-02', slot: '12:00-16:00' }, NOW)).toMatchObject({
      errors: { date: 'out_of_range' },
    });
    expect(parseRecipientForm('window', { date: '2026-11-24', slot: '07:00-09:00' }, NOW)).toMatchObject({
      errors: { date: 'out_of_range', slot: 'not_offered' },
    });
  });
});
