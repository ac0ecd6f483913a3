import type { IncomingMessage, ServerResponse } from 'node:http';
import { displayText, escapeHtml, page, sendHtml } from '../consent/consent-page.js';
import type { OAuthFailure } from '../oauth-error.js';
import { pickPageLanguage, type ClientProblem, type SignInPageCatalog } from './page-texts.js';

/**
 * The authorization endpoint could not verify the client or its redirect URI. The answer goes to the
 * person in the browser, never to the redirect URI (RFC 6749 §4.1.2.1: an unverified redirect URI
 * must not be used), so it is a page in their language: what happened, what to do, and the OAuth
 * error with its description for whoever runs the server. Status and headers are the failure's.
 */
export function sendClientProblemPage(
  req: IncomingMessage,
  res: ServerResponse,
  catalog: SignInPageCatalog,
  problem: ClientProblem,
  failure: OAuthFailure,
  clientId?: string,
): void {
  const language = pickPageLanguage(req.headers['accept-language']);
  const texts = catalog[language];
  const { heading, message } = texts.problems[problem];
  const client = clientId
    ? `<p class="note">${escapeHtml(texts.clientLabel)} <code>${escapeHtml(displayText(clientId))}</code></p>\n`
    : '';
  const body = `<main aria-labelledby="consent-title">
<h1 id="consent-title">${escapeHtml(heading)}</h1>
<p>${escapeHtml(message)}</p>
<p>${escapeHtml(texts.notSent)}</p>
${client}<p class="note">${escapeHtml(texts.detailsLabel)} <code>${escapeHtml(failure.error)}</code>: ${escapeHtml(displayText(failure.description))}</p>
</main>`;
  sendHtml(res, failure.status, page(heading, body, language), { ...failure.headers, 'content-language': language, vary: 'accept-language' });
}
