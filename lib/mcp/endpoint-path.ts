/**
 * MCP endpoint paths: absolute, plain URL characters, no empty segments, and not under the
 * prefixes the OAuth bridge owns on the same listener.
 */
const PATH_PATTERN = /^\/[A-Za-z0-9\-._~/]*$/;
const RESERVED_PREFIXES = ['/.well-known', '/oauth'];

export function isValidEndpointPath(path: string): boolean {
  if (!PATH_PATTERN.test(path) || path.includes('//') || path.length > 256) return false;
  const segments = path.split('/');
  if (segments.includes('.') || segments.includes('..')) return false;
  return !RESERVED_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}
