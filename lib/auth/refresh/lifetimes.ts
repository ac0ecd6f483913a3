import { McpPaletteError } from '../../core/errors.js';

/** How long one refresh session's tokens live, in seconds. */
export interface RefreshLifetimes {
  /** Each access token, capped further by what remains of the session. */
  readonly accessSeconds: number;
  /** A session nobody refreshes for this long ends; every successful refresh restarts it. */
  readonly inactivitySeconds: number;
  /** From the initial sign-in; rotation and use never extend it. */
  readonly absoluteSeconds: number;
}

/** Defaults and maxima at once: a configuration may shorten a lifetime (tests do), never lengthen it. */
export const MAX_REFRESH_LIFETIMES: RefreshLifetimes = Object.freeze({
  accessSeconds: 900,
  inactivitySeconds: 604_800,
  absoluteSeconds: 1_814_400,
});

const FIELDS = ['accessSeconds', 'inactivitySeconds', 'absoluteSeconds'] as const;

/**
 * Editor or test input to lifetimes. Absent, empty or null fields take the default (the maximum);
 * numeric strings are accepted because Node-RED hands editor fields over as text.
 */
export function parseRefreshLifetimes(input: Partial<Record<keyof RefreshLifetimes, unknown>> = {}): RefreshLifetimes {
  const result = {} as Record<keyof RefreshLifetimes, number>;
  for (const field of FIELDS) {
    const raw = input?.[field];
    const maximum = MAX_REFRESH_LIFETIMES[field];
    if (raw === undefined || raw === null || raw === '') {
      result[field] = maximum;
      continue;
    }
    const value = typeof raw === 'string' && /^\s*\d+\s*$/.test(raw) ? Number(raw) : raw;
    if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1 || value > maximum) {
      throw new McpPaletteError('invalid_refresh_lifetime', `${field} must be a whole number of seconds from 1 to ${maximum}`, { field, maximum });
    }
    result[field] = value;
  }
  return Object.freeze(result);
}
