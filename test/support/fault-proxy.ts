import { createServer, request as httpRequest, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { freePort, listenOnLoopback } from './ports.js';

/**
 * A small HTTP proxy of our own in front of a real provider (the test IdP), so tests can make the
 * provider misbehave the way real ones do without mocking it: each injected fault answers the next
 * matching request(s) instead of the provider; everything else is forwarded unchanged.
 */
export type Fault =
  /** Answer with this status (and body/headers) instead of the provider: 429, 503, 401 invalid_client... */
  | { readonly kind: 'status'; readonly status: number; readonly headers?: Readonly<Record<string, string>>; readonly body?: string | object }
  /** Accept the request and never answer (until the proxy stops): a provider that hangs. */
  | { readonly kind: 'hang' }
  /** Drop the connection without a response: a network failure. */
  | { readonly kind: 'reset' };

export interface FaultProxy {
  readonly port: number;
  /** http://127.0.0.1:<port> */
  readonly origin: string;
  /** Where requests are forwarded (an origin); can be set after start (the provider may need our port first). */
  setTarget(origin: string): void;
  /** The next `times` requests whose path (without query) ends with `pathSuffix` get `fault`. */
  inject(pathSuffix: string, fault: Fault, times?: number): void;
  /** Forget every injected fault not yet used. */
  clear(): void;
  /** Requests seen whose path ends with `pathSuffix` (faulted or forwarded). */
  hits(pathSuffix: string): number;
  /** Resolves once the client of a hung request whose path ends with `pathSuffix` has closed its connection. */
  hungUpOn(pathSuffix: string): Promise<void>;
  stop(): Promise<void>;
}

interface Rule {
  readonly suffix: string;
  readonly fault: Fault;
  remaining: number;
}

export async function startFaultProxy(options: { readonly target?: string; readonly port?: number } = {}): Promise<FaultProxy> {
  let target = options.target;
  const rules: Rule[] = [];
  const seen: string[] = [];
  const sockets = new Set<Socket>();
  // Paths of hung requests whose client gave up, and who waits to hear of it.
  const hungUp: string[] = [];
  const hangUpWaiters = new Set<() => void>();
  const clientGaveUp = (path: string) => {
    hungUp.push(path);
    for (const wake of hangUpWaiters) wake();
  };
  const port = options.port ?? (await freePort());
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://proxy.invalid').pathname;
    seen.push(path);
    const rule = rules.find((candidate) => candidate.remaining > 0 && path.endsWith(candidate.suffix));
    if (rule) {
      rule.remaining -= 1;
      // Only the client can end a hung request (until the proxy stops).
      if (rule.fault.kind === 'hang') res.once('close', () => clientGaveUp(path));
      applyFault(rule.fault, req, res);
      return;
    }
    if (!target) {
      res.writeHead(502, { 'content-type': 'text/plain' }).end('fault proxy has no target');
      return;
    }
    forward(target, req, res);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await listenOnLoopback(server, port);

  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    setTarget(origin) {
      target = origin;
    },
    inject(pathSuffix, fault, times = 1) {
      rules.push({ suffix: pathSuffix, fault, remaining: times });
    },
    clear() {
      rules.length = 0;
    },
    hits: (pathSuffix) => seen.filter((path) => path.endsWith(pathSuffix)).length,
    hungUpOn: (pathSuffix) =>
      new Promise<void>((resolve) => {
        const check = () => {
          if (!hungUp.some((path) => path.endsWith(pathSuffix))) return;
          hangUpWaiters.delete(check);
          resolve();
        };
        hangUpWaiters.add(check);
        check();
      }),
    stop: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      for (const socket of sockets) socket.destroy();
    }),
  };
}

function applyFault(fault: Fault, req: IncomingMessage, res: ServerResponse): void {
  // The request body is read (and dropped) so the client is not stuck sending it.
  req.resume();
  switch (fault.kind) {
    case 'hang':
      return;
    case 'reset':
      req.socket.destroy();
      return;
    case 'status': {
      const json = typeof fault.body === 'object';
      const body = fault.body === undefined ? '' : json ? JSON.stringify(fault.body) : String(fault.body);
      res.writeHead(fault.status, {
        'content-type': json ? 'application/json' : 'text/plain',
        'cache-control': 'no-store',
        ...fault.headers,
      });
      res.end(body);
      return;
    }
  }
}

function forward(target: string, req: IncomingMessage, res: ServerResponse): void {
  const destination = new URL(target);
  const upstream = httpRequest(
    {
      hostname: destination.hostname,
      port: destination.port,
      method: req.method,
      path: req.url,
      // Host stays the proxy's: the provider publishes URLs under the public (proxy) origin.
      headers: req.headers,
    },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on('error', () => {
    if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
    res.end('fault proxy could not reach its target');
  });
  req.pipe(upstream);
}
