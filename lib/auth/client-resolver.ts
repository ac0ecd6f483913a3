import type { RequestLog } from '../core/rate-limited-log.js';
import type { ClientMetadata } from './clients/client-metadata.js';
import { ClientMetadataError } from './clients/client-metadata-error.js';
import { ClientRejected, type ClientResolver, type KnownClient } from './clients/known-client.js';
import { fetchClientMetadata } from './clients/fetch-client-metadata.js';
import type { HostAllowList } from './clients/host-allow-list.js';
import { isLoopbackRedirectUri, redirectUriAllowed } from './clients/redirect-uri.js';
import { isRegisteredClientId, UnknownRegisteredClient, type RegisteredClientLookup } from './registration/registered-clients.js';

/**
 * Resolves a `client_id` to its metadata: a dynamically registered client from storage; an
 * admin-pinned document (air-gapped and VPN-only sites); otherwise the client's own HTTPS document,
 * fetched only from allow-listed hosts.
 */
export function createClientResolver(
  pinned: ReadonlyMap<string, ClientMetadata>,
  allowList: HostAllowList,
  registered: RegisteredClientLookup | undefined,
  /** Any client can present a document that is refused, once per sign-in attempt. */
  log: Pick<RequestLog, 'warn'>,
): ClientResolver {
  return {
    async resolve(clientId: string): Promise<KnownClient> {
      if (isRegisteredClientId(clientId)) {
        // Registration may be switched off later: its clients then stop working, as the admin intends.
        const metadata = registered ? await registered.find(clientId) : undefined;
        if (!metadata) throw new UnknownRegisteredClient();
        return {
          clientId,
          ...(metadata.clientName ? { clientName: metadata.clientName } : {}),
          registered: true,
          redirectUriAllowed: (redirectUri) => redirectUriAllowed(redirectUri, metadata),
          redirectTrusted: (redirectUri) => isLoopbackRedirectUri(redirectUri) || onAllowListedHttpsHost(redirectUri, allowList),
        };
      }
      let metadata = pinned.get(clientId);
      if (!metadata) {
        try {
          metadata = await fetchClientMetadata(clientId, { allowList });
        } catch (error) {
          if (error instanceof ClientMetadataError) {
            log.warn(`client_metadata_refused:${error.reason}`, `client metadata refused (${error.reason})${error.detail ? `: ${error.detail}` : ''}`);
            throw new ClientRejected(error.message);
          }
          throw error;
        }
      }
      const known = metadata;
      return {
        clientId: known.clientId,
        ...(known.clientName ? { clientName: known.clientName } : {}),
        redirectUriAllowed: (redirectUri) => redirectUriAllowed(redirectUri, known),
        redirectTrusted: () => true,
      };
    },
  };
}

function onAllowListedHttpsHost(redirectUri: string, allowList: HostAllowList): boolean {
  try {
    const url = new URL(redirectUri);
    return url.protocol === 'https:' && allowList.allows(url.hostname);
  } catch {
    return false;
  }
}
