import type { IncomingMessage, ServerResponse } from 'node:http';
import { ConsentRefused, sendConsentRefusal, sendConsentUnavailable } from '../consent/consent-refused.js';
import type { BridgeContext } from './bridge-context.js';
import { issueCodeAndRedirect } from './issue-code.js';
import { redirectError, sendDeclinedPage } from './redirects.js';

/** POST /oauth/<slug>/consent: the user's answer on the consent page. */
export function createConsentHandler(ctx: BridgeContext) {
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    let outcome;
    try {
      outcome = await ctx.consent.complete(req, res);
    } catch (error) {
      if (error instanceof ConsentRefused) {
        ctx.audit({ event: 'oauth.sign_in', outcome: 'refused', reason: `consent_${error.reason}` });
        return sendConsentRefusal(res, error);
      }
      ctx.requestLog.error('consent_storage', 'consent could not be read: storage unavailable');
      return sendConsentUnavailable(res);
    }
    const finished = outcome.pending;
    if (outcome.decision === 'deny') {
      const { issued } = finished;
      ctx.audit({ event: 'oauth.sign_in', outcome: 'refused', reason: 'consent_denied', subject: issued.identity.subject, client: issued.client, endpoint: finished.endpointPath });
      // A client anyone could have registered gets no automatic redirect out of a Deny either.
      if (finished.redirectTrusted !== true) return sendDeclinedPage(res);
      return redirectError(res, issued.redirectUri, ctx.issuer, 'access_denied', 'Access to the MCP endpoint was not approved.', finished.clientState);
    }
    await issueCodeAndRedirect(ctx, res, finished);
  };
}
