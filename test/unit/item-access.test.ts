import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { AccessViews } from '../../lib/access/access-views.js';
import { callerAdmitted, groupsAdmit, parseAllowedGroups } from '../../lib/access/allowed-groups.js';
import { callerKey, callerWithGroupsKey } from '../../lib/access/caller-key.js';
import { parseFlowServerConfig, parseSiteGroups } from '../../lib/config/flow-server-config.js';
import { McpPaletteError } from '../../lib/core/errors.js';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { Deployed } from '../../lib/mcp/endpoint/deployed.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';

const tool = (name: string, allowedGroups?: string) => parseToolConfig({ toolName: name, endpoint: '/mcp', inputSchema: '{"type":"object"}', ...(allowedGroups !== undefined ? { allowedGroups } : {}) });
const resource = (uri: string, allowedGroups?: string) =>
  parseResourceConfig({ resourceName: uri.replace(/\W+/g, '-'), uri, endpoint: '/mcp', source: 'static', text: 'x', ...(allowedGroups !== undefined ? { allowedGroups } : {}) });
const prompt = (name: string, allowedGroups?: string) =>
  parsePromptConfig({ promptName: name, endpoint: '/mcp', messages: [{ role: 'user', text: 'hi' }], ...(allowedGroups !== undefined ? { allowedGroups } : {}) });

const names = (catalog: ToolCatalog) => catalog.listResult.tools.map((listed) => listed.name);

describe('Allowed groups as the editor saves them', () => {
  it('reads empty text, and a field a flow saved before it existed, as no restriction', () => {
    for (const value of [undefined, null, '', '  ,  ']) assert.equal(parseAllowedGroups(value), undefined);
  });

  it('splits on commas and whitespace, drops repeats and sorts', () => {
    assert.deepEqual(parseAllowedGroups('maintenance, operators\nmaintenance  admins'), ['admins', 'maintenance', 'operators']);
    assert.deepEqual(parseAllowedGroups(['b', 'a']), ['a', 'b']);
  });

  it('refuses a group longer than 256 characters, and anything but text', () => {
    assert.throws(() => parseAllowedGroups('x'.repeat(257)), (error: unknown) => error instanceof McpPaletteError && error.code === 'invalid_allowed_groups');
    assert.throws(() => parseAllowedGroups(42), (error: unknown) => error instanceof McpPaletteError && error.code === 'invalid_allowed_groups');
  });

  it('lets in a member of any one allowed group, nobody without groups, everyone where nothing is restricted', () => {
    assert.equal(groupsAdmit(['a', 'b'], ['c', 'b']), true);
    assert.equal(groupsAdmit(['a'], ['c']), false);
    assert.equal(groupsAdmit(['a'], undefined), false);
    assert.equal(groupsAdmit(undefined, undefined), true);
    assert.equal(callerAdmitted(['a'], { editor: { user: 'admin' } }), true);
    assert.equal(callerAdmitted(['a'], { subject: 's', groups: [] }), false);
  });

  it('is kept on tools, resources and prompts only when given', () => {
    assert.deepEqual(tool('t', 'ops').allowedGroups, ['ops']);
    assert.equal('allowedGroups' in tool('t', ''), false);
    assert.deepEqual(resource('demo://r', 'ops, eng').allowedGroups, ['eng', 'ops']);
    assert.deepEqual(prompt('p', 'ops').allowedGroups, ['ops']);
  });
});

