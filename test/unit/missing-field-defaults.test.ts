// Upgrade-safe config, the runtime's half: a node saved before one of its fields existed runs exactly
// as if it had saved that field's default, the default its dialog shows (the `defaults` of
// nodes/<type>/<type>.html, read as the editor reads them). The editor's half is in
// test/editor/old-flow-dialogs.test.ts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseAuthConfig } from '../../lib/auth/auth-settings.js';
import { parseAdminSettings, parseRuntimeConfig } from '../../lib/config/runtime-config.js';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import type { AppViewConfig } from '../../lib/mcp/app-ui.js';
import { parseAppViewConfig } from '../../lib/mcp/content/app-view.js';
import { parsePromptConfig, type PromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig, type ResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { parseToolConfig, type ToolConfig } from '../../lib/mcp/tool-definition.js';
import { parseStorageConfig } from '../../lib/storage/storage-config.js';
import { telemetryReport } from '../../lib/telemetry/telemetry-report.js';
import { defaultedFields, nodeDefinition, paletteTypes } from '../support/node-definitions.js';

type Config = Record<string, unknown>;

const REFRESH_KEY = '8f'.repeat(32);
const ENV = { MCP_TEST_SECRET: 'not-a-real-secret' };

/**
 * Per node type: the least a node of that type saves (the fields it cannot do without), and how the
 * runtime reads a node's config (what its node file hands to lib). The same base, once with a
 * field missing and once with the field's default, must read the same.
 */
const RUNTIME_READERS: Record<string, { base: Config; read: (config: Config) => unknown }> = {
  'mcp-runtime': {
    base: {},
    read: (config) => [parseRuntimeConfig(config), parseAdminSettings(config, { adminToken: 'admin-token' }, {})],
  },
  'mcp-redis': {
    base: {},
    read: (config) => parseStorageConfig(config, undefined, ENV),
  },
  'mcp-auth': {
    base: { slug: 'team', provider: 'oidc', oidcIssuer: 'https://idp.example.com/realms/team', oidcClientId: 'node-red', oidcSecretEnv: 'MCP_TEST_SECRET' },
    read: (config) => parseAuthConfig(config, { oidcRefreshKey: REFRESH_KEY }, ENV),
  },
  'mcp-flow-server': {
    base: { serverName: 'tools', path: '/mcp' },
    read: (config) => parseFlowServerConfig(config),
  },
  'mcp-tool-registry': {
    base: { toolName: 'add', endpoint: '/mcp', inputSchema: '{"type":"object"}' },
    read: (config) => parseToolConfig(config as ToolConfig),
  },
  'mcp-resource': {
    base: { resourceName: 'status', uri: 'plant://status', endpoint: '/mcp' },
    read: (config) => parseResourceConfig(config as ResourceConfig),
  },
  'mcp-app-view': {
    base: { resourceName: 'chart', uri: 'ui://plant/chart', endpoint: '/mcp' },
    read: (config) => parseAppViewConfig(config as AppViewConfig),
  },
  'mcp-prompt': {
    base: { promptName: 'report', endpoint: '/mcp', messages: [{ role: 'user', text: 'Report' }] },
    read: (config) => parsePromptConfig(config as PromptConfig),
  },
  'mcp-server-metrics': {
    base: {},
    read: (config) => telemetryReport(config.report),
  },
};

/** What a reading holds, comparable: functions (each reading makes its own) by name only, sets and maps as lists. */
function comparable(value: unknown): unknown {
  if (typeof value === 'function') return `function ${value.name}`;
  if (value instanceof Set) return { set: [...value].map(comparable) };
  if (value instanceof Map) return { map: [...value].map(comparable) };
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('hex') };
  if (Array.isArray(value)) return value.map(comparable);
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, comparable(v)]));
  return value;
}

describe('a node saved before a field existed runs with the default its dialog shows', () => {
  it('every node type of the palette has a reader here', () => {
    assert.deepEqual(Object.keys(RUNTIME_READERS).sort(), [...paletteTypes]);
  });

  for (const type of paletteTypes) {
    it(type, () => {
      const { base, read } = RUNTIME_READERS[type]!;
      const fields = defaultedFields(nodeDefinition(type), base);
      assert.ok(fields.size > 0, `${type} has fields its dialog fills`);
      for (const [field, value] of fields) {
        const missing = { ...base };
        delete missing[field];
        assert.deepEqual(comparable(read(missing)), comparable(read({ ...base, [field]: value })), `${type}: a missing ${field} reads as ${JSON.stringify(value)}`);
      }
    });
  }
});
