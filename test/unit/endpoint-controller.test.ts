import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { AuthRegistry } from '../../lib/auth/bridge/auth-registry.js';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';
import { silentLogger } from '../../lib/core/logger.js';
import { ListenerRegistry } from '../../lib/http/listener-registry.js';
import { EndpointController, type EndpointState } from '../../lib/mcp/endpoint-controller.js';
import { ToolRegistry } from '../../lib/mcp/tool-registry.js';
import { freePort } from '../support/ports.js';

/** A Local endpoint on a runtime bound by name, with the name resolved to `address`. */
async function localEndpointResolvingTo(address: string) {
  const port = await freePort();
  const states: EndpointState[] = [];
  const controller = new EndpointController({
    settings: parseFlowServerConfig({ serverName: 'local', path: '/mcp', access: 'local', maxConcurrent: '4' }),
    runtime: { server: 'own', port, host: 'mcp.localhost', pathPrefix: '', baseUrl: undefined, trustedProxies: [] },
    site: new ListenerRegistry({ resolveHost: async () => address }).site({ port, host: 'mcp.localhost' }),
    tools: new ToolRegistry(),
    // Local access never reaches the sign-in registry.
    access: { auth: undefined, authRegistry: undefined as unknown as AuthRegistry, audit: () => {} },
    logger: silentLogger,
    execute: () => {},
    onState: (state) => states.push(state),
  });
  await controller.start();
  return { port, controller, states };
}

describe('EndpointController and Local access on a bind name', () => {
  it('fails, and serves nothing, when the name turned out to bind a non-loopback address', async () => {
    const { port, controller, states } = await localEndpointResolvingTo('0.0.0.0');
    try {
      const last = states.at(-1);
      assert.equal(last?.state, 'failed', JSON.stringify(states));
      assert.equal(last.state === 'failed' && last.error.code, 'local_bound_not_loopback');
      await assert.rejects(fetch(`http://127.0.0.1:${port}/mcp`, { method: 'POST' }), (error: Error & { cause?: { code?: string } }) => error.cause?.code === 'ECONNREFUSED');
    } finally {
      await controller.stop('test over');
    }
  });

  it('serves when the name bound a loopback address', async () => {
    const { port, controller, states } = await localEndpointResolvingTo('127.0.0.1');
    try {
      assert.equal(states.at(-1)?.state, 'serving', JSON.stringify(states));
      const response = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': '2025-11-25' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      assert.equal(response.status, 200);
    } finally {
      await controller.stop('test over');
    }
  });
});
