import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { relayListChanges } from '../../lib/mcp/list-change-relay.js';
import { audienceIncludes, audiencesOf, changedAudiences, parseAudienceChange, ServedAudiences, type AudienceChange } from '../../lib/mcp/list-audiences.js';
import type { ListKind } from '../../lib/mcp/list-changes.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import { parseToolConfig } from '../../lib/mcp/tool-definition.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { recordingLogger } from '../support/recording-logger.js';

const ANY = '{"type":"object"}';
const tool = (name: string, allowedGroups?: string, description = 'a tool') =>
  parseToolConfig({ toolName: name, endpoint: '/mcp', inputSchema: ANY, description, ...(allowedGroups ? { allowedGroups } : {}) });
const tools = (...defs: ReturnType<typeof tool>[]) => new ToolCatalog(defs);
const prompt = (name: string, allowedGroups?: string) =>
  parsePromptConfig({ promptName: name, endpoint: '/mcp', messages: [{ role: 'user', text: 'hello' }], ...(allowedGroups ? { allowedGroups } : {}) });
const content = (...prompts: ReturnType<typeof prompt>[]) => new ContentCatalog([parseResourceConfig({ resourceName: 'manual', uri: 'plant://manual', endpoint: '/mcp' })], prompts);

describe('list audiences: whom a deploy’s change concerns', () => {
  const before = audiencesOf(tools(tool('read_level'), tool('set_point', 'maintenance')), content(prompt('summary')));

  it('names only the group set whose item changed', () => {
    const after = audiencesOf(tools(tool('read_level'), tool('set_point', 'maintenance', 'now with limits')), content(prompt('summary')));
    assert.deepEqual(changedAudiences(before, after, ['tools']), { tools: [['maintenance']] });
  });

  it('names every caller (null) for a change of an unrestricted item, and both sets for an item that moved', () => {
    const everyone = audiencesOf(tools(tool('read_level', undefined, 'changed'), tool('set_point', 'maintenance')), content(prompt('summary')));
    assert.deepEqual(changedAudiences(before, everyone, ['tools']), { tools: [null] });
    const moved = audiencesOf(tools(tool('read_level'), tool('set_point', 'ops, operators')), content(prompt('summary')));
    assert.deepEqual(changedAudiences(before, moved, ['tools']), { tools: [['maintenance'], ['operators', 'ops']] });
    const added = audiencesOf(tools(tool('read_level'), tool('set_point', 'maintenance')), content(prompt('summary'), prompt('plan', 'maintenance')));
    assert.deepEqual(changedAudiences(before, added, ['prompts']), { prompts: [['maintenance']] });
  });

  it('keeps what each endpoint served last, per endpoint', () => {
    const served = new ServedAudiences();
    assert.deepEqual(served.update('/a', before, []), {});
    const after = audiencesOf(tools(tool('read_level'), tool('set_point', 'maintenance', 'changed')), content(prompt('summary')));
    assert.deepEqual(served.update('/a', after, ['tools']), { tools: [['maintenance']] });
    assert.deepEqual(served.update('/b', after, ['tools']), { tools: [null, ['maintenance']] }, 'a first deploy concerns everyone');
  });

  it('tells who is among the audiences', () => {
    assert.equal(audienceIncludes([['maintenance']], ['staff']), false);
    assert.equal(audienceIncludes([['maintenance']], ['staff', 'maintenance']), true);
    assert.equal(audienceIncludes([null], undefined), true);
    assert.equal(audienceIncludes([], ['staff']), false);
  });

  it('reads only audiences as this palette writes them; anything else means every caller', () => {
    const kinds: ListKind[] = ['tools'];
    assert.deepEqual(parseAudienceChange({ tools: [null, ['maintenance']] }, kinds), { tools: [null, ['maintenance']] });
    for (const bad of [undefined, null, [], 'tools', { tools: 'x' }, { tools: [['']] }, { tools: [[]] }, { tools: [[7]] }, { tools: [['x'.repeat(257)]] }, { prompts: [null] }, { tools: Array.from({ length: 1025 }, () => null) }]) {
      assert.equal(parseAudienceChange(bad, kinds), undefined, JSON.stringify(bad)?.slice(0, 80));
    }
  });
});

describe('relayListChanges carries the audiences', () => {
  it("delivers another instance's audiences, and none for an older instance's message or a malformed one", async () => {
    const store = new MemoryStore();
    const heard: [ListKind[], AudienceChange | undefined][] = [];
    const relay = relayListChanges({ store, namespace: 'ns', path: '/tools', logger: recordingLogger(), deliver: (kinds, audiences) => void heard.push([kinds, audiences]) });
    const channel = { namespace: 'ns', kind: 'list-changed', id: '/tools' };
    const published: string[] = [];
    const other = store.subscribe(channel, (message) => published.push(message));
    relay.announce(['tools'], { tools: [['maintenance']] });
    await store.publish(channel, JSON.stringify({ origin: 'another-instance', kinds: ['tools'], audiences: { tools: [['maintenance']] } }));
    await store.publish(channel, JSON.stringify({ origin: 'an-older-instance', kinds: ['prompts'] }));
    await store.publish(channel, JSON.stringify({ origin: 'another-instance', kinds: ['tools'], audiences: { tools: [[{ not: 'a group' }]] } }));
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(heard, [
      [['tools'], { tools: [['maintenance']] }],
      [['prompts'], undefined],
      [['tools'], undefined],
    ]);
    const own = published.map((message) => JSON.parse(message)).filter((message) => !/-instance$/.test(message.origin));
    assert.deepEqual(own.map(({ kinds, audiences }) => ({ kinds, audiences })), [{ kinds: ['tools'], audiences: { tools: [['maintenance']] } }], 'what this instance publishes');
    other();
    relay.close();
    await store.close();
  });
});
