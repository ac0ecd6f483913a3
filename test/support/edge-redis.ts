import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './node-red-process.js';

/**
 * The Redis ACL users of docs/edge-relay.md for a test's key prefix: an edge's user may only
 * publish and subscribe on its own site's channels; the hub's user is read from the docs, so a
 * suite that runs on it proves the recipe there is enough.
 */
export function edgeAclUser(site: string, password: string, prefix: string): string {
  return `${site} on >${password} resetchannels &${prefix}:edge:${site}:* resetkeys -@all +publish +subscribe +unsubscribe`;
}

/** The hub user of docs/edge-relay.md with its keys and channels under `prefix`, and its password. */
export function hubAclUser(prefix: string): { readonly line: string; readonly password: string } {
  const page = readFileSync(join(repoRoot, 'docs', 'edge-relay.md'), 'utf8');
  const line = /^ACL SETUSER (hub on >\S+ .+)$/m.exec(page)?.[1];
  assert.ok(line, "docs/edge-relay.md gives the hub's ACL user");
  const forPrefix = line.replaceAll('mcp:', `${prefix}:`);
  return { line: forPrefix, password: /^hub on >(\S+)/.exec(forPrefix)![1]! };
}
