import type { HostMiddleware, HostServer } from '../../lib/http/host-routes.js';

/** The parts of an Express 4 or 5 router layer read here (they are not in Express's typings). */
interface RouterLayer {
  readonly handle?: unknown;
  readonly name?: string;
  readonly route?: { readonly path?: unknown; readonly methods?: Record<string, boolean> };
  readonly regexp?: { readonly fast_slash?: boolean };
  readonly slash?: boolean;
  match?(path: string): boolean;
}

export interface ExpressLikeApp {
  use(handler: HostMiddleware): unknown;
}

function stackOf(app: ExpressLikeApp): RouterLayer[] | undefined {
  // Express 4 keeps the router in `_router`, made with the first route (its `router` getter throws);
  // Express 5 in `router` (Node-RED 4 and 5).
  const holder = app as { _router?: { stack?: unknown }; router?: { stack?: unknown }; lazyrouter?: unknown };
  let stack: unknown;
  if (holder._router !== undefined) stack = holder._router.stack;
  else if (typeof holder.lazyrouter === 'function') return [];
  else stack = holder.router?.stack;
  return Array.isArray(stack) ? (stack as RouterLayer[]) : undefined;
}

/** A middleware mounted at the root passes everything on (our dispatcher, Node-RED's raw-body capture). */
function isRootMiddleware(layer: RouterLayer): boolean {
  return layer.regexp?.fast_slash === true || layer.slash === true;
}

function describeLayer(layer: RouterLayer): string | undefined {
  const route = layer.route;
  if (route) {
    const methods = Object.keys(route.methods ?? {}).filter((method) => route.methods?.[method]);
    // The CORS pre-flight route Node-RED adds for httpNodeCors (OPTIONS *) answers no real request.
    if (route.path === '*' && methods.every((method) => method === 'options')) return undefined;
    const verbs = methods.length === 0 || methods.includes('_all') ? 'ALL' : methods.map((method) => method.toUpperCase()).join(',');
    return `${verbs} ${String(route.path)}`;
  }
  if (isRootMiddleware(layer)) return undefined;
  return `middleware ${layer.name || 'anonymous'}`;
}

/**
 * Node-RED's `httpNode` Express app as the host of one-port mode. The dispatcher goes to the front
 * of the app's stack (as Node-RED's own raw-body capture does), so where a redeploy adds `http in`
 * routes never changes which answers an MCP path; paths are kept apart by the conflict check.
 */
export function nodeRedHttpServer(app: ExpressLikeApp, onInstalled: () => void): HostServer {
  return {
    install(dispatcher) {
      app.use(dispatcher);
      const stack = stackOf(app);
      const index = stack?.findIndex((layer) => layer.handle === dispatcher) ?? -1;
      if (stack && index > 0) stack.unshift(...stack.splice(index, 1));
      onInstalled();
    },
    routeAnswering(path) {
      const stack = stackOf(app);
      if (!stack) throw new Error('the router stack of httpNode is not readable');
      for (const layer of stack) {
        const described = describeLayer(layer);
        if (described === undefined || typeof layer.match !== 'function') continue;
        if (layer.match(path)) return described;
      }
      return undefined;
    },
  };
}
