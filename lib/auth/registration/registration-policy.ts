import { McpPaletteError } from '../../core/errors.js';
import { BROWSER_UNSAFE_SCHEMES } from '../clients/unsafe-schemes.js';

/** A fixed-window counter: at most `max` events per `windowSeconds`. */
export interface RateWindow {
  readonly max: number;
  readonly windowSeconds: number;
}

/** Dynamic client registration (RFC 7591) settings of one `mcp-auth` node, validated and frozen. */
export interface RegistrationPolicy {
  /** Off by default: registration lets anyone on the network create client records. */
  readonly enabled: boolean;
  /** Lower-case private-use schemes (RFC 8252 §7.1) an admin allowed for redirect URIs, e.g. `cursor`. */
  readonly customSchemes: readonly string[];
  /** A registration no authorize or token request used for this long is forgotten (seconds). */
  readonly unusedSeconds: number;
  readonly maxBodyBytes: number;
  readonly maxRedirectUris: number;
  readonly maxUriLength: number;
  readonly maxClientNameLength: number;
  /** Registrations one client address (an IPv4 address or an IPv6 /64) may make per window. */
  readonly perAddress: RateWindow;
  /** Registrations the whole configuration accepts per window, from every address together. */
  readonly perNamespace: RateWindow;
}

export const DCR_UNUSED_DAYS_DEFAULT = 30;
export const DCR_UNUSED_DAYS_MAX = 365;
const SECONDS_PER_DAY = 86_400;

/**
 * The fixed limits. A real registration is a few hundred bytes with one to three redirect URIs; a
 * client registers once per install or connection, so ten per ten minutes from one address is
 * plenty, and a thousand an hour bounds how fast an attacker spread over many addresses can fill
 * storage (each record is at most a few KiB and expires after the unused period).
 */
export const REGISTRATION_LIMITS = Object.freeze({
  maxBodyBytes: 8 * 1024,
  maxRedirectUris: 10,
  maxUriLength: 2048,
  maxClientNameLength: 200,
  perAddress: Object.freeze({ max: 10, windowSeconds: 600 }),
  perNamespace: Object.freeze({ max: 1000, windowSeconds: 3600 }),
});

// RFC 3986 §3.1: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ), compared case-insensitively.
const SCHEME = /^[a-z][a-z0-9+.-]*$/;
const MAX_SCHEME_LENGTH = 64;

/**
 * Schemes that are not a private-use callback into a native app: web schemes (allowed anyway, with
 * their own rules) and the ones a browser executes, reads locally or hands to another program.
 */
const REFUSED_SCHEMES = new Set([
  ...[...BROWSER_UNSAFE_SCHEMES].map((scheme) => scheme.slice(0, -1)),
  'http',
  'https',
  'ws',
  'wss',
  'ftp',
  'mailto',
  'tel',
  'sms',
  'urn',
]);

/**
 * Reads the registration fields of an `mcp-auth` node: `dcrEnabled` (checkbox, default off),
 * `dcrSchemes` (custom redirect schemes separated by commas, spaces or new lines; `cursor`,
 * `cursor:` and `cursor://` all mean the scheme `cursor`) and `dcrUnusedDays` (1-365, default 30).
 * Throws McpPaletteError `invalid_dcr_scheme` (param `entry`) or `invalid_dcr_unused_days`.
 */
export function parseRegistrationPolicy(config: Record<string, unknown>): RegistrationPolicy {
  return Object.freeze({
    enabled: config.dcrEnabled === true || config.dcrEnabled === 'true',
    customSchemes: parseCustomSchemes(typeof config.dcrSchemes === 'string' ? config.dcrSchemes : ''),
    unusedSeconds: unusedDays(config.dcrUnusedDays) * SECONDS_PER_DAY,
    ...REGISTRATION_LIMITS,
  });
}

export function parseCustomSchemes(text: string): readonly string[] {
  const schemes: string[] = [];
  for (const entry of text.split(/[\s,]+/).filter((item) => item.length > 0)) {
    const scheme = entry.replace(/:(\/\/)?$/, '').toLowerCase();
    if (scheme.length > MAX_SCHEME_LENGTH || !SCHEME.test(scheme)) {
      throw new McpPaletteError('invalid_dcr_scheme', `"${entry}" is not a URI scheme name (a letter, then letters, digits, "+", "-" or ".")`, { entry });
    }
    if (REFUSED_SCHEMES.has(scheme)) {
      throw new McpPaletteError('invalid_dcr_scheme', `"${entry}" cannot be allowed as a custom redirect scheme`, { entry });
    }
    if (!schemes.includes(scheme)) schemes.push(scheme);
  }
  return Object.freeze(schemes);
}

function unusedDays(value: unknown): number {
  if (value === undefined || value === null || value === '') return DCR_UNUSED_DAYS_DEFAULT;
  const days = typeof value === 'number' ? value : typeof value === 'string' ? Number(value.trim()) : Number.NaN;
  if (!Number.isInteger(days) || days < 1 || days > DCR_UNUSED_DAYS_MAX) {
    throw new McpPaletteError('invalid_dcr_unused_days', `unused registrations must expire after 1-${DCR_UNUSED_DAYS_MAX} days`);
  }
  return days;
}
