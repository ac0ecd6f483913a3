import type { ServerCapabilities } from '@modelcontextprotocol/server';
import type { ContentCatalog } from './content/content-catalog.js';

/**
 * Change notifications need a stream to travel on: 2026-07-28 has `subscriptions/listen`; the 2025
 * revisions deliver them on a GET stream of a session, which stateless serving has neither of
 * (GET answers 405). So only the 2026-07-28 capabilities promise `listChanged` and `subscribe`.
 */
export function capabilitiesFor(content: ContentCatalog, modern: boolean): ServerCapabilities {
  const declared = content.capabilities;
  if (!modern) return Object.freeze({ tools: {}, logging: {}, ...declared });
  return Object.freeze({
    tools: { listChanged: true },
    logging: {},
    ...declared,
    ...(declared.resources ? { resources: { subscribe: true, listChanged: true } } : {}),
    ...(declared.prompts ? { prompts: { listChanged: true } } : {}),
  });
}
