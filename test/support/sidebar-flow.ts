import type { FlowNode } from './node-red-process.js';
import { answer, flowServer, oauthServer, oidcAuth, prompt, resource, router, runtimeWithBaseUrl, storage, tab, tool } from './flows.js';

export const SIDEBAR_TAB = 'tab-sidebar';
export const LOCAL_SERVER = 'sb-local-server';
export const TEAM_SERVER = 'sb-team-server';

/** A PNG of one transparent pixel, for an image result. */
export const PIXEL_PNG = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=';

/**
 * What the editor's MCP sidebar is tested against: a Local endpoint /mcp with `echo` (typed
 * arguments, structured result that shows the flow's msg.mcp), `broken` (an isError result) and
 * `pixel` (an image), and an OAuth endpoint /team limited to the group `staff` with `whoami` (itself limited to `staff-admins`),
 * a manual every member may read, readings per sensor (a template) for `staff-admins` and a shift report prompt for two groups. The
 * runtime has a Base URL, as OAuth needs; the sign-in provider is never contacted by these tests.
 */
export function sidebarFlow(port: number): FlowNode[] {
  const z = SIDEBAR_TAB;
  return [
    tab(z),
    runtimeWithBaseUrl('sb-runtime', port),
    storage('sb-storage', 'memory'),
    oidcAuth('sb-auth', { storage: 'sb-storage', issuer: 'https://login.example.com/realms/staff', clientId: 'node-red', secretEnv: 'MCP_SIDEBAR_SECRET', clientHosts: 'claude.ai' }),
    flowServer(LOCAL_SERVER, { runtime: 'sb-runtime', path: '/mcp', serverName: 'plant tools', z, wires: ['sb-route'] }),
    oauthServer(TEAM_SERVER, { runtime: 'sb-runtime', auth: 'sb-auth', path: '/team', groups: 'staff', serverName: 'team', z, wires: ['sb-route'] }),
    tool('sb-echo', {
      name: 'echo',
      z,
      input: {
        type: 'object',
        properties: {
          text: { type: 'string', description: 'what to echo' },
          times: { type: 'integer', minimum: 1 },
          loud: { type: 'boolean' },
        },
        required: ['text'],
      },
      output: { type: 'object', properties: { echoed: { type: 'string' }, caller: { type: 'object' } }, required: ['echoed', 'caller'] },
    }),
    tool('sb-broken', { name: 'broken', z }),
    tool('sb-pixel', { name: 'pixel', z }),
    { ...tool('sb-whoami', { name: 'whoami', endpoint: '/team', z }), allowedGroups: 'staff-admins' },
    resource('sb-manual', { name: 'manual', uri: 'plant://manual', endpoint: '/team', source: 'static', text: 'Open valve 3 slowly.', z }),
    { ...resource('sb-readings', { name: 'readings', uri: 'plant://readings/{sensor}', endpoint: '/team', z }), allowedGroups: 'staff-admins' },
    { ...prompt('sb-shift-report', { name: 'shift_report', endpoint: '/team', z }), allowedGroups: 'staff-admins, maintenance' },
    router('sb-route', { echo: 'sb-echo-fn', broken: 'sb-broken-fn', pixel: 'sb-pixel-fn', whoami: 'sb-whoami-fn' }, z),
    answer(
      'sb-echo-fn',
      `const a = msg.payload.arguments;
       let text = a.text.repeat(a.times || 1);
       if (a.loud) text = text.toUpperCase();
       node.log('echo ran for ' + msg.mcp.client);
       msg.topic = 'mcp-tool-response';
       msg.payload = { executionId: msg.payload.executionId, result: { echoed: text, caller: msg.mcp } };
       return msg;`,
      LOCAL_SERVER,
      z,
    ),
    answer(
      'sb-broken-fn',
      `msg.topic = 'mcp-tool-response';
       msg.payload = { executionId: msg.payload.executionId, error: 'the pump is offline' };
       return msg;`,
      LOCAL_SERVER,
      z,
    ),
    answer(
      'sb-pixel-fn',
      `msg.topic = 'mcp-tool-response';
       msg.payload = { executionId: msg.payload.executionId, result: { content: [{ type: 'text', text: 'one pixel' }, { type: 'image', mimeType: 'image/png', data: ${JSON.stringify(PIXEL_PNG)} }] } };
       return msg;`,
      LOCAL_SERVER,
      z,
    ),
    answer(
      'sb-whoami-fn',
      `msg.topic = 'mcp-tool-response';
       msg.payload = { executionId: msg.payload.executionId, result: JSON.stringify(msg.mcp) };
       return msg;`,
      TEAM_SERVER,
      z,
    ),
  ];
}
