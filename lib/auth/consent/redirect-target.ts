import { BROWSER_UNSAFE_SCHEMES } from '../clients/unsafe-schemes.js';

/** What the consent page and the remembered approval need to know about a redirect_uri. */
export interface RedirectTarget {
  /** What the user judges: the host (and port) the browser will be sent to, or the app scheme. */
  readonly display: string;
  /** The identity an approval is remembered for: host name without port (loopback ports change per sign-in). */
  readonly host: string;
  /**
   * The CSP source that lets the form's answer redirect there: Chrome and Safari apply
   * `form-action` to the redirect a submission produces (w3c/webappsec-csp#8), so 'self' alone
   * would stop every approval at its final 302. Undefined when no safe source expression exists.
   */
  readonly formActionSource?: string;
}

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function redirectTarget(redirectUri: string): RedirectTarget {
  let url: URL;
  try {
    url = new URL(redirectUri);
  } catch {
    return { display: redirectUri, host: redirectUri };
  }
  const scheme = url.protocol;
  if (scheme === 'https:' || scheme === 'http:') {
    const loopback = LOOPBACK_HOSTS.has(url.hostname) || /^127\.\d+\.\d+\.\d+$/.test(url.hostname);
    // CSP host-source has no grammar for IPv6 literals; the scheme is the narrowest expression left.
    const formActionSource = url.hostname.startsWith('[') ? scheme : url.origin;
    return { display: loopback ? `${url.host} (this computer)` : url.host, host: url.hostname, formActionSource };
  }
  const named = url.host ? `${scheme}//${url.host}` : scheme;
  return {
    display: `${named} (an app on this computer)`,
    host: named,
    ...(BROWSER_UNSAFE_SCHEMES.has(scheme) ? {} : { formActionSource: scheme }),
  };
}
