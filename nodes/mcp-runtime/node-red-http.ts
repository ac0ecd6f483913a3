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
  /** The app this one is mounted on (Express sets it); absent for the server's own app. */
  readonly parent?: ExpressLikeApp;
}

function rootAppOf(app: ExpressLikeApp): ExpressLikeApp {
  return app.parent ? rootAppOf(app.parent) : app;
}

function moveToFront(app: ExpressLikeApp, handler: HostMiddleware): void {
  const stack = stackOf(app);
  const index = stack?.findIndex((layer) => layer.handle === handler) ?? -1;
  if (stack && index > 0) stack.unshift(...stack.splice(index, 1));
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
 * of the app's stack, and the body holder to the front of the server's root app (as Node-RED's own
 * raw-body capture for `http in` does), so where a redeploy adds `http in` routes never changes
 * which answers an MCP path; paths are kept apart by the conflict check.
 */
/**
 * First path segments of the editor and admin API, whose routes sit in sub-apps whose stacks
 * Express 4 does not expose (the admin app's own stack is searched as well).
 */
const EDITOR_SEGMENTS = new Set(['auth', 'context', 'core', 'credentials', 'diagnostics', 'flow', 'flows', 'icons', 'library', 'locales', 'nodes', 'plugins', 'projects', 'red', 'settings', 'theme', 'types', 'vendor']);

/** Node-RED's editor and admin API when they share the server with httpNode: it runs first. */
export interface EditorApp {
  readonly app: ExpressLikeApp;
  /** httpAdminRoot. */
  readonly root: string;
}

function searchStack(stack: RouterLayer[], path: string): string | undefined {
  for (const layer of stack) {
    const described = describeLayer(layer);
    if (described === undefined || typeof layer.match !== 'function') continue;
    if (layer.match(path)) return described;
  }
  return undefined;
}

/** The editor's route answering `absolutePath` (httpNodeRoot included), when the editor is in front of it. */
function editorRouteAnswering(editor: EditorApp, absolutePath: string): string | undefined {
  const prefix = editor.root.replace(/\/+$/, '');
  if (prefix !== '' && !absolutePath.startsWith(`${prefix}/`)) return undefined;
  const path = absolutePath.slice(prefix.length);
  const segment = path.split('/')[1] ?? '';
  if (EDITOR_SEGMENTS.has(segment.toLowerCase())) return `the editor's /${segment} routes`;
  const stack = stackOf(editor.app);
  const found = stack ? searchStack(stack, path) : undefined;
  return found === undefined ? undefined : `the editor's ${found}`;
}

export function nodeRedHttpServer(app: ExpressLikeApp, root: string, onInstalled: () => void, editor?: EditorApp): HostServer {
  const nodePrefix = root.replace(/\/+$/, '');
  return {
    root,
    install(dispatcher, holdBodies) {
      app.use(dispatcher);
      moveToFront(app, dispatcher);
      // The admin app, mounted before httpNode on the same root, parses JSON and form bodies of
      // every request; the bodies of MCP routes are read before it, on the server's own app.
      const rootApp = rootAppOf(app);
      rootApp.use(holdBodies);
      moveToFront(rootApp, holdBodies);
      onInstalled();
    },
    routeAnswering(path) {
      const stack = stackOf(app);
      if (!stack) throw new Error('the router stack of httpNode is not readable');
      return (editor ? editorRouteAnswering(editor, `${nodePrefix}${path}`) : undefined) ?? searchStack(stack, path);
    },
  };
}
