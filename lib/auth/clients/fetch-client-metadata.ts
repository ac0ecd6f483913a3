import { promises as dns } from 'node:dns';
import type { ClientRequest, IncomingMessage } from 'node:http';
import { request as httpsRequest, type RequestOptions } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { isPublicAddress, type AddressPolicy } from './address-policy.js';
import { bareHostname, parseClientIdUrl } from './client-id-url.js';
import { parseClientMetadataDocument, type ClientMetadata } from './client-metadata.js';
import { ClientMetadataError } from './client-metadata-error.js';
import type { HostAllowList } from './host-allow-list.js';

export { parseClientMetadataDocument, type ClientMetadata } from './client-metadata.js';

export const DEFAULT_CLIENT_METADATA_TIMEOUT_MS = 5000;
export const DEFAULT_CLIENT_METADATA_MAX_BYTES = 8192;

export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

/** Resolves a host name to every address it has (the shape of `dns.promises.lookup(host, { all: true })`). */
export type ResolveHost = (hostname: string) => Promise<readonly ResolvedAddress[]>;

/** The subset of `https.request` the fetcher uses. */
export type HttpsRequest = (options: RequestOptions, callback: (response: IncomingMessage) => void) => ClientRequest;

export interface FetchClientMetadataOptions {
  readonly allowList: HostAllowList;
  /** Whole fetch, DNS to last byte. */
  readonly timeoutMs?: number;
  readonly maxBytes?: number;
  /** Test seam: replaces the system resolver (getaddrinfo). */
  readonly lookup?: ResolveHost;
  /** Test seam: replaces `https.request` (a test adds its own `ca`). */
  readonly request?: HttpsRequest;
  /**
   * Test seam only: which addresses may be contacted. Defaults to isPublicAddress; production
   * callers never pass it, so loopback and private addresses stay unreachable.
   */
  readonly addressPolicy?: AddressPolicy;
}

const USER_AGENT = 'node-red-mcp client-metadata-fetcher';

const systemResolve: ResolveHost = (hostname) => dns.lookup(hostname, { all: true });

function timeoutError(): ClientMetadataError {
  return new ClientMetadataError('timeout', 'fetching the client metadata document timed out');
}

function describeCause(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === undefined ? error.message : `${code}: ${error.message}`;
  }
  return String(error);
}

function fetchFailed(message: string, cause?: unknown): ClientMetadataError {
  return new ClientMetadataError('fetch_failed', message, cause === undefined ? undefined : describeCause(cause));
}

/** Whatever went wrong on the wire: a timeout if our deadline fired, else a generic fetch failure. */
function transportError(error: unknown, signal: AbortSignal): ClientMetadataError {
  if (error instanceof ClientMetadataError) return error;
  if (signal.aborted) return timeoutError();
  return fetchFailed('the client metadata document could not be fetched', error);
}

/** dns.lookup cannot be cancelled, so the deadline races it instead. */
function beforeDeadline<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(timeoutError());
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(timeoutError());
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}

async function resolveVetted(
  hostname: string,
  resolve: ResolveHost,
  policy: AddressPolicy,
  signal: AbortSignal,
): Promise<ResolvedAddress[]> {
  let answers: readonly ResolvedAddress[];
  try {
    answers = await beforeDeadline(resolve(hostname), signal);
  } catch (error) {
    if (error instanceof ClientMetadataError) throw error;
    throw fetchFailed('the client metadata host could not be resolved', error);
  }
  // The family comes from the address text, not from what the resolver claims.
  const addresses = answers.map(({ address }) => ({ address, family: isIP(address) }));
  if (addresses.length === 0) throw fetchFailed('the client metadata host could not be resolved');
  // One bad answer refuses the host: otherwise a name with a public and a private record would let
  // the connection (or a retry) land on the private one.
  const refused = addresses.filter(({ address, family }) => family === 0 || !policy(address));
  if (refused.length > 0) {
    throw new ClientMetadataError(
      'address_not_public',
      'the client metadata host does not resolve to public addresses only',
      `${hostname} resolved to ${refused.map(({ address }) => address).join(', ')}`,
    );
  }
  return addresses;
}

function familyNumber(family: number | 'IPv4' | 'IPv6' | undefined): 0 | 4 | 6 {
  if (family === 4 || family === 'IPv4') return 4;
  if (family === 6 || family === 'IPv6') return 6;
  return 0;
}

/**
 * A socket lookup that answers only from addresses already vetted, so the connection cannot be
 * steered elsewhere by a second DNS answer (rebinding) between the check and the connect.
 */
function pinnedLookup(hostname: string, addresses: readonly ResolvedAddress[]): LookupFunction {
  return (requested, options, callback) => {
    const family = familyNumber(options.family);
    const candidates = addresses.filter((entry) => family === 0 || entry.family === family);
    const first = candidates[0];
    if (requested !== hostname || first === undefined) {
      const error: NodeJS.ErrnoException = new Error(`no vetted address for ${requested}`);
      error.code = 'ENOTFOUND';
      callback(error, '', undefined);
      return;
    }
    if (options.all === true) callback(null, candidates.map((entry) => ({ ...entry })));
    else callback(null, first.address, first.family);
  };
}

