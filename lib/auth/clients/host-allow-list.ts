import { domainToASCII } from 'node:url';
import { McpPaletteError } from '../../core/errors.js';

/** The hosts whose client metadata documents the authorization endpoint may fetch. */
export interface HostAllowList {
  /** Normalized entries in the order given: `host.example.com` or `*.example.com`. */
  readonly entries: readonly string[];
  /** True when `host` (a URL host name, any case) is listed exactly or is a subdomain of a `*.` entry. */
  allows(host: string): boolean;
}

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_HOST_LENGTH = 253;

/** Letters-digits-hyphen host names only: no IP literals, no underscores, no empty labels. */
function isHostName(host: string): boolean {
  if (host.length === 0 || host.length > MAX_HOST_LENGTH) return false;
  const labels = host.split('.');
  if (!labels.every((label) => LABEL.test(label))) return false;
  // A numeric last label makes URL parsers read the whole name as an IPv4 address.
  return !/^[0-9]+$/.test(labels[labels.length - 1] ?? '');
}

function stripTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

function invalidEntry(entry: string, why: string): McpPaletteError {
  return new McpPaletteError('invalid_client_host', `invalid client host "${entry}": ${why}`, { entry });
}

function normalizeName(entry: string, name: string): string {
  if (/[/:@?#[\]\\]/.test(name)) {
    throw invalidEntry(entry, 'list a bare host name, without scheme, port, path or brackets');
  }
  // domainToASCII lowercases and turns international names into the xn-- form URL.hostname uses.
  const ascii = stripTrailingDot(domainToASCII(name));
  if (!isHostName(ascii)) throw invalidEntry(entry, 'not a valid DNS host name (IP addresses are not accepted)');
  return ascii;
}

/**
 * Parses the admin's allow-list: entries separated by commas, spaces or new lines. `host.example.com`
 * matches that host only; `*.example.com` matches every name below example.com (at any depth) but
 * not example.com itself. Throws naming the first invalid entry.
 */
export function parseHostAllowList(text: string): HostAllowList {
  const exact = new Set<string>();
  const parents = new Set<string>();
  const entries: string[] = [];
  for (const entry of text.split(/[\s,]+/).filter((item) => item.length > 0)) {
    if (entry.startsWith('*.')) {
      const parent = normalizeName(entry, entry.slice(2));
      // `*.com` or `*.internal` would open a whole top-level domain.
      if (!parent.includes('.')) throw invalidEntry(entry, 'a wildcard needs at least two labels after "*."');
      if (!parents.has(parent)) entries.push(`*.${parent}`);
      parents.add(parent);
    } else {
      if (entry.includes('*')) throw invalidEntry(entry, 'a wildcard is only allowed as a leading "*."');
      const host = normalizeName(entry, entry);
      if (!exact.has(host)) entries.push(host);
      exact.add(host);
    }
  }
  Object.freeze(entries);

  return Object.freeze({
    entries,
    allows(host: string): boolean {
      const name = stripTrailingDot(host.toLowerCase());
      if (!isHostName(name)) return false;
      if (exact.has(name)) return true;
      // Walk the parents of the name (a.b.example.com -> b.example.com -> example.com -> com); the
      // name itself is never compared against a wildcard parent, so *.example.com skips example.com.
      for (let dot = name.indexOf('.'); dot !== -1; dot = name.indexOf('.', dot + 1)) {
        if (parents.has(name.slice(dot + 1))) return true;
      }
      return false;
    },
  });
}

/** Whether the host of `url` is on the list; false for anything that is not a URL. */
export function allowsUrlHost(allowList: HostAllowList, url: string): boolean {
  try {
    return allowList.allows(new URL(url).hostname);
  } catch {
    return false;
  }
}