describe('AccessViews: one view per answer to the restrictions, built once', () => {
  const build = (restrictions: Array<readonly string[] | undefined>) => {
    let built = 0;
    const views = new AccessViews<string[]>(restrictions, ['whole'], (admits) => {
      built++;
      return restrictions.map((allowed, index) => (admits(allowed) ? `item${index}` : '')).filter(Boolean);
    });
    return { views, built: () => built };
  };

  it('gives every caller the whole deploy when nothing is restricted, and builds nothing', () => {
    const { views, built } = build([undefined, undefined]);
    assert.equal(views.restricted, false);
    assert.deepEqual(views.viewFor({ subject: 'a', groups: ['x'] }), ['whole']);
    assert.deepEqual(views.viewFor({}), ['whole']);
    assert.equal(built(), 0);
  });

  it('shows each caller only the items its groups allow', () => {
    const { views } = build([undefined, ['ops'], ['eng', 'ops'], ['admins']]);
    assert.deepEqual(views.viewFor({ subject: 'a', groups: ['ops'] }), ['item0', 'item1', 'item2']);
    assert.deepEqual(views.viewFor({ subject: 'b', groups: ['eng'] }), ['item0', 'item2']);
    assert.deepEqual(views.viewFor({ subject: 'c', groups: ['admins', 'eng'] }), ['item0', 'item2', 'item3']);
    assert.deepEqual(views.viewFor({ subject: 'd', groups: ['other'] }), ['item0']);
    // A caller without groups (the anonymous handshake) sees only what is unrestricted: fail closed.
    assert.deepEqual(views.viewFor({}), ['item0']);
  });

  it('shares one view among callers whose groups answer the restrictions alike, whatever else they hold', () => {
    const { views, built } = build([['ops'], ['ops'], ['eng']]);
    const first = views.viewFor({ subject: 'a', groups: ['ops'] });
    const second = views.viewFor({ subject: 'b', groups: ['ops', 'unrelated', 'more'] });
    assert.equal(first, second);
    views.viewFor({ subject: 'c', groups: ['ops'] });
    assert.equal(built(), 1);
    views.viewFor({ subject: 'd', groups: ['eng'] });
    assert.equal(built(), 2);
    assert.equal(views.size, 2);
  });

  it('counts the same group set once, however its items spell it', () => {
    const { views } = build([['b', 'a'], ['a', 'b']]);
    assert.deepEqual(views.viewFor({ subject: 'x', groups: ['a'] }), ['item0', 'item1']);
    assert.equal(views.size, 1);
  });

  it('gives an editor call (Try it) the whole deploy', () => {
    const { views } = build([['ops']]);
    assert.deepEqual(views.viewFor({ editor: { user: null } }), ['whole']);
  });
});

