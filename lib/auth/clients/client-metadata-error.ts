import { McpPaletteError } from '../../core/errors.js';

/** Why a client metadata document (CIMD) was refused; stable, safe to branch on and to log. */
export type ClientMetadataErrorReason =
  | 'invalid_url'
  | 'host_not_allowed'
  | 'address_not_public'
  | 'fetch_failed'
  | 'redirect_refused'
  | 'bad_status'
  | 'not_json'
  | 'too_large'
  | 'timeout'
  | 'invalid_document'
  | 'client_id_mismatch';

/**
 * A refused client metadata document. `message` is written for the OAuth client (it can go into
 * `error_description` as is: short, ASCII, no addresses, no stack); `detail` is for the server log
 * only and may name resolved addresses or socket error codes.
 */
export class ClientMetadataError extends McpPaletteError {
  readonly reason: ClientMetadataErrorReason;
  readonly detail: string | undefined;

  constructor(reason: ClientMetadataErrorReason, message: string, detail?: string) {
    super(`client_metadata_${reason}`, message);
    this.name = 'ClientMetadataError';
    this.reason = reason;
    this.detail = detail;
  }
}
