import { McpPaletteError } from '../../core/errors.js';
import { parseClientIdUrl } from './client-id-url.js';
import { parseClientMetadataDocument, type ClientMetadata } from './client-metadata.js';
import { ClientMetadataError } from './client-metadata-error.js';

function invalidPinned(message: string, params: Record<string, string | number> = {}): McpPaletteError {
  return new McpPaletteError('invalid_pinned_clients', message, params);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null;
}

/**
 * Parses client metadata documents the admin pasted into the auth configuration: one document
 * object or an array of them. They are trusted as written (never fetched), but validated exactly
 * like fetched ones, each against its own `client_id`, which must be a canonical https URL.
 * Blank text yields an empty map; a malformed document or a repeated client_id throws.
 */
export function parsePinnedClients(text: string): Map<string, ClientMetadata> {
  const clients = new Map<string, ClientMetadata>();
  if (text.trim() === '') return clients;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw invalidPinned('pinned client metadata is not valid JSON');
  }
  const documents: unknown[] = Array.isArray(parsed) ? parsed : [parsed];
  documents.forEach((document, index) => {
    const position = index + 1;
    const clientId = isObject(document) ? document['client_id'] : undefined;
    try {
      parseClientIdUrl(clientId);
      const metadata = parseClientMetadataDocument(document, clientId as string);
      if (clients.has(metadata.clientId)) {
        throw invalidPinned(`pinned client ${position} repeats client_id ${metadata.clientId}`, {
          position,
          clientId: metadata.clientId,
        });
      }
      clients.set(metadata.clientId, metadata);
    } catch (error) {
      if (error instanceof ClientMetadataError) {
        throw invalidPinned(`pinned client ${position}: ${error.message}`, { position });
      }
      throw error;
    }
  });
  return clients;
}
