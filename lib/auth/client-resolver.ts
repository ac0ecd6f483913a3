import type { Logger } from '../core/logger.js';
import { ClientRejected, type ClientResolver, type KnownClient } from './bridge/bridge-context.js';
import type { ClientMetadata } from './clients/client-metadata.js';
import { ClientMetadataError } from './clients/client-metadata-error.js';
import { fetchClientMetadata } from './clients/fetch-client-metadata.js';
import type { HostAllowList } from './clients/host-allow-list.js';
import { redirectUriAllowed } from './clients/redirect-uri.js';

/**
 * Resolves a `client_id` to its metadata: an admin-pinned document first (air-gapped and VPN-only
 * sites), otherwise the client's own HTTPS document, fetched only from allow-listed hosts.
 */
export function createClientResolver(pinned: ReadonlyMap<string, ClientMetadata>, allowList: HostAllowList, logger: Logger): ClientResolver {
  return {
    async resolve(clientId: string): Promise<KnownClient> {
      let metadata = pinned.get(clientId);
      if (!metadata) {
        try {
          metadata = await fetchClientMetadata(clientId, { allowList });
        } catch (error) {
          if (error instanceof ClientMetadataError) {
            logger.warn(`client metadata refused (${error.reason})${error.detail ? `: ${error.detail}` : ''}`);
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
      };
    },
  };
}
