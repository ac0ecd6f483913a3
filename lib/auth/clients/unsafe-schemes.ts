/**
 * URL schemes (as `URL.protocol`, with the colon) that a browser executes, reads locally or shows
 * as source instead of navigating to a client: never acceptable as a redirect, from a metadata
 * document, a registration or a consent page. One list, so the three never disagree.
 */
export const BROWSER_UNSAFE_SCHEMES: ReadonlySet<string> = new Set([
  'javascript:',
  'data:',
  'vbscript:',
  'file:',
  'blob:',
  'about:',
  'filesystem:',
  'view-source:',
]);
