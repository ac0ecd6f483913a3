import type { ProviderSettings } from './provider-settings.js';
import { createUpstreamClient, type UpstreamClient } from './upstream-client.js';

/**
 * The bridge's way in: one upstream client per bridge, bound to that bridge's callback URL
 * (`<Base URL>/oauth/<slug>/callback`, which is what the administrator registers with the provider).
 */
export function createUpstreamSignIn(settings: ProviderSettings, redirectUri: string, timeoutMs?: number): UpstreamClient {
  return createUpstreamClient(settings, { redirectUri, timeoutMs });
}
