import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Logger } from '../../core/logger.js';
import type { RequestLog } from '../../core/rate-limited-log.js';
import { isStorageUnavailable, type Store, type StoreKey } from '../../storage/store.js';
import { constantTimeEqual, newOpaqueToken, sha256 } from '../secrets.js';
import { clearCookie, cookieName, readCookie, setCookie } from '../../http/cookies.js';
import { readConsentForm } from './consent-form.js';
import { renderConsentPage, sendHtml } from './consent-page.js';
import { ConsentRefused } from './consent-refused.js';
import { CONSENT_KINDS, CONSENT_TTL_SECONDS, type ConsentOutcome, type ConsentPolicy, type ConsentRequest } from './consent-types.js';
import { redirectTarget } from './redirect-target.js';
import { RememberedApprovals } from './remembered-approvals.js';

export interface ConsentContext {
  readonly store: Store;
  readonly namespace: string;
  readonly slug: string;
  /** The bridge's issuer (Base URL origin); named on the page as the server asking. */
  readonly issuer: string;
  readonly policy: ConsentPolicy;
  /** True when the issuer is HTTPS: the cookie gets `Secure` and the `__Host-` prefix. */
  readonly secureCookies: boolean;
  readonly logger: Logger;
  /** Where a refused answer that looks forged is reported (a browser can repeat it at will). */
  readonly requestLog?: RequestLog;
  /** Clock in milliseconds for remembered approvals' age; tests pass the MemoryStore's fake one. */
  readonly now?: () => number;
}

export interface Consent<P = unknown> {
  /**
   * True when no prompt is needed: a trusted CIMD client, or this user approved this client for
   * this endpoint, redirect host and (a superset of) these scopes within rememberSeconds.
   * Always false for registered clients. Rejects with StorageUnavailableError when storage is down.
   */
  alreadyApproved(request: ConsentRequest): Promise<boolean>;
  /**
   * Stores `pending` (JSON-serializable: what the caller needs to finish, e.g. the IssuedCode and
   * the client's state) for 300 s and writes the consent page (200 text/html) with its cookie.
   * Rejects with StorageUnavailableError, before writing anything, when storage is down.
   */
  prompt(res: ServerResponse, request: ConsentRequest, pending: P): Promise<void>;
  /**
   * The core of POST /oauth/<slug>/consent: reads the form, checks the CSRF token and the browser
   * cookie, takes the pending consent (single use) and clears its cookie. Rejects with ConsentRefused
   * (render with sendConsentRefusal) or StorageUnavailableError (sendConsentUnavailable). An approval
   * is remembered when the policy says so; a denial withdraws any remembered approval.
   */
  complete(req: IncomingMessage, res: ServerResponse): Promise<ConsentOutcome<P>>;
  /**
   * Withdraws every remembered approval of this client by this user: the admin's withdrawal route.
   * Token revocation by the client does not call it (the approval is the user's, not the client's).
   */
  forget(subject: string, clientId: string): Promise<void>;
}

/** Stored per pending consent, keyed by the handle's hash; only hashes of the two secrets. */
interface PendingConsent {
  readonly request: ConsentRequest;
  readonly pending: unknown;
  readonly csrf: string;
  readonly browser: string;
}

/**
 * The bridge asks each signed-in user before one upstream client's sign-in turns into a code for
 * some MCP client. Three values guard an answer: the handle (which consent), the CSRF token in the
 * form, and a random value in a SameSite=Strict cookie; only their hashes are stored, and a POST
 * must carry all three. The handle is taken before the secrets are compared, so a consent can be
 * answered once, right or wrong.
 */
