import { lookup } from 'node:dns/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { isIP } from 'node:net';
import { isLoopbackHost } from '../access/loopback.js';
import { DEFAULTS } from '../core/defaults.js';
import { McpPaletteError, describeError } from '../core/errors.js';
import { sendJson } from './responses.js';
import { pathOf, runRoute, type MountOptions, type MountedRoute, type RouteHandler, type RouteSite } from './route-site.js';

export type { MountOptions, MountedRoute, RouteHandler, RouteSite } from './route-site.js';

export interface ListenerAddress {
  readonly port: number;
  readonly host: string;
}

/** Turns a bind host name into the address to listen on (the system resolver unless a test passes one). */
export type ResolveHost = (host: string) => Promise<string>;

const systemResolve: ResolveHost = async (host) => (await lookup(host)).address;

/**
 * One `node:http` server per port, shared by every route on it (the Node-RED mqtt-broker pattern:
 * opened by the first user, closed with the last). Paths are exact; two owners of one path on one
 * port are refused rather than silently shadowing each other.
 */
class SharedListener {
  readonly address: ListenerAddress;
  readonly routes = new Map<string, RouteHandler>();
  readonly server: Server;
  readonly ready: Promise<void>;

  constructor(address: ListenerAddress, resolveHost: ResolveHost) {
    this.address = address;
    this.server = createServer((req, res) => this.dispatch(req, res));
    this.ready = new Promise((resolve, reject) => {
      const onError = (error: NodeJS.ErrnoException) => {
        this.server.off('listening', onListening);
        reject(listenError(address, error));
      };
      const onListening = () => {
        this.server.off('error', onError);
        // From now on errors are per connection (accept failing with EMFILE, say); without a
        // listener Node would throw them and take the whole Node-RED process down.
        this.server.on('error', (error) => process.emitWarning(`MCP listener on port ${address.port}: ${error.message}`));
        resolve();
      };
      this.server.once('error', onError);
      this.server.once('listening', onListening);
      // Resolved here rather than by listen() so the address bound is the one checked afterwards.
      const host = address.host.startsWith('[') && address.host.endsWith(']') ? address.host.slice(1, -1) : address.host;
      (isIP(host) ? Promise.resolve(host) : resolveHost(host)).then(
        (bindAddress) => this.server.listen(address.port, bindAddress),
        (error: NodeJS.ErrnoException) => onError(error),
      );
    });
  }

  /** The address the server really listens on (after `ready`). */
  get boundAddress(): string | undefined {
    const info = this.server.address();
    return info && typeof info === 'object' ? info.address : undefined;
  }

  private dispatch(req: IncomingMessage, res: ServerResponse): void {
    const handler = this.routes.get(pathOf(req.url));
    if (!handler) {
      sendJson(res, 404, { error: 'not_found' });
      return;
    }
    runRoute(handler, req, res);
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      const force = setTimeout(() => this.server.closeAllConnections(), DEFAULTS.listenerCloseGraceMs);
      force.unref();
      this.server.close(() => {
        clearTimeout(force);
        resolve();
      });
      this.server.closeIdleConnections();
    });
  }
}

export class ListenerRegistry {
  private readonly listeners = new Map<number, SharedListener>();
  private readonly closing = new Map<number, Promise<void>>();
  private readonly resolveHost: ResolveHost;

  constructor(options: { readonly resolveHost?: ResolveHost } = {}) {
    this.resolveHost = options.resolveHost ?? systemResolve;
  }

  /**
   * Serves `handler` at `path` on the listener for `address.port`, opening it if needed.
   * Rejects with a McpPaletteError (`path_conflict`, `bind_mismatch`, `port_in_use`,
   * `listen_failed`, `local_bound_not_loopback`) instead of throwing from an event, so callers can
   * show it in node status.
   */
  async mount(address: ListenerAddress, path: string, handler: RouteHandler, options: MountOptions = {}): Promise<MountedRoute & { readonly address: ListenerAddress }> {
    // A listener still closing from the previous deploy holds the port for a moment.
    await this.closing.get(address.port);
    let listener = this.listeners.get(address.port);
    if (listener && listener.address.host !== address.host) {
      throw new McpPaletteError('bind_mismatch', `port ${address.port} is already bound to ${listener.address.host}`, {
        port: address.port,
        existing: listener.address.host,
      });
    }
    if (listener?.routes.has(path)) {
      throw new McpPaletteError('path_conflict', `path ${path} is already served on port ${address.port}`, {
        path,
        port: address.port,
      });
    }
    if (!listener) {
      listener = new SharedListener(address, this.resolveHost);
      this.listeners.set(address.port, listener);
    }
    // Until the bound address is known to be acceptable, the path is only reserved: nothing is served.
    const route = options.loopbackOnly ? notServed : handler;
    listener.routes.set(path, route);
    try {
      await listener.ready;
    } catch (error) {
      listener.routes.delete(path);
      if (this.listeners.get(address.port) === listener) this.listeners.delete(address.port);
      throw error;
    }
    const owned = listener;
    let mounted = true;
    const unmount = async () => {
      if (!mounted) return;
      mounted = false;
      const current = owned.routes.get(path);
      if (current === handler || current === route) owned.routes.delete(path);
      if (owned.routes.size > 0 || this.listeners.get(address.port) !== owned) return;
      this.listeners.delete(address.port);
      const closed = owned.close().finally(() => {
        if (this.closing.get(address.port) === closed) this.closing.delete(address.port);
      });
      this.closing.set(address.port, closed);
      await closed;
    };
    if (options.loopbackOnly) {
      const bound = owned.boundAddress;
      if (bound === undefined || !isLoopbackHost(bound)) {
        await unmount();
        throw new McpPaletteError('local_bound_not_loopback', `${address.host} is bound to ${bound ?? 'an unknown address'}, not a loopback address`, {
          host: address.host,
          address: bound ?? 'unknown',
        });
      }
      if (owned.routes.get(path) === route) owned.routes.set(path, handler);
    }
    return { address, path, unmount };
  }

  /** The listener for `address` as a route site (opened by its first mount, closed with its last). */
  site(address: ListenerAddress): RouteSite {
    return { key: `port:${address.port}`, port: address.port, mount: (path, handler, options) => this.mount(address, path, handler, options) };
  }

  /** The port actually bound (differs from the requested one only for port 0, used by tests). */
  boundPort(port: number): number | undefined {
    const info = this.listeners.get(port)?.server.address();
    return info && typeof info === 'object' ? info.port : undefined;
  }
}

/** Process-wide: Node-RED loads this module once, and one port can have only one server. */
export const listenerRegistry = new ListenerRegistry();

const notServed: RouteHandler = (_req, res) => sendJson(res, 404, { error: 'not_found' });

function listenError(address: ListenerAddress, error: NodeJS.ErrnoException): McpPaletteError {
  const where = `${address.host}:${address.port}`;
  if (error.code === 'EADDRINUSE') {
    return new McpPaletteError('port_in_use', `port ${address.port} is already in use`, { port: address.port });
  }
  return new McpPaletteError('listen_failed', `cannot listen on ${where}: ${describeError(error)}`, {
    address: where,
    reason: error.code ?? describeError(error),
  });
}
