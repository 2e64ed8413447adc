// SMPP addresses (5.2.5, 5.2.6): a sender id with letters travels as alphanumeric (TON 5, NPI 0), a number as an
// international E.164 number (TON 1, NPI 1, digits without the plus), a short code of 3-6 digits as network-specific
// (TON 3, NPI 0); the destination is always international.

export interface SmppAddress {
  ton: number;
  npi: number;
  addr: string;
}

const TON_INTERNATIONAL = 1;
const TON_NETWORK_SPECIFIC = 3;
const TON_ALPHANUMERIC = 5;
const NPI_ISDN = 1;
const NPI_UNKNOWN = 0;

/** A phone number as digits only, country code first ("+244 923 456 789" -> "244923456789"); null if it is not one. */
export function phoneDigits(phone: string): string | null {
  const digits = phone.replace(/[\s().-]/g, '').replace(/^(\+|00)/, '');
  return /^[1-9]\d{6,14}$/.test(digits) ? digits : null;
}

/** The source address of a sender id: up to 11 letters, digits and spaces (with a letter), a short code or a phone number. */
export function senderAddress(senderId: string): SmppAddress | null {
  const trimmed = senderId.trim();
  if (/[A-Za-z]/.test(trimmed)) {
    return /^[A-Za-z0-9 .&_-]{1,11}$/.test(trimmed) ? { ton: TON_ALPHANUMERIC, npi: NPI_UNKNOWN, addr: trimmed } : null;
  }
  if (/^\d{3,6}$/.test(trimmed)) return { ton: TON_NETWORK_SPECIFIC, npi: NPI_UNKNOWN, addr: trimmed };
  const digits = phoneDigits(trimmed);
  return digits ? { ton: TON_INTERNATIONAL, npi: NPI_ISDN, addr: digits } : null;
}

export function destinationAddress(phone: string): SmppAddress | null {
  const digits = phoneDigits(phone);
  return digits ? { ton: TON_INTERNATIONAL, npi: NPI_ISDN, addr: digits } : null;
}
