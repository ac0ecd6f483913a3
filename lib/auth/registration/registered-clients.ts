import { silentLogger, type Logger } from '../../core/logger.js';
import type { Store } from '../../storage/store.js';
import type { ClientMetadata } from '../clients/client-metadata.js';
import { ClientRejected } from '../clients/known-client.js';
import { loadRegistration, registrationKey } from './registration-record.js';

export { isRegisteredClientId, REGISTERED_CLIENT_ID_PREFIX, touchRegistration } from './registration-record.js';

export interface RegisteredClientLookup {
  /**
   * The registration of `clientId` as client metadata, or undefined when this server never issued
   * it, it expired unused, or it belongs to another namespace. Every hit restarts the unused period.
   * Rejects with StorageUnavailableError when the store cannot be read (answer 503, not
   * `invalid_client`: a client told its id is unknown registers again, piling up records).
   */
  find(clientId: string): Promise<ClientMetadata | undefined>;
}

/**
 * Thrown by a resolver for a well-formed registered id that is not (or no longer) registered. The
 * authorize and token endpoints answer it with 401 `invalid_client`, on which clients (claude.ai,
 * VS Code after a restart) register again.
 */
export class UnknownRegisteredClient extends ClientRejected {
  constructor() {
    super('The client is not registered with this server, or its registration expired; register again.');
    this.name = 'UnknownRegisteredClient';
  }
}

/**
 * Reads registrations for the bridge's client resolver. The result has the ClientMetadata shape of
 * CIMD documents, so `redirectUriAllowed` applies unchanged: `applicationType` is `native` for any
 * client with a loopback or custom-scheme redirect URI, so a registered `http://127.0.0.1:33418/`
 * also matches other ports (RFC 8252 §7.3), and `web` (exact matching only) for all-https clients.
 */
export function createRegisteredClientLookup(
  store: Store,
  namespace: string,
  unusedSeconds: number,
  options: { readonly logger?: Logger } = {},
): RegisteredClientLookup {
  const logger = options.logger ?? silentLogger;
  return {
    async find(clientId) {
      const loaded = await loadRegistration(store, namespace, clientId);
      if (loaded === undefined) return undefined;
      try {
        // Exactly what was read goes back with a fresh TTL; a record that vanished meanwhile stays gone.
        await store.compareAndSet(registrationKey(namespace, clientId), loaded.stored, loaded.stored, unusedSeconds);
      } catch {
        // The read just worked; a missed refresh of the unused period must not fail a sign-in.
        logger.debug(`the unused period of registered client ${clientId} could not be restarted`);
      }
      const { record } = loaded;
      return Object.freeze({
        clientId: record.clientId,
        redirectUris: Object.freeze([...record.redirectUris]),
        ...(record.clientName !== undefined ? { clientName: record.clientName } : {}),
        applicationType: record.applicationType,
        grantTypes: Object.freeze([...record.grantTypes]),
        responseTypes: Object.freeze([...record.responseTypes]),
      });
    },
  };
}
