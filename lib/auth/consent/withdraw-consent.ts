import { McpPaletteError } from '../../core/errors.js';
import type { Store } from '../../storage/store.js';
import type { AuditSink } from '../audit.js';
import { clientLabel } from '../client-label.js';
import { RememberedApprovals } from './remembered-approvals.js';

/** Bounds on what the admin sends: a subject and a client id are short identifiers, never documents. */
const MAX_SUBJECT_LENGTH = 1024;
const MAX_CLIENT_ID_LENGTH = 2048;

export interface ConsentWithdrawal {
  readonly subject: string;
  readonly clientId: string;
}

/**
 * Reads `{ subject, client_id }` (or `clientId`) from an admin request body. Throws McpPaletteError
 * `invalid_consent_withdrawal` naming the field that is missing or malformed.
 */
export function parseConsentWithdrawal(body: unknown): ConsentWithdrawal {
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const subject = fields.subject;
  const clientId = fields.client_id ?? fields.clientId;
  if (typeof subject !== 'string' || subject === '' || subject.length > MAX_SUBJECT_LENGTH) {
    throw new McpPaletteError('invalid_consent_withdrawal', 'subject must be the user\'s subject (1-1024 characters)', { field: 'subject' });
  }
  if (typeof clientId !== 'string' || clientId === '' || clientId.length > MAX_CLIENT_ID_LENGTH) {
    throw new McpPaletteError('invalid_consent_withdrawal', 'client_id must be the MCP client\'s id (1-2048 characters)', { field: 'client_id' });
  }
  return { subject, clientId };
}

/**
 * Withdraws the user's remembered approval of one client, for every endpoint of the configuration:
 * the next sign-in of that client asks again. Revoking tokens does not do this (clients revoke their
 * own tokens routinely); this is the user's or the admin's decision. Audited as `oauth.consent`.
 * Rejects with StorageUnavailableError when storage cannot be reached (nothing is then withdrawn).
 */
export async function withdrawConsent(store: Store, namespace: string, withdrawal: ConsentWithdrawal, audit: AuditSink): Promise<void> {
  await new RememberedApprovals(store, namespace, Date.now).forget(withdrawal.subject, withdrawal.clientId);
  audit({ event: 'oauth.consent', outcome: 'withdrawn', subject: withdrawal.subject, client: clientLabel(withdrawal.clientId) });
}
