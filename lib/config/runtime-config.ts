import { isIP } from 'node:net';
import { z } from 'zod';
import { DEFAULTS } from '../core/defaults.js';
import { McpPaletteError } from '../core/errors.js';
import { parseTrustedProxies } from '../http/client-address.js';
import { isValidEndpointPath } from '../mcp/endpoint-path.js';

/**
 * Where endpoints are served: `own` is a listener of this package's own (port, bind address);
 * `node-red` is Node-RED's own HTTP server (its httpNode routes), for hosts that expose one port.
 */
export type ServerMode = 'own' | 'node-red';

/** What the mcp-runtime node knows about Node-RED's HTTP server (from its settings). */
export interface NodeRedServer {
  /** httpNodeRoot; false when Node-RED serves no HTTP node routes at all. */
  readonly root: string | false;
  /** uiPort and uiHost, for the URLs shown to users; absent when the settings do not say. */
  readonly port: number | undefined;
  readonly host: string | undefined;
}

/** A validated mcp-runtime: where the listener binds and the address clients are given. */
export interface RuntimeSettings {
  readonly server: ServerMode;
  /** In `node-red` mode, Node-RED's port and address (only used to show URLs). */
  readonly port: number;
  readonly host: string;
  /**
   * Prefix of every path clients are given: httpNodeRoot without its trailing slash in `node-red`
   * mode ('' for /), always '' for an own listener.
   */
  readonly pathPrefix: string;
  /** Public origin (and optional path prefix) clients use, without a trailing slash; may be absent. */
  readonly baseUrl: string | undefined;
  /** Proxies (addresses or CIDR ranges) whose X-Forwarded-For names the client; empty: none. */
  readonly trustedProxies: readonly string[];
}

const HOST_NAME = /^(?=.{1,253}$)[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$/;

const runtimeSchema = z.object({
  // Editors save numbers as strings; flows written by hand may use numbers.
  port: z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)]).default(DEFAULTS.runtimePort)
    .pipe(z.number().int().min(1).max(65535)),
  host: z.string().trim().default(DEFAULTS.runtimeHost)
    .transform((host) => host === '' ? DEFAULTS.runtimeHost : host)
    .refine((host) => isIP(host) !== 0 || HOST_NAME.test(host)),
  baseUrl: z.string().trim().optional().transform((value) => (value ? value : undefined))
    .refine((value) => value === undefined || isBaseUrl(value)),
});

const FIELD_CODES: Record<string, string> = { port: 'invalid_port', host: 'invalid_host', baseUrl: 'invalid_base_url' };

/** Node-RED's default port, for URLs when settings.js does not name one. */
const NODE_RED_DEFAULT_PORT = 1880;

/** Where get_flow reads the Node-RED admin API; present only when all three pieces are configured. */
export interface AdminSettings {
  readonly port: number;
  readonly token: string;
  /** The one endpoint path that exposes get_flow. */
  readonly endpointPath: string;
}

/**
 * The runtime's admin-tool settings. `NODE_RED_ADMIN_API_TOKEN` (a fixed name, set by whoever runs
 * Node-RED) wins over the credential. Partial configuration simply leaves admin tools off.
 */
export function parseAdminSettings(
  config: Record<string, unknown>,
  credentials: { adminToken?: unknown } | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): AdminSettings | undefined {
  const rawPort = typeof config.adminPort === 'number' ? String(config.adminPort) : typeof config.adminPort === 'string' ? config.adminPort.trim() : '';
  const endpointPath = typeof config.adminPath === 'string' ? config.adminPath.trim() : '';
  const token = env.NODE_RED_ADMIN_API_TOKEN || (typeof credentials?.adminToken === 'string' ? credentials.adminToken : '');
  if (rawPort === '' || endpointPath === '' || token === '') return undefined;
  const port = Number(rawPort);
  if (!/^\d+$/.test(rawPort) || port < 1 || port > 65535) throw new McpPaletteError('invalid_admin_port', `invalid admin port ${rawPort}`);
  if (!isValidEndpointPath(endpointPath)) throw new McpPaletteError('invalid_admin_path', `invalid admin endpoint path ${endpointPath}`);
  return Object.freeze({ port, token, endpointPath });
}

export function parseRuntimeConfig(config: Record<string, unknown>, nodeRed?: NodeRedServer): RuntimeSettings {
  const server = parseServerMode(config.server);
  const parsed = runtimeSchema.safeParse({
    port: config.port === '' || config.port === null ? undefined : config.port,
    host: config.host ?? undefined,
    baseUrl: config.baseUrl ?? undefined,
  });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'port');
    throw new McpPaletteError(FIELD_CODES[field] ?? 'invalid_runtime', `invalid ${field}`, { field });
  }
  const { port, host, baseUrl } = parsed.data;
  // The editor saves a string; a hand-written flow may give a list.
  const rawProxies = Array.isArray(config.trustedProxies) ? config.trustedProxies.join(',') : config.trustedProxies;
  const proxies = parseTrustedProxies(typeof rawProxies === 'string' ? rawProxies : '');
  if (!proxies.ok) {
    throw new McpPaletteError('invalid_trusted_proxies', `invalid trusted proxy ${proxies.invalid}`, { field: 'trustedProxies', entry: proxies.invalid });
  }
  const common = { baseUrl: baseUrl?.replace(/\/+$/, ''), trustedProxies: Object.freeze([...proxies.entries]) };
  if (server === 'own') return Object.freeze({ server, port, host, pathPrefix: '', ...common });
  // Port and bind address of the form are kept in the flow but not used: Node-RED's server decides.
  if (!nodeRed) throw new McpPaletteError('node_red_server_unavailable', "Node-RED's HTTP server is not available to this runtime");
  if (nodeRed.root === false) throw new McpPaletteError('node_red_http_disabled', "Node-RED serves no HTTP node routes (httpNodeRoot is false)");
  const shownHost = nodeRed.host === undefined || nodeRed.host === '' || nodeRed.host === '0.0.0.0' || nodeRed.host === '::' ? 'localhost' : nodeRed.host;
  return Object.freeze({
    server,
    port: nodeRed.port ?? NODE_RED_DEFAULT_PORT,
    host: shownHost,
    pathPrefix: nodeRed.root.replace(/\/+$/, ''),
    ...common,
  });
}

function parseServerMode(value: unknown): ServerMode {
  // Flows from before the option have no field: they keep their own listener.
  if (value === undefined || value === null || value === '' || value === 'own') return 'own';
  if (value === 'node-red') return 'node-red';
  throw new McpPaletteError('invalid_server', `invalid server ${String(value)}`, { field: 'server' });
}

/** The URL a client is given for an endpoint path on this runtime. */
export function endpointUrl(runtime: RuntimeSettings, path: string): string {
  if (runtime.baseUrl) return `${runtime.baseUrl}${runtime.pathPrefix}${path}`;
  const host = runtime.host.includes(':') ? `[${runtime.host}]` : runtime.host;
  return `http://${host}:${runtime.port}${runtime.pathPrefix}${path}`;
}

function isBaseUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && !url.search && !url.hash && !url.username && !url.password;
  } catch {
    return false;
  }
}
