import { McpPaletteError } from '../core/errors.js';
import { GET_FLOW_LIMITS } from './limits.js';

export interface AdminClientOptions {
  readonly adminBaseUrl: string;
  readonly token: string;
  readonly timeoutMs?: number;
  readonly maxResponseBytes?: number;
  readonly fetchImpl?: typeof fetch;
}

/**
 * Read-only access to the two Node-RED admin routes get_flow needs. The class only knows how to
 * GET `/flow/<id>` and `/flow/global`: it cannot write and cannot ask for the `/flows` export.
 */
export class AdminClient {
  private readonly base: string;
  private readonly token: string;
  private readonly timeoutMs: number;
  private readonly maxBytes: number;
  private readonly fetchImpl: typeof fetch;

  constructor(options: AdminClientOptions) {
    this.base = options.adminBaseUrl.replace(/\/+$/, '');
    this.token = options.token;
    this.timeoutMs = options.timeoutMs ?? GET_FLOW_LIMITS.adminTimeoutMs;
    this.maxBytes = options.maxResponseBytes ?? GET_FLOW_LIMITS.maxResponseBytes;
    this.fetchImpl = options.fetchImpl ?? fetch;
  }

  /** One tab as Node-RED's `GET /flow/:id` returns it; a missing tab is `undefined`. */
  async readTab(id: string, signal: AbortSignal): Promise<unknown> {
    // `/flow/global` is a different document; a tab mode must never read it by accident.
    if (id === 'global') throw new McpPaletteError('get_flow_not_found', 'No tab has the id "global".');
    return await this.read(`/flow/${encodeURIComponent(id)}`, signal);
  }

  /** Global config nodes and subflow definitions (`GET /flow/global`). */
  readGlobal(signal: AbortSignal): Promise<unknown> {
    return this.read('/flow/global', signal);
  }

  private async read(path: string, callerSignal: AbortSignal): Promise<unknown> {
    const deadline = new AbortController();
    let timedOut = false;
    let tooLarge = false;
    const timer = setTimeout(() => {
      timedOut = true;
      deadline.abort();
    }, this.timeoutMs);
    const signal = AbortSignal.any([callerSignal, deadline.signal]);
    const fail = (error: unknown): never => {
      if (error instanceof McpPaletteError) throw error;
      if (tooLarge) throw tooLargeError(this.maxBytes);
      if (timedOut) {
        throw new McpPaletteError('get_flow_admin_timeout', `The Node-RED admin API did not answer ${path} within ${this.timeoutMs / 1000} s.`);
      }
      if (callerSignal.aborted) throw new McpPaletteError('get_flow_cancelled', 'The request was cancelled.');
      throw new McpPaletteError('get_flow_admin_failed', `The Node-RED admin API could not be reached (${networkReason(error)}).`);
    };
    try {
      const response = await this.fetchImpl(`${this.base}${path}`, {
        method: 'GET',
        headers: { authorization: `Bearer ${this.token}`, accept: 'application/json' },
        // A redirect would carry the token somewhere the runtime settings did not name.
        redirect: 'manual',
        signal,
      }).catch(fail);
      if (response.status === 404) {
        await response.body?.cancel().catch(() => undefined);
        return undefined;
      }
      if (!response.ok) {
        await response.body?.cancel().catch(() => undefined);
        throw statusError(response.status, path);
      }
      const declared = Number(response.headers.get('content-length'));
      if (Number.isFinite(declared) && declared > this.maxBytes) {
        tooLarge = true;
        deadline.abort();
        throw tooLargeError(this.maxBytes);
      }
      const text = await this.readCapped(response, () => {
        tooLarge = true;
        deadline.abort();
      }).catch(fail);
      try {
        return JSON.parse(text) as unknown;
      } catch {
        throw new McpPaletteError('get_flow_bad_response', `The Node-RED admin API answered ${path} with something other than JSON.`);
      }
    } finally {
      clearTimeout(timer);
    }
  }

  /** Streams the body and stops reading (and the connection) as soon as it passes the cap. */
  private async readCapped(response: Response, abort: () => void): Promise<string> {
    if (!response.body) return '';
    const reader = response.body.getReader();
    const chunks: Uint8Array[] = [];
    let total = 0;
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      total += value.byteLength;
      if (total > this.maxBytes) {
        abort();
        await reader.cancel().catch(() => undefined);
        throw tooLargeError(this.maxBytes);
      }
      chunks.push(value);
    }
    return Buffer.concat(chunks, total).toString('utf8');
  }
}

function statusError(status: number, path: string): McpPaletteError {
  if (status === 401 || status === 403) {
    return new McpPaletteError(
      'get_flow_admin_unauthorized',
      `The Node-RED admin API refused the configured Admin Token (HTTP ${status}); it needs the flows.read permission.`,
    );
  }
  return new McpPaletteError('get_flow_admin_failed', `The Node-RED admin API answered ${path} with HTTP ${status}.`);
}

function tooLargeError(maxBytes: number): McpPaletteError {
  return new McpPaletteError(
    'get_flow_admin_too_large',
    `The Node-RED admin API response is larger than ${Math.round(maxBytes / (1024 * 1024))} MiB; it was not read.`,
  );
}

/** The network code only (ECONNREFUSED, ENOTFOUND): fetch's own messages can echo request details. */
function networkReason(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | null)?.cause;
  if (cause && typeof cause.code === 'string') return cause.code;
  return error instanceof Error && error.name !== 'Error' ? error.name : 'network error';
}
