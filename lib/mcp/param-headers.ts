import type { IncomingHttpHeaders } from 'node:http';

/**
 * `Mcp-Param-*` headers (protocol revision 2026-07-28, SEP-2243): a tool's input schema may mark a
 * primitive argument with `"x-mcp-header": "Region"`; a client then repeats that argument's value
 * in an `Mcp-Param-Region` header so proxies and gateways can route on it without reading the body.
 * The server must refuse a call whose header is missing or disagrees with the body, with 400 and
 * JSON-RPC -32020 (HeaderMismatch).
 *
 * The official SDK (@modelcontextprotocol/server 2.4) does this only for tools registered on its
 * high-level `McpServer`; the palette answers tools from its own catalog on the low-level `Server`,
 * so the same rules are kept here: the declaration constraints of the SDK's
 * `scanXMcpHeaderDeclarations`, and the comparison, error code, message and `data.mismatch` of its
 * `validateMcpParamHeaders` (neither is exported by the SDK).
 */

/** One argument a client must mirror in a header: where it sits in the arguments, and the header. */
export interface ParamHeaderDeclaration {
  readonly path: readonly string[];
  /** As declared (`Region`); the header sent is `Mcp-Param-Region`. */
  readonly headerName: string;
  /** The same name lower-cased, as Node.js keys incoming headers. */
  readonly headerKey: string;
  readonly type: 'string' | 'integer' | 'boolean';
}

export type ParamHeaderScan =
  | { readonly valid: true; readonly declarations: readonly ParamHeaderDeclaration[] }
  | { readonly valid: false; readonly reason: string };

export interface ParamHeaderMismatch {
  readonly httpStatus: 400;
  readonly code: typeof HEADER_MISMATCH;
  readonly message: string;
  readonly data: { readonly mismatch: { readonly header: string; readonly body: string } };
}

/** JSON-RPC code of SEP-2243's HeaderMismatch (the SDK's HEADER_MISMATCH_ERROR_CODE). */
export const HEADER_MISMATCH = -32020;
export const PARAM_HEADER_PREFIX = 'Mcp-Param-';
const X_MCP_HEADER = 'x-mcp-header';
const RFC9110_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const PERMITTED_TYPES = new Set(['string', 'integer', 'boolean']);
/** Keywords whose subschemas are not reachable through a chain of `properties` (spec: no header there). */
const UNREACHABLE_KEYWORDS = [
  'items', 'prefixItems', 'contains', 'additionalProperties', 'unevaluatedProperties', 'unevaluatedItems', 'propertyNames',
  'patternProperties', 'dependentSchemas', 'oneOf', 'anyOf', 'allOf', 'not', 'if', 'then', 'else', '$defs', 'definitions',
] as const;
const NAME_TO_SCHEMA_KEYWORDS = new Set(['patternProperties', 'dependentSchemas', '$defs', 'definitions']);
const BASE64_PREFIX = '=?base64?';
const BASE64_SUFFIX = '?=';
const BASE64_CANONICAL = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const CANONICAL_DECIMAL = /^-?\d+(\.\d+)?$/;

/**
 * Finds every `x-mcp-header` declaration of an input schema, or the first rule it breaks: only on
 * primitive properties (string, integer, boolean) reachable through `properties` alone, a non-empty
 * RFC 9110 token, unique regardless of case. Run once per deploy.
 */
