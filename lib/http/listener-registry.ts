import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { DEFAULTS } from '../core/defaults.js';
import { McpPaletteError, describeError } from '../core/errors.js';
import { sendJson } from './responses.js';

export type RouteHandler = (req: IncomingMessage, res: ServerResponse) => void | Promise<void>;

export interface ListenerAddress {
  readonly port: number;
  readonly host: string;
}

/** What a mount returns: the only way to take the route down again. */
export interface MountedRoute {
  readonly address: ListenerAddress;
  readonly path: string;
  unmount(): Promise<void>;
}

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

  constructor(address: ListenerAddress) {
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
      this.server.listen(address.port, address.host);
    });
  }

  private dispatch(req: IncomingMessage, res: ServerResponse): void {
    const handler = this.routes.get(pathOf(req.url));
    if (!handler) {
      sendJson(res, 404, { error: 'not_found' });
      return;
    }
    Promise.resolve()
      .then(() => handler(req, res))
      .catch(() => {
        // The handler owns its errors; this is the last guard, and it reveals nothing internal.
        if (!res.headersSent) sendJson(res, 500, { error: 'internal_error' });
        else res.destroy();
      });
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

  /**
   * Serves `handler` at `path` on the listener for `address.port`, opening it if needed.
   * Rejects with a McpPaletteError (`path_conflict`, `bind_mismatch`, `port_in_use`,
   * `listen_failed`) instead of throwing from an event, so callers can show it in node status.
   */
  async mount(address: ListenerAddress, path: string, handler: RouteHandler): Promise<MountedRoute> {
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
      listener = new SharedListener(address);
      this.listeners.set(address.port, listener);
    }
    listener.routes.set(path, handler);
    try {
      await listener.ready;
    } catch (error) {
      listener.routes.delete(path);
      if (this.listeners.get(address.port) === listener) this.listeners.delete(address.port);
      throw error;
    }
    const owned = listener;
    let mounted = true;
    return {
      address,
      path,
      unmount: async () => {
        if (!mounted) return;
        mounted = false;
        if (owned.routes.get(path) === handler) owned.routes.delete(path);
        if (owned.routes.size > 0 || this.listeners.get(address.port) !== owned) return;
        this.listeners.delete(address.port);
        const closed = owned.close().finally(() => {
          if (this.closing.get(address.port) === closed) this.closing.delete(address.port);
        });
        this.closing.set(address.port, closed);
        await closed;
      },
    };
  }

  /** The port actually bound (differs from the requested one only for port 0, used by tests). */
  boundPort(port: number): number | undefined {
    const info = this.listeners.get(port)?.server.address();
    return info && typeof info === 'object' ? info.port : undefined;
  }
}

/** Process-wide: Node-RED loads this module once, and one port can have only one server. */
export const listenerRegistry = new ListenerRegistry();

function pathOf(url: string | undefined): string {
  if (!url) return '/';
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}

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
