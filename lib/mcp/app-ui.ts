import { McpPaletteError } from '../core/errors.js';
import { isPlainObject } from '../core/is-plain-object.js';
import { isFixedUri } from './content/uri-template.js';

// MCP Apps (SEP-1865, the `io.modelcontextprotocol/ui` extension, stable revision 2026-01-26): a
// `ui://` resource of HTML that a host renders in a sandboxed frame, with the content security it
// may have. Everything here is checked at deploy, so a read costs what any resource read costs.
// Tools (tool-definition.ts) and views (content/app-view.ts) both use it, so it imports neither.

export const UI_EXTENSION = 'io.modelcontextprotocol/ui';
/** The only view type the extension defines; hosts declare it in their extension settings. */
export const APP_VIEW_MIME_TYPE = 'text/html;profile=mcp-app';
/** The flat key the extension still lists next to `_meta.ui.resourceUri` (deprecated, read by older hosts). */
export const LEGACY_RESOURCE_URI_KEY = 'ui/resourceUri';
/** The browser features a view may ask for, as the extension names them. */
export const APP_PERMISSIONS = ['camera', 'microphone', 'geolocation', 'clipboardWrite'] as const;
export const CSP_FIELDS = ['connectDomains', 'resourceDomains', 'frameDomains', 'baseUriDomains'] as const;

type CspField = (typeof CSP_FIELDS)[number];
type Permission = (typeof APP_PERMISSIONS)[number];

/** What the mcp-app-view node stores in the flow file (strings and booleans as the editor saves them). */
export interface AppViewConfig {
  readonly resourceName?: unknown;
  readonly uri?: unknown;
  readonly title?: unknown;
  readonly description?: unknown;
  /** `static` (the HTML set in the editor) or `flow` (answered through mcp-resource-read). */
  readonly source?: unknown;
  readonly text?: unknown;
  readonly connectDomains?: unknown;
  readonly resourceDomains?: unknown;
  readonly frameDomains?: unknown;
  readonly baseUriDomains?: unknown;
  readonly camera?: unknown;
  readonly microphone?: unknown;
  readonly geolocation?: unknown;
  readonly clipboardWrite?: unknown;
  /** `true`, `false`, or empty: the host decides. */
  readonly prefersBorder?: unknown;
  readonly domain?: unknown;
  readonly endpoint?: unknown;
  readonly timeout?: unknown;
}

/** `_meta.ui` of a view resource, exactly as listed and read. */
export interface UiResourceMeta {
  readonly csp?: Partial<Record<CspField, readonly string[]>>;
  readonly permissions?: Partial<Record<Permission, Record<string, never>>>;
  readonly domain?: string;
  readonly prefersBorder?: boolean;
}

/**
 * An origin a CSP source list may name, and nothing more: a scheme of the web, a host (its first
 * label may be `*` for subdomains), an optional port. No path, quote, space, comma or semicolon
 * gets through, so a declared value can never widen the policy a host builds from it.
 */
