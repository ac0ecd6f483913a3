import type { FlowServerSettings } from '../config/flow-server-config.js';
import type { RuntimeSettings } from '../config/runtime-config.js';
import { McpPaletteError } from '../core/errors.js';
import type { AccessPolicy } from './access-policy.js';
import { createLocalAccess } from './local-access.js';
import { isLoopbackHost } from './loopback.js';

/**
 * Chooses how callers get into an endpoint, failing closed: an access mode that cannot be enforced
 * stops the endpoint from starting instead of serving it open.
 */
export function createAccessPolicy(endpoint: FlowServerSettings, runtime: RuntimeSettings): AccessPolicy {
  if (endpoint.access === 'local') {
    if (!isLoopbackHost(runtime.host)) {
      throw new McpPaletteError('local_needs_loopback', `local access needs a loopback bind address, not ${runtime.host}`, {
        host: runtime.host,
      });
    }
    // A Base URL on a local runtime is the name a local proxy or hosts entry gives it.
    const extra = runtime.baseUrl ? [new URL(runtime.baseUrl).hostname] : [];
    return createLocalAccess(extra);
  }
  throw new McpPaletteError('access_unsupported', `access mode ${endpoint.access} is not available yet`, {
    access: endpoint.access,
  });
}
