import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { McpPaletteError } from '../../lib/core/errors.js';
import { parseFlowServerConfig } from '../../lib/config/flow-server-config.js';

const TASK_DEFAULTS = { maxTasks: 1000, maxTasksPerCaller: 100, maxStored: 10_000, maxStoredPerCaller: 1_000, ttlSeconds: 3600, maxResultKb: 1024 };
const EDGE_DEFAULTS = { site: undefined, hubSites: [], siteGroups: new Map(), naming: '{site}.{tool}', uriNaming: 'edge://{site}/{uri}', maxPendingPerSite: 32 };
const DEFAULTS = { serverName: 'node-red-mcp', path: '/mcp', access: 'local', maxConcurrent: 32, maxStreams: 1_000, groups: [], tasks: TASK_DEFAULTS, edges: EDGE_DEFAULTS };

function assertCode(config: Record<string, unknown>, code: string): McpPaletteError {
  let caught: unknown;
  assert.throws(
    () => parseFlowServerConfig(config),
    (error: unknown) => {
      caught = error;
      return error instanceof McpPaletteError && error.code === code;
    },
    `${JSON.stringify(config)} should fail with ${code}`,
  );
  return caught as McpPaletteError;
}

describe('parseFlowServerConfig', () => {
  it('defaults to node-red-mcp on /mcp, local access, 32 concurrent calls, 1000 open streams', () => {
    assert.deepEqual(parseFlowServerConfig({}), DEFAULTS);
  });

  it('uses the defaults for blank or null fields', () => {
    assert.deepEqual(parseFlowServerConfig({ serverName: '', path: '', access: '', maxConcurrent: '' }), DEFAULTS);
    assert.deepEqual(parseFlowServerConfig({ serverName: null, path: null, access: null, maxConcurrent: null }), DEFAULTS);
  });

  it('keeps valid values', () => {
    assert.deepEqual(parseFlowServerConfig({ serverName: 'Home Tools', path: '/tools/home', access: 'oauth', maxConcurrent: 5, groups: 'a' }), {
      serverName: 'Home Tools',
      path: '/tools/home',
      access: 'oauth',
      maxConcurrent: 5,
      maxStreams: 1_000,
      groups: ['a'],
      tasks: TASK_DEFAULTS,
      edges: EDGE_DEFAULTS,
    });
  });

  it('reads the edge fields: a site to offer, sites to serve, naming and the per-site cap', () => {
    assert.deepEqual(parseFlowServerConfig({ edgeSite: ' plant-a ', hubSites: 'plant-b, plant-c plant-b', edgeNaming: '{tool}@{site}', maxPendingPerSite: '4' }).edges, {
      site: 'plant-a',
      hubSites: ['plant-b', 'plant-c'],
      siteGroups: new Map(),
      naming: '{tool}@{site}',
      uriNaming: 'edge://{site}/{uri}',
      maxPendingPerSite: 4,
    });
    assert.equal(parseFlowServerConfig({ edgeNaming: '' }).edges.naming, '{site}.{tool}');
  });

  it('reads the URI naming of edge resources: the default when missing or blank, else the trimmed value', () => {
    assert.equal(parseFlowServerConfig({}).edges.uriNaming, 'edge://{site}/{uri}');
    assert.equal(parseFlowServerConfig({ edgeUriNaming: '' }).edges.uriNaming, 'edge://{site}/{uri}');
    assert.equal(parseFlowServerConfig({ edgeUriNaming: '  ' }).edges.uriNaming, 'edge://{site}/{uri}');
    assert.equal(parseFlowServerConfig({ edgeUriNaming: ' {uri}#{site} ' }).edges.uriNaming, '{uri}#{site}');
    assert.equal(parseFlowServerConfig({ edgeUriNaming: 'edge+{site}:{uri}' }).edges.uriNaming, 'edge+{site}:{uri}');
  });

  it('refuses bad edge fields, naming the field', () => {
    assertCode({ edgeSite: 'Plant A' }, 'invalid_edge_site');
    assertCode({ edgeSite: 'a:b' }, 'invalid_edge_site');
    assertCode({ hubSites: 'plant-a, plant*' }, 'invalid_hub_sites');
    assertCode({ hubSites: 'plant-a, -b' }, 'invalid_hub_sites');
    assertCode({ edgeNaming: '{tool}' }, 'invalid_edge_naming');
    assertCode({ edgeNaming: 'edge_{site}' }, 'invalid_edge_naming');
    // Site plant announcing a-open_valve and site plant-a announcing open_valve would share plant-a-open_valve.
    assertCode({ edgeNaming: '{site}-{tool}' }, 'invalid_edge_naming');
    assertCode({ edgeNaming: '{tool}-{site}' }, 'invalid_edge_naming');
    assertCode({ edgeNaming: '{site}{tool}' }, 'invalid_edge_naming');
    assertCode({ edgeNaming: '{site}.{tool}.{site}' }, 'invalid_edge_naming');
    assertCode({ edgeUriNaming: '{uri}' }, 'invalid_edge_uri_naming');
    assertCode({ edgeUriNaming: 'edge://{site}/{tool}' }, 'invalid_edge_uri_naming');
    // Site plant announcing a-x://y and site plant-a announcing x://y would share edge://plant-a-x://y.
    assertCode({ edgeUriNaming: 'edge://{site}-{uri}' }, 'invalid_edge_uri_naming');
    assertCode({ edgeUriNaming: 'edge://{site}{uri}' }, 'invalid_edge_uri_naming');
    assertCode({ edgeUriNaming: '{site}/{uri}' }, 'invalid_edge_uri_naming');
    assertCode({ edgeUriNaming: `edge://{site}/{uri}#${'x'.repeat(109)}` }, 'invalid_edge_uri_naming');
    assertCode({ maxPendingPerSite: '0' }, 'invalid_max_pending_per_site');
    assertCode({ edgeSite: 'plant-a', hubSites: 'plant-b plant-a' }, 'hub_serves_own_site');
  });

  it('reads the task limits, as the editor saves them or as numbers', () => {
    assert.deepEqual(parseFlowServerConfig({ maxTasks: '50', maxTasksPerCaller: 5, maxStoredTasks: '500', maxStoredTasksPerCaller: 20, taskTtl: '600', maxTaskResultKb: '64' }).tasks, {
      maxTasks: 50,
      maxTasksPerCaller: 5,
      maxStored: 500,
      maxStoredPerCaller: 20,
      ttlSeconds: 600,
      maxResultKb: 64,
    });
  });

  it('gives a flow saved before the stored-task caps the default caps', () => {
    const { tasks } = parseFlowServerConfig({ maxTasks: '50', maxTasksPerCaller: '5', taskTtl: '600', maxTaskResultKb: '64' });
    assert.deepEqual([tasks.maxStored, tasks.maxStoredPerCaller], [10_000, 1_000]);
    assert.deepEqual(parseFlowServerConfig({ maxStoredTasks: '', maxStoredTasksPerCaller: null }).tasks, TASK_DEFAULTS);
  });

  it('refuses task limits out of range, naming the field', () => {
    assertCode({ maxTasks: '0' }, 'invalid_max_tasks');
    assertCode({ maxTasksPerCaller: 'many' }, 'invalid_max_tasks_per_caller');
    assertCode({ taskTtl: '59' }, 'invalid_task_ttl');
    assertCode({ taskTtl: String(8 * 86_400) }, 'invalid_task_ttl');
    assertCode({ maxTaskResultKb: '2048' }, 'invalid_max_task_result');
    assertCode({ maxStoredTasks: '0' }, 'invalid_max_stored_tasks');
    assertCode({ maxStoredTasks: '1000001' }, 'invalid_max_stored_tasks');
    assertCode({ maxStoredTasksPerCaller: '1.5' }, 'invalid_max_stored_tasks_per_caller');
  });

  it('reads groups separated by commas or whitespace, without repeats', () => {
    assert.deepEqual(parseFlowServerConfig({ groups: ' mcp-users, admins\nops  admins,' }).groups, ['mcp-users', 'admins', 'ops']);
  });

  it('accepts maxConcurrent as a numeric string', () => {
    assert.equal(parseFlowServerConfig({ maxConcurrent: '64' }).maxConcurrent, 64);
    assert.equal(parseFlowServerConfig({ maxConcurrent: '10000' }).maxConcurrent, 10_000);
  });

  it('refuses bad server names with invalid_name', () => {
    for (const serverName of ['-leading-dash', 'x'.repeat(65), 'semi;colon', 5]) assertCode({ serverName }, 'invalid_name');
  });

  it('refuses relative or reserved paths with invalid_path', () => {
    for (const path of ['mcp', '/oauth/x', '/.well-known/mcp', '/a//b']) assertCode({ path }, 'invalid_path');
  });

  it('refuses unknown access modes with access_unsupported, carrying the mode', () => {
    const error = assertCode({ access: 'basic' }, 'access_unsupported');
    assert.equal(error.params.access, 'basic');
  });

  it('refuses maxConcurrent outside 1..10000 or not whole with invalid_max_concurrent', () => {
    for (const maxConcurrent of ['0', 0, '10001', 'abc', 1.5, '-3']) assertCode({ maxConcurrent }, 'invalid_max_concurrent');
  });

  it('reads maxStreams as a number or numeric string, blank as the default (flows from before it existed)', () => {
    assert.equal(parseFlowServerConfig({ maxStreams: '3' }).maxStreams, 3);
    assert.equal(parseFlowServerConfig({ maxStreams: 100_000 }).maxStreams, 100_000);
    assert.equal(parseFlowServerConfig({ maxStreams: '' }).maxStreams, 1_000);
  });

  it('refuses maxStreams outside 1..100000 or not whole with invalid_max_streams', () => {
    for (const maxStreams of ['0', 0, '100001', 'many', 2.5, '-1']) assertCode({ maxStreams }, 'invalid_max_streams');
  });

  it('returns a frozen result', () => {
    assert.ok(Object.isFrozen(parseFlowServerConfig({})));
  });
});
