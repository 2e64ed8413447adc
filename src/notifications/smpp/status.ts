// SMPP command_status values: their names (ESME_R...) and whether a refused submit may succeed when tried again.
import smpp from 'smpp';

const NAMES = new Map(Object.entries(smpp.errors).map(([name, code]) => [code, name]));

/** The command_status the SMSC answers when the ESME sends faster than it allows (our window, or its rate). */
export const ESME_RTHROTTLED = smpp.errors.ESME_RTHROTTLED;
/** "Invalid bind status": the SMSC no longer counts our session as bound. */
export const ESME_RINVBNDSTS = smpp.errors.ESME_RINVBNDSTS;
/** "Temporary application error": the answer to a deliver_sm we could not take now (the SMSC delivers it again). */
export const ESME_RX_T_APPN = smpp.errors.ESME_RX_T_APPN;

/**
 * Statuses a later try can cure: throttling, a full queue, the SMSC's own failures, a temporary application error,
 * a lost bind. Everything else (bad address, bad data coding, prohibited, permanent application error...) is final.
 */
const RETRYABLE = new Set(
  [
    'ESME_RTHROTTLED',
    'ESME_RMSGQFUL',
    'ESME_RSYSERR',
    'ESME_RSUBMITFAIL',
    'ESME_RX_T_APPN',
    'ESME_RUNKNOWNERR',
    'ESME_RDELIVERYFAILURE',
    'ESME_RINVBNDSTS',
  ].map((name) => smpp.errors[name]),
);

/** ESME_RTHROTTLED, or `0x000000ff` for a status this library does not name. */
export function statusName(status: number): string {
  return NAMES.get(status) ?? `0x${status.toString(16).padStart(8, '0')}`;
}

export function isRetryableStatus(status: number): boolean {
  return RETRYABLE.has(status);
}

/** A status by name or number (the simulator's control API takes either). */
export function statusCode(status: string | number): number | undefined {
  if (typeof status === 'number') return Number.isInteger(status) && status > 0 ? status : undefined;
  return smpp.errors[status];
}