export function scanParamHeaders(inputSchema: Record<string, unknown>): ParamHeaderScan {
  const declarations: ParamHeaderDeclaration[] = [];
  const seen = new Map<string, string>();
  const visit = (node: unknown, path: string[], reachable: boolean): string | undefined => {
    if (node === null || typeof node !== 'object') return undefined;
    const schema = node as Record<string, unknown>;
    if (X_MCP_HEADER in schema) {
      if (!reachable || path.length === 0) {
        return `${pathName(path)}: x-mcp-header is only permitted on properties reached through "properties" alone (not under items, additionalProperties, oneOf/anyOf/allOf/not, if/then/else, $defs or at the root)`;
      }
      const name = schema[X_MCP_HEADER];
      if (typeof name !== 'string' || name.length === 0) return `${pathName(path)}: x-mcp-header must be a non-empty string`;
      if (!RFC9110_TOKEN.test(name)) return `${pathName(path)}: x-mcp-header "${name}" is not a valid HTTP header name (no spaces, control characters or delimiters)`;
      const type = typeof schema['type'] === 'string' ? schema['type'] : undefined;
      if (type === undefined || !PERMITTED_TYPES.has(type)) {
        return `${pathName(path)}: x-mcp-header is only permitted on string, integer or boolean properties, not ${type ?? 'an untyped one'}`;
      }
      const prior = seen.get(name.toLowerCase());
      if (prior !== undefined) return `x-mcp-header "${name}" is declared twice (also as "${prior}"; header names ignore case)`;
      seen.set(name.toLowerCase(), name);
      declarations.push({ path, headerName: name, headerKey: `${PARAM_HEADER_PREFIX}${name}`.toLowerCase(), type: type as ParamHeaderDeclaration['type'] });
    }
    const properties = schema['properties'];
    if (properties !== null && typeof properties === 'object') {
      for (const [key, child] of Object.entries(properties)) {
        const fault = visit(child, [...path, key], reachable);
        if (fault !== undefined) return fault;
      }
    }
    for (const keyword of UNREACHABLE_KEYWORDS) {
      const sub = schema[keyword];
      if (sub === undefined) continue;
      const branches = Array.isArray(sub) ? sub : sub !== null && typeof sub === 'object' && NAME_TO_SCHEMA_KEYWORDS.has(keyword) ? Object.values(sub) : [sub];
      for (const branch of branches) {
        const fault = visit(branch, [...path, `<${keyword}>`], false);
        if (fault !== undefined) return fault;
      }
    }
    return undefined;
  };
  const fault = visit(inputSchema, [], true);
  return fault === undefined ? { valid: true, declarations } : { valid: false, reason: fault };
}

/**
 * Compares each declared argument of one call with its header. An argument that is absent or null
 * needs no header (one sent anyway is ignored); a present one needs a header that decodes (plain, or
 * the `=?base64?…?=` form) to the same value, numbers compared as numbers.
 */
export function checkParamHeaders(
  declarations: readonly ParamHeaderDeclaration[],
  args: unknown,
  headers: IncomingHttpHeaders,
): ParamHeaderMismatch | undefined {
  for (const declaration of declarations) {
    const header = `${PARAM_HEADER_PREFIX}${declaration.headerName}`;
    const bodyValue = valueAt(args, declaration.path);
    if (bodyValue === undefined || bodyValue === null) continue;
    const bodyText = primitiveText(bodyValue);
    if (bodyText === undefined) continue;
    const raw = headers[declaration.headerKey];
    const headerValue = Array.isArray(raw) ? raw.join(', ') : raw;
    if (headerValue === undefined) {
      return mismatch(header, `the body carries ${pathName(declaration.path)}=${JSON.stringify(bodyValue)} but the ${header} header is absent`);
    }
    const decoded = decodeHeaderValue(headerValue);
    if (decoded === undefined) return mismatch(header, `the ${header} header carries an invalid Base64 sentinel value`);
    const numeric = declaration.type === 'integer' && CANONICAL_DECIMAL.test(decoded) && typeof bodyValue === 'number';
    if (!(numeric ? Number(decoded) === bodyValue : decoded === bodyText)) {
      return mismatch(header, `the ${header} header decodes to ${JSON.stringify(decoded)} but the body carries ${pathName(declaration.path)}=${JSON.stringify(bodyValue)}`);
    }
  }
  return undefined;
}

function mismatch(header: string, body: string): ParamHeaderMismatch {
  return { httpStatus: 400, code: HEADER_MISMATCH, message: `Bad Request: the request headers and body disagree: ${body}`, data: { mismatch: { header, body } } };
}

/** The spec's conversion of an argument to header text; `undefined` for values no header can carry. */
function primitiveText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value))) return undefined;
    return String(value);
  }
  return undefined;
}

/** The header's value: as sent, or the UTF-8 text of its Base64 form; `undefined` if that form is broken. */
function decodeHeaderValue(value: string): string | undefined {
  if (!(value.startsWith(BASE64_PREFIX) && value.endsWith(BASE64_SUFFIX))) return value;
  const base64 = value.slice(BASE64_PREFIX.length, value.length - BASE64_SUFFIX.length);
  if (!BASE64_CANONICAL.test(base64)) return undefined;
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(Buffer.from(base64, 'base64'));
  } catch {
    return undefined;
  }
}

function valueAt(root: unknown, path: readonly string[]): unknown {
  let node = root;
  for (const key of path) {
    if (node === null || typeof node !== 'object') return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

function pathName(path: readonly string[]): string {
  return path.length === 0 ? '<root>' : path.join('.');
}