const CSP_ORIGIN = /^(https|http|wss|ws):\/\/(\*\.)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(?::\d{1,5})?$/;
/** A host name, optionally as an https origin: the forms hosts document for a dedicated view origin. */
const VIEW_DOMAIN = /^(https:\/\/)?[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$/;
const MAX_ORIGINS = 32;
const MAX_ORIGIN_LENGTH = 253;

/** Why `text` is not an origin a view may declare, or undefined when it is one. */
export function checkCspOrigin(text: string): string | undefined {
  if (text.length > MAX_ORIGIN_LENGTH) return `is longer than ${MAX_ORIGIN_LENGTH} characters`;
  return CSP_ORIGIN.test(text) ? undefined : 'must be an origin such as https://api.example.com or https://*.example.com (no path, quotes or spaces)';
}

/** The URI field's check: a fixed `ui://` URI, as the extension requires of every view. */
export function checkViewUri(text: unknown): string | undefined {
  const uri = typeof text === 'string' ? text.trim() : '';
  if (uri === '') return 'is required';
  if (!uri.startsWith('ui://') || uri.length === 'ui://'.length) return 'must start with ui:// (for example ui://plant/chart)';
  if (uri.includes('{') || uri.includes('}')) return 'must be a fixed URI, not a template';
  return isFixedUri(uri) ? undefined : 'must be an absolute URI without spaces';
}

/** One list of origins as the editor saves it: separated by spaces, commas or new lines. */
export function splitOrigins(value: unknown): string[] {
  if (Array.isArray(value)) return value.map((item) => String(item).trim()).filter((item) => item !== '');
  if (typeof value !== 'string') return [];
  return value.split(/[\s,]+/).filter((item) => item !== '');
}

/** The node's `_meta.ui`: only what the editor set, so a view declares nothing it did not ask for. */
export function parseAppViewMeta(config: AppViewConfig): UiResourceMeta {
  const csp: Partial<Record<CspField, readonly string[]>> = {};
  for (const field of CSP_FIELDS) {
    const origins = splitOrigins(config[field]);
    if (origins.length > MAX_ORIGINS) throw invalidMeta(field, `${origins.length} origins`, `lists more than ${MAX_ORIGINS} origins`);
    for (const origin of origins) {
      const problem = checkCspOrigin(origin);
      if (problem) throw invalidMeta(field, origin.slice(0, 80), problem);
    }
    if (origins.length > 0) csp[field] = Object.freeze([...new Set(origins)]);
  }
  const permissions: Partial<Record<Permission, Record<string, never>>> = {};
  for (const name of APP_PERMISSIONS) if (config[name] === true || config[name] === 'true') permissions[name] = {};
  const border = config.prefersBorder;
  if (border !== undefined && border !== '' && border !== true && border !== false && border !== 'true' && border !== 'false') {
    throw invalidMeta('prefersBorder', String(border).slice(0, 20), 'must be true, false or unsaid');
  }
  const domain = typeof config.domain === 'string' ? config.domain.trim() : '';
  if (domain !== '' && (domain.length > MAX_ORIGIN_LENGTH || !VIEW_DOMAIN.test(domain))) {
    throw invalidMeta('domain', domain.slice(0, 80), 'must be a host name such as a904794854a047f6.claudemcpcontent.com (as the host documents it)');
  }
  return Object.freeze({
    ...(Object.keys(csp).length > 0 ? { csp } : {}),
    ...(Object.keys(permissions).length > 0 ? { permissions } : {}),
    ...(domain !== '' ? { domain } : {}),
    ...(border === true || border === 'true' ? { prefersBorder: true } : border === false || border === 'false' ? { prefersBorder: false } : {}),
  });
}

/** What the tool dialog saves about the view a tool shows and who may call it. */
export interface ToolViewConfig {
  readonly appView?: unknown;
  /** `model`, `app`, `both`, or empty (the extension's default: both). */
  readonly visibility?: unknown;
}

/**
 * A tool's `_meta` for the extension: `ui.resourceUri` (and the flat key older hosts read) and
 * `ui.visibility`; undefined for a tool that sets neither, so tools saved before this list as before.
 */
export function parseToolViewMeta(config: ToolViewConfig): Record<string, unknown> | undefined {
  const uri = typeof config.appView === 'string' ? config.appView.trim() : '';
  if (uri !== '') {
    const problem = checkViewUri(uri);
    if (problem) throw new McpPaletteError('invalid_app_view', `app view ${uri}: ${problem}`, { uri: uri.slice(0, 120), reason: problem });
  }
  const value = typeof config.visibility === 'string' ? config.visibility.trim() : '';
  const visibility = value === 'model' ? ['model'] : value === 'app' ? ['app'] : value === 'both' ? ['model', 'app'] : undefined;
  if (value !== '' && visibility === undefined) {
    throw new McpPaletteError('invalid_visibility', `invalid visibility ${value}`, { value: value.slice(0, 20) });
  }
  if (uri === '' && visibility === undefined) return undefined;
  return Object.freeze({
    ui: { ...(uri !== '' ? { resourceUri: uri } : {}), ...(visibility ? { visibility } : {}) },
    ...(uri !== '' ? { [LEGACY_RESOURCE_URI_KEY]: uri } : {}),
  });
}

/**
 * Whether the client will show views, from the extension settings it declared: true when they list
 * the view type, false when it declared capabilities without it, undefined when the request carries
 * no capabilities (a 2025-era call: only `initialize` declares them, and stateless serving keeps none).
 */
export function clientShowsViews(capabilities: Record<string, unknown> | undefined): boolean | undefined {
  if (capabilities === undefined) return undefined;
  const extensions = capabilities['extensions'];
  const settings = isPlainObject(extensions) ? extensions[UI_EXTENSION] : undefined;
  const types = isPlainObject(settings) ? settings['mimeTypes'] : undefined;
  return Array.isArray(types) && types.includes(APP_VIEW_MIME_TYPE);
}

function invalidMeta(field: string, value: string, reason: string): McpPaletteError {
  return new McpPaletteError('invalid_app_view_meta', `${field} ${value}: ${reason}`, { field, value, reason });
}