export function createConsent<P = unknown>(ctx: ConsentContext): Consent<P> {
  const { store, namespace, slug, policy, secureCookies, logger, requestLog } = ctx;
  // Strict: the answer is a same-origin form POST, so a forged cross-site POST arrives without it.
  const cookieOptions = { sameSite: 'Strict', secure: secureCookies } as const;
  assertPolicy(policy);
  const approvals = new RememberedApprovals(store, namespace, ctx.now ?? Date.now);
  const pendingKey = (handle: string): StoreKey => ({ namespace, kind: CONSENT_KINDS.pending, id: sha256(handle) });

  return {
    async alreadyApproved(request) {
      if (request.registeredClient) return false;
      if (policy.trustedClientIds.has(request.clientId)) return true;
      if (policy.rememberSeconds <= 0) return false;
      return approvals.covers(request, policy.rememberSeconds);
    },

    async prompt(res, request, pending) {
      const handle = newOpaqueToken();
      const csrf = newOpaqueToken();
      const browser = newOpaqueToken();
      const record: PendingConsent = { request, pending, csrf: sha256(csrf), browser: sha256(browser) };
      await store.put(pendingKey(handle), JSON.stringify(record), CONSENT_TTL_SECONDS);
      setCookie(res, cookieName('consent', slug, handle, secureCookies), browser, cookieOptions, CONSENT_TTL_SECONDS);
      const html = renderConsentPage({ request, slug, issuer: ctx.issuer, handle, csrf, rememberSeconds: policy.rememberSeconds });
      sendHtml(res, 200, html, {}, redirectTarget(request.redirectUri).formActionSource);
    },

    async complete(req, res) {
      const form = await readConsentForm(req);
      const cookie = cookieName('consent', slug, form.handle, secureCookies);
      const browser = readCookie(req, cookie);
      // Checked before the take: a forged cross-site POST (never carrying a Strict cookie) must not
      // spend the consent the user is still looking at.
      if (!browser) throw refuse('cookie_missing');
      clearCookie(res, cookie, cookieOptions);

      const record = parsePending(await store.take(pendingKey(form.handle)));
      if (!record) throw refuse('unknown_consent');
      const tokenMatches = constantTimeEqual(sha256(form.csrf), record.csrf);
      const browserMatches = constantTimeEqual(sha256(browser), record.browser);
      if (!tokenMatches || !browserMatches) throw refuse('csrf');

      const { request } = record;
      if (form.decision === 'approve') {
        if (!request.registeredClient && policy.rememberSeconds > 0) await rememberQuietly(request);
      } else {
        await forgetQuietly(request.subject, request.clientId);
      }
      return { decision: form.decision, pending: record.pending as P, request };
    },

    async forget(subject, clientId) {
      await approvals.forget(subject, clientId);
    },
  };

  function refuse(reason: 'cookie_missing' | 'unknown_consent' | 'csrf'): ConsentRefused {
    const line = `consent answer refused (${reason})`;
    if (reason !== 'csrf') logger.debug(line);
    else if (requestLog) requestLog.warn('consent_csrf', line);
    else logger.warn(line);
    return new ConsentRefused(reason);
  }

  /** The answer is already decided and the consent spent: failing to remember only means asking again. */
  async function rememberQuietly(request: ConsentRequest): Promise<void> {
    try {
      if (!(await approvals.remember(request, policy.rememberSeconds))) logger.warn('consent approval not remembered: concurrent updates');
    } catch (error) {
      logger.warn(`consent approval not remembered: ${describe(error)}`);
    }
  }

  async function forgetQuietly(subject: string, clientId: string): Promise<void> {
    try {
      await approvals.forget(subject, clientId);
    } catch (error) {
      logger.warn(`remembered consent not withdrawn after a denial: ${describe(error)}`);
    }
  }
}

function parsePending(text: string | undefined): PendingConsent | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<PendingConsent>;
    if (typeof value.csrf !== 'string' || typeof value.browser !== 'string' || typeof value.request !== 'object' || value.request === null) return undefined;
    return value as PendingConsent;
  } catch {
    return undefined;
  }
}

function assertPolicy(policy: ConsentPolicy): void {
  if (!Number.isSafeInteger(policy.rememberSeconds) || policy.rememberSeconds < 0) {
    throw new Error('consent rememberSeconds must be a whole number of seconds >= 0');
  }
}

/** Storage errors carry only a reason token; anything else is summarized, never echoed. */
function describe(error: unknown): string {
  return isStorageUnavailable(error) ? error.message : 'storage error';
}
