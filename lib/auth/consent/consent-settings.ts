import { McpPaletteError } from '../../core/errors.js';
import { parseClientIdUrl } from '../clients/client-id-url.js';
import type { ConsentPolicy } from './consent-types.js';

export const DEFAULT_REMEMBER_DAYS = 30;
export const MAX_REMEMBER_DAYS = 365;

/**
 * Reads the `mcp-auth` consent properties: `consentRememberDays` (whole days, 0 = ask every time,
 * empty = 30) and `consentTrustedClients` (CIMD client_id URLs, one per line or separated by spaces
 * or commas). Trust only ever skips the prompt for a client the resolver already accepted (pinned
 * or allow-listed); an id listed here does not let a client in, and registered clients ignore it.
 */
export function parseConsentPolicy(config: Record<string, unknown>): ConsentPolicy {
  return Object.freeze({
    rememberSeconds: rememberDays(config.consentRememberDays) * 86_400,
    trustedClientIds: trustedClients(config.consentTrustedClients),
  });
}

function rememberDays(value: unknown): number {
  if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) return DEFAULT_REMEMBER_DAYS;
  const days = typeof value === 'number' ? value : Number(String(value).trim());
  if (!Number.isInteger(days) || days < 0 || days > MAX_REMEMBER_DAYS) {
    throw new McpPaletteError('invalid_consent_remember_days', `consent is remembered for 0-${MAX_REMEMBER_DAYS} whole days`, { max: MAX_REMEMBER_DAYS });
  }
  return days;
}

function trustedClients(value: unknown): ReadonlySet<string> {
  const text = typeof value === 'string' ? value : '';
  const ids = new Set<string>();
  for (const entry of text.split(/[\s,]+/)) {
    if (entry === '') continue;
    try {
      parseClientIdUrl(entry);
    } catch {
      throw new McpPaletteError('invalid_trusted_clients', `trusted client "${entry}" is not a canonical https client_id URL`, { entry });
    }
    ids.add(entry);
  }
  return ids;
}