describe('a deploy seen by callers of three group sets', () => {
  const deployed = new Deployed();
  deployed.tools = new ToolCatalog([tool('read_state'), tool('set_point', 'maintenance'), tool('plant_a_valve', 'plant-a-operators, maintenance')]);
  deployed.setContent(
    new ContentCatalog(
      [resource('plant://state'), resource('plant://secret', 'maintenance'), resource('plant://logs/{day}', 'plant-a-operators')],
      [prompt('summary'), prompt('maintenance_plan', 'maintenance')],
    ),
  );
  const everyone = { subject: 'u1', groups: ['staff'] };
  const maintenance = { subject: 'u2', groups: ['staff', 'maintenance'] };
  const operator = { subject: 'u3', groups: ['staff', 'plant-a-operators'] };

  it('lists tools, resources, templates and prompts per caller', () => {
    assert.deepEqual(names(deployed.viewFor(everyone).tools), ['read_state']);
    assert.deepEqual(names(deployed.viewFor(maintenance).tools), ['plant_a_valve', 'read_state', 'set_point']);
    assert.deepEqual(names(deployed.viewFor(operator).tools), ['plant_a_valve', 'read_state']);
    const uris = (caller: typeof everyone) => deployed.viewFor(caller).content.resourcesResult.resources.map((listed) => listed.uri);
    assert.deepEqual(uris(everyone), ['plant://state']);
    assert.deepEqual(uris(maintenance), ['plant://secret', 'plant://state']);
    const templates = (caller: typeof everyone) => deployed.viewFor(caller).content.templatesResult.resourceTemplates.map((listed) => listed.uriTemplate);
    assert.deepEqual(templates(everyone), []);
    assert.deepEqual(templates(operator), ['plant://logs/{day}']);
    const prompts = (caller: typeof everyone) => deployed.viewFor(caller).content.promptsResult.prompts.map((listed) => listed.name);
    assert.deepEqual(prompts(everyone), ['summary']);
    assert.deepEqual(prompts(maintenance), ['maintenance_plan', 'summary']);
  });

  it('finds only what the caller may use, and knows what it withholds (for telemetry, never the answer)', () => {
    const view = deployed.viewFor(everyone);
    assert.equal(view.tools.find('set_point'), undefined);
    assert.equal(view.tools.withholds('set_point'), true);
    assert.equal(view.tools.withholds('no_such_tool'), false);
    assert.equal(view.content.findResource('plant://logs/monday'), undefined);
    assert.equal(view.content.withholdsResource('plant://logs/monday'), true);
    assert.equal(view.content.wholeResourceName('plant://logs/monday'), 'plant://logs/{day}');
    assert.equal(view.content.withholdsResource('plant://nothing'), false);
    assert.equal(view.content.withholdsPrompt('maintenance_plan'), true);
    assert.equal(view.content.withholdsTemplate('plant://logs/{day}'), true);
    assert.equal(deployed.viewFor(operator).content.findResource('plant://logs/monday')?.variables['day'], 'monday');
  });

  it('declares the same capabilities to every caller: which lists exist is no secret', () => {
    assert.deepEqual(deployed.viewFor(everyone).content.capabilities, deployed.content.capabilities);
  });

  it('keeps prebuilt answers per view: the same bytes object for every request of a group set', () => {
    const first = deployed.viewFor(maintenance).tools.listAnswerHead;
    assert.equal(deployed.viewFor({ subject: 'other', groups: ['maintenance', 'staff', 'x'] }).tools.listAnswerHead, first);
    assert.ok(first.includes('"plant_a_valve"'));
    assert.ok(!deployed.viewFor(everyone).tools.listAnswerHead.includes('set_point'));
  });

  it('builds new views after a deploy', () => {
    const later = new Deployed();
    later.tools = new ToolCatalog([tool('set_point', 'maintenance')]);
    assert.deepEqual(names(later.viewFor(maintenance).tools), ['set_point']);
    later.tools = new ToolCatalog([tool('set_point', 'admins')]);
    assert.deepEqual(names(later.viewFor(maintenance).tools), []);
  });
});

describe('an answer to a 2025-era question must come from the caller with the same groups', () => {
  it('adds the groups to the caller key, in any order', () => {
    const asked = callerWithGroupsKey({ subject: 's', client: 'c', groups: ['b', 'a'] });
    assert.equal(asked, callerWithGroupsKey({ subject: 's', client: 'c', groups: ['a', 'b'] }));
    assert.notEqual(asked, callerWithGroupsKey({ subject: 's', client: 'c', groups: ['a'] }));
    assert.equal(callerWithGroupsKey({}), callerKey({}));
  });
});

describe("a hub's site groups", () => {
  it('reads one line per site', () => {
    const groups = parseSiteGroups('plant-a: plant-a-operators, maintenance\n\n plant-b :ops');
    assert.deepEqual(Object.fromEntries(groups!), { 'plant-a': ['maintenance', 'plant-a-operators'], 'plant-b': ['ops'] });
  });

  it('refuses a malformed line, a site named twice or a site without groups', () => {
    for (const text of ['plant-a', 'plant-a: x\nplant-a: y', 'plant-a:', 'Plant A: x']) assert.equal(parseSiteGroups(text), undefined, text);
  });

  it('refuses groups for a site the hub does not serve; flows saved before the field restrict nothing', () => {
    assert.throws(() => parseFlowServerConfig({ hubSites: 'plant-a', hubSiteGroups: 'plant-b: ops' }), (error: unknown) => error instanceof McpPaletteError && error.code === 'invalid_hub_site_groups');
    assert.equal(parseFlowServerConfig({ hubSites: 'plant-a' }).edges.siteGroups.size, 0);
    assert.deepEqual(parseFlowServerConfig({ hubSites: 'plant-a', hubSiteGroups: 'plant-a: ops' }).edges.siteGroups.get('plant-a'), ['ops']);
  });
});
