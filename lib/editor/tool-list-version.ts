import { createHash } from 'node:crypto';
import type { ListToolsResult } from '@modelcontextprotocol/server';

/** One digest per tool listing object: a catalog is rebuilt on deploy, never changed in place. */
const versions = new WeakMap<ListToolsResult, string>();

/**
 * A short digest of what `tools/list` shows, so the editor's Try it reloads its tool list when a
 * deploy (from any editor, the admin API or a project pull) changed it, and keeps a half-filled form
 * when a deploy rebuilt the catalog with the same tools.
 */
export function toolListVersion(listing: ListToolsResult): string {
  let version = versions.get(listing);
  if (version === undefined) {
    version = createHash('sha256').update(JSON.stringify(listing)).digest('base64url').slice(0, 16);
    versions.set(listing, version);
  }
  return version;
}
