import type { ServerResponse } from 'node:http';
import { consentPath, type ConsentRequest } from './consent-types.js';
import { redirectTarget } from './redirect-target.js';

const MAX_NAME_CHARS = 80;
const MAX_TEXT_CHARS = 200;
const MAX_SCOPES_SHOWN = 20;

/**
 * Headers of every page this module writes. No script runs, nothing loads, nothing frames it
 * (clickjacking an Approve button is the attack a consent page exists to stop), and the page is
 * never cached or leaks its URL. `formActionSource` adds the client's redirect target, see
 * RedirectTarget.formActionSource.
 */
export function pageHeaders(formActionSource?: string): Record<string, string> {
  const formAction = formActionSource ? `'self' ${formActionSource}` : "'self'";
  return {
    'content-type': 'text/html; charset=utf-8',
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; form-action ${formAction}; frame-ancestors 'none'; base-uri 'none'`,
    'x-frame-options': 'DENY',
    'cache-control': 'no-store',
    pragma: 'no-cache',
    'referrer-policy': 'no-referrer',
    'x-content-type-options': 'nosniff',
  };
}

export function sendHtml(res: ServerResponse, status: number, html: string, headers: Record<string, string> = {}, formActionSource?: string): void {
  res.writeHead(status, { ...pageHeaders(formActionSource), 'content-length': Buffer.byteLength(html), ...headers });
  res.end(html);
}

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * Client-supplied text made fit to show: control, zero-width and bidirectional-override characters
 * removed (they can make one name look like another), whitespace collapsed, cut at `max` characters.
 * The result still needs escapeHtml.
 */
export function displayText(value: string, max: number = MAX_TEXT_CHARS): string {
  const cleaned = value
    .replace(/[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u206f\ufeff\ufff9-\ufffb]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  const chars = Array.from(cleaned);
  return chars.length > max ? `${chars.slice(0, max - 1).join('')}…` : cleaned;
}

export interface ConsentPageView {
  readonly request: ConsentRequest;
  readonly slug: string;
  readonly issuer: string;
  readonly handle: string;
  readonly csrf: string;
  readonly rememberSeconds: number;
}

export function renderConsentPage(view: ConsentPageView): string {
  const { request } = view;
  const client = clientDisplayName(request);
  const target = redirectTarget(request.redirectUri);
  const endpoint = request.endpointName ? displayText(request.endpointName, MAX_NAME_CHARS) : '';
  const account = displayText(request.email || request.subject);
  const server = serverHost(view.issuer);

  const title = `Allow ${client} to use ${endpoint || request.endpointPath}?`;
  const warning = request.registeredClient
    ? `<p class="warning" role="note">This client registered itself with this server. Its name is chosen by the client and is not verified: check where it will send you.</p>`
    : '';
  const body = `<main aria-labelledby="consent-title">
<p class="server">${escapeHtml(server ? `${server} · MCP sign-in` : 'MCP sign-in')}</p>
<h1 id="consent-title">Allow <span class="name">${escapeHtml(client)}</span> to use this MCP endpoint?</h1>
<p>An MCP client is asking to act with your account. Approve only if you just started this sign-in from that client.</p>
${warning}<dl>
<dt>Client</dt>
<dd><span class="name">${escapeHtml(client)}</span><span class="detail">${escapeHtml(clientIdDisplay(request))}</span></dd>
<dt>Sends you back to</dt>
<dd><code>${escapeHtml(displayText(target.display))}</code></dd>
<dt>MCP endpoint</dt>
<dd>${endpoint ? `${escapeHtml(endpoint)} ` : ''}<code>${escapeHtml(displayText(request.endpointPath))}</code></dd>
<dt>Permissions</dt>
<dd>${renderScopes(request.scope)}</dd>
<dt>Signed in as</dt>
<dd>${escapeHtml(account)}</dd>
</dl>
<form method="post" action="${escapeHtml(consentPath(view.slug))}" aria-label="Approve or deny access">
<input type="hidden" name="consent" value="${escapeHtml(view.handle)}">
<input type="hidden" name="csrf" value="${escapeHtml(view.csrf)}">
<p class="note">${escapeHtml(rememberNote(request, view.rememberSeconds))}</p>
<div class="actions">
<button type="submit" name="decision" value="deny">Deny</button>
<button type="submit" name="decision" value="approve" class="primary">Approve</button>
</div>
</form>
</main>`;
  return page(title, body);
}

/** A page with only a heading and a sentence: refusals and outages. */
export function renderMessagePage(heading: string, message: string): string {
  return page(heading, `<main aria-labelledby="consent-title">
<h1 id="consent-title">${escapeHtml(heading)}</h1>
<p>${escapeHtml(message)}</p>
</main>`);
}

/** A whole page around `body`, in the language `lang` (a BCP 47 tag) and the bridge's look. */
export function page(title: string, body: string, lang = 'en'): string {
  return `<!doctype html>
<html lang="${escapeHtml(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>${escapeHtml(displayText(title))}</title>
<style>${STYLE}</style>
</head>
<body>
${body}
</body>
</html>
`;
}

function clientDisplayName(request: ConsentRequest): string {
  const named = request.clientName ? displayText(request.clientName, MAX_NAME_CHARS) : '';
  if (named) return named;
  try {
    return new URL(request.clientId).host || 'An unnamed client';
  } catch {
    return 'An unnamed client';
  }
}

/** For a CIMD client the id is the URL that vouches for it; a registered id means nothing to a user. */
function clientIdDisplay(request: ConsentRequest): string {
  if (request.registeredClient) return 'Registered itself with this server (name not verified)';
  return `Described by ${displayText(request.clientId)}`;
}

function renderScopes(scope: readonly string[]): string {
  if (scope.length === 0) return 'Use the endpoint\u2019s tools as you';
  const shown = scope.slice(0, MAX_SCOPES_SHOWN).map((item) => `<li><code>${escapeHtml(displayText(item, MAX_NAME_CHARS))}</code></li>`);
  if (scope.length > MAX_SCOPES_SHOWN) shown.push(`<li>and ${scope.length - MAX_SCOPES_SHOWN} more</li>`);
  return `<ul>${shown.join('')}</ul>`;
}

function rememberNote(request: ConsentRequest, rememberSeconds: number): string {
  if (request.registeredClient || rememberSeconds <= 0) return 'You will be asked again the next time this client signs in.';
  return `Your approval is remembered for ${duration(rememberSeconds)}; revoking the client\u2019s access withdraws it.`;
}

function duration(seconds: number): string {
  const units: ReadonlyArray<[number, string]> = [[86_400, 'day'], [3_600, 'hour'], [60, 'minute'], [1, 'second']];
  for (const [size, unit] of units) {
    if (seconds >= size) {
      const count = Math.floor(seconds / size);
      return `${count} ${unit}${count === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} seconds`;
}

function serverHost(issuer: string): string {
  try {
    return new URL(issuer).host;
  } catch {
    return '';
  }
}

const STYLE = `
:root{color-scheme:light dark;--fg:#1b1d21;--muted:#5b616b;--line:#d9dce1;--bg:#f5f6f8;--card:#fff;--accent:#1f5fbf;--warn:#8a4b00;--warnbg:#fff4e0;--onaccent:#fff}
@media (prefers-color-scheme:dark){:root{--fg:#e8eaed;--muted:#a5abb5;--line:#3a3f47;--bg:#16181c;--card:#202328;--accent:#6ea1ff;--warn:#ffc266;--warnbg:#3a2c12;--onaccent:#0b1a33}}
*{box-sizing:border-box}
body{margin:0;min-height:100vh;display:flex;align-items:center;justify-content:center;padding:1.5rem;background:var(--bg);color:var(--fg);font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
main{width:100%;max-width:32rem;background:var(--card);border:1px solid var(--line);border-radius:12px;padding:1.75rem}
h1{font-size:1.3rem;line-height:1.3;margin:.25rem 0 .75rem}
p{margin:.5rem 0}
.server,.detail,.note{color:var(--muted);font-size:.875rem}
.name{font-weight:600}
.detail{display:block}
.warning{background:var(--warnbg);color:var(--warn);border-radius:8px;padding:.6rem .8rem;font-size:.9rem}
dl{margin:1.25rem 0;border-top:1px solid var(--line)}
dt{font-size:.8rem;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin-top:.75rem}
dd{margin:.1rem 0 .75rem;overflow-wrap:anywhere}
ul{margin:0;padding-left:1.2rem}
code{font:.875rem ui-monospace,SFMono-Regular,Menlo,Consolas,monospace}
.actions{display:flex;gap:.75rem;justify-content:flex-end;margin-top:1rem}
button{font:inherit;font-weight:600;padding:.55rem 1.4rem;border-radius:8px;border:1px solid var(--line);background:transparent;color:var(--fg);cursor:pointer}
button.primary{background:var(--accent);border-color:var(--accent);color:var(--onaccent)}
button:focus-visible{outline:3px solid var(--accent);outline-offset:2px}
`.trim();