function isJsonMediaType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [mediaType = '', ...parameters] = contentType.split(';').map((part) => part.trim().toLowerCase());
  const structuredJson = mediaType.startsWith('application/') && mediaType.endsWith('+json');
  if (mediaType !== 'application/json' && !structuredJson) return false;
  // JSON is UTF-8 (RFC 8259 section 8.1); any other declared charset would be decoded wrongly.
  const charset = parameters.find((parameter) => parameter.startsWith('charset='));
  return charset === undefined || /^charset="?utf-?8"?$/.test(charset);
}

function download(
  request: HttpsRequest,
  options: RequestOptions,
  maxBytes: number,
  signal: AbortSignal,
): Promise<Buffer> {
  return new Promise<Buffer>((resolve, reject) => {
    // Settling is first-wins: later socket errors from our own destroy() are ignored.
    const req = request({ ...options, signal }, (res) => {
      const fail = (error: ClientMetadataError): void => {
        reject(error);
        req.destroy();
      };
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) {
        const message = 'the client metadata URL redirects; redirects are not followed';
        return fail(new ClientMetadataError('redirect_refused', message));
      }
      if (status !== 200) {
        const message = `the client metadata URL answered HTTP ${status}, expected 200`;
        return fail(new ClientMetadataError('bad_status', message));
      }
      if (!isJsonMediaType(res.headers['content-type'])) {
        return fail(new ClientMetadataError('not_json', 'the client metadata document is not served as JSON'));
      }
      const encoding = res.headers['content-encoding'];
      if (encoding !== undefined && encoding.toLowerCase() !== 'identity') {
        return fail(fetchFailed('the client metadata document uses an unsupported content encoding'));
      }
      const tooLarge = (): ClientMetadataError =>
        new ClientMetadataError('too_large', `the client metadata document exceeds ${maxBytes} bytes`);
      if (Number(res.headers['content-length'] ?? 0) > maxBytes) return fail(tooLarge());

      const chunks: Buffer[] = [];
      let received = 0;
      let complete = false;
      res.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received > maxBytes) fail(tooLarge());
        else chunks.push(chunk);
      });
      res.on('end', () => {
        complete = true;
        resolve(Buffer.concat(chunks, received));
      });
      res.on('error', (error) => fail(transportError(error, signal)));
      res.on('close', () => {
        if (!complete) fail(transportError(new Error('response closed early'), signal));
      });
    });
    req.on('error', (error) => reject(transportError(error, signal)));
    req.end();
  });
}

function decodeJson(body: Buffer): unknown {
  try {
    return JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(body));
  } catch {
    throw new ClientMetadataError('not_json', 'the client metadata document is not valid JSON');
  }
}

/**
 * Fetches and validates the client metadata document a URL-shaped `client_id` points at.
 *
 * Before any traffic: the URL must be canonical https without credentials or fragment, a literal IP
 * host must be public, and the host must be on the allow-list. Then every resolved address must be
 * public, and the connection goes only to those addresses (TLS still verifies the host name). No
 * redirects; only 200 with a JSON media type; at most `maxBytes` (8 KiB); `timeoutMs` (5 s) for the
 * whole exchange. Every refusal is a ClientMetadataError whose message suits `error_description`.
 */
export async function fetchClientMetadata(
  url: string,
  options: FetchClientMetadataOptions,
): Promise<ClientMetadata> {
  const target = parseClientIdUrl(url);
  const policy = options.addressPolicy ?? isPublicAddress;
  const hostname = bareHostname(target);
  const literal = isIP(hostname) !== 0;
  if (literal && !policy(hostname)) {
    throw new ClientMetadataError('address_not_public', 'the client metadata host is not a public address', hostname);
  }
  if (!options.allowList.allows(hostname)) {
    throw new ClientMetadataError('host_not_allowed', 'the client metadata host is not on the allow-list', hostname);
  }

  const timeoutMs = options.timeoutMs ?? DEFAULT_CLIENT_METADATA_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_CLIENT_METADATA_MAX_BYTES;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  try {
    const requestOptions: RequestOptions = {
      hostname,
      port: target.port === '' ? 443 : Number(target.port),
      path: `${target.pathname}${target.search}`,
      method: 'GET',
      headers: { accept: 'application/json', 'accept-encoding': 'identity', 'user-agent': USER_AGENT },
      // A fresh agent per fetch: no pooled socket from another fetch (or another address) is reused.
      agent: false,
    };
    if (!literal) {
      const resolve = options.lookup ?? systemResolve;
      const addresses = await resolveVetted(hostname, resolve, policy, controller.signal);
      requestOptions.lookup = pinnedLookup(hostname, addresses);
    }
    const body = await download(options.request ?? httpsRequest, requestOptions, maxBytes, controller.signal);
    return parseClientMetadataDocument(decodeJson(body), url);
  } catch (error) {
    // Anything unexpected (a synchronous throw from the request function, say) still leaves as a
    // ClientMetadataError, so the caller has one type to render.
    throw transportError(error, controller.signal);
  } finally {
    clearTimeout(timer);
  }
}
