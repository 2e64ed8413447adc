// The shopper's fields: the widget's own inputs, or page fields named by *-from attributes, and where the API's
// field errors (JSON Pointers into the request) point among them.

export const FIELDS = ['name', 'phone', 'address_line', 'city', 'province', 'weight', 'description'] as const;
export type FieldName = (typeof FIELDS)[number];

/** Attribute naming a page field (CSS selector) the widget reads a value from, instead of its own input. */
export const FROM_ATTR: Partial<Record<FieldName, string>> = {
  name: 'recipient-name-from',
  phone: 'recipient-phone-from',
  address_line: 'address-line-from',
  city: 'city-from',
  province: 'province-from',
  weight: 'weight-kg-from',
  description: 'description-from',
};

export const POINTER_FIELD: Record<string, FieldName> = {
  '/destination/address_line': 'address_line',
  '/destination/city': 'city',
  '/destination/province': 'province',
  '/destination/contact/name': 'name',
  '/destination/contact/phone': 'phone',
  '/parcel/weight_grams': 'weight',
  '/parcel/description': 'description',
};

/** The trimmed value (or text) of the page element a selector names; empty when there is none or it is invalid. */
export function pageValue(selector: string): string {
  let el: Element | null = null;
  try {
    el = document.querySelector(selector);
  } catch {
    el = null;
  }
  const v = el && 'value' in el ? String((el as HTMLInputElement).value) : (el?.textContent ?? '');
  return v.trim();
}
