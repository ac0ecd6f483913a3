import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { ContentCatalog } from '../../lib/mcp/content/content-catalog.js';
import { parsePromptConfig } from '../../lib/mcp/content/prompt-definition.js';
import { parseResourceConfig } from '../../lib/mcp/content/resource-definition.js';
import { relayListChanges } from '../../lib/mcp/list-change-relay.js';
import { changedKinds, fingerprintLists, ServedLists, type ListKind } from '../../lib/mcp/list-changes.js';
import { narrowListenRequest } from '../../lib/mcp/listen-request.js';
import { ResourceWatchers } from '../../lib/mcp/resource-watchers.js';
import { ToolCatalog } from '../../lib/mcp/tool-catalog.js';
import type { ToolDefinition } from '../../lib/mcp/tool-definition.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { recordingLogger } from '../support/recording-logger.js';

const resource = (uri: string) => parseResourceConfig({ resourceName: uri.replace(/\W+/g, '-'), uri, endpoint: '/mcp', mimeType: 'text/plain' });
const prompt = (name: string) => parsePromptConfig({ promptName: name, endpoint: '/mcp', messages: [{ role: 'user', text: 'hello' }] });
const toolNamed = (name: string) => ({ name, listing: { name, inputSchema: { type: 'object' } } }) as unknown as ToolDefinition;

describe('list fingerprints', () => {
  const content = new ContentCatalog([resource('plant://a')], [prompt('report')]);

  it('names exactly the lists that differ, and none for the first look or an identical rebuild', () => {
    const before = fingerprintLists(new ToolCatalog([toolNamed('a')]), content);
    assert.deepEqual(changedKinds(undefined, before), []);
    assert.deepEqual(changedKinds(before, fingerprintLists(new ToolCatalog([toolNamed('a')]), new ContentCatalog([resource('plant://a')], [prompt('report')]))), []);
    assert.deepEqual(changedKinds(before, fingerprintLists(new ToolCatalog([toolNamed('a'), toolNamed('b')]), content)), ['tools']);
    const templated = new ContentCatalog([resource('plant://a'), resource('plant://{line}/x')], [prompt('other')]);
    assert.deepEqual(changedKinds(before, fingerprintLists(new ToolCatalog([toolNamed('a')]), templated)), ['resources', 'prompts']);
  });

  it('sees a change on a later page of a long list', () => {
    const names = Array.from({ length: 5 }, (_, i) => `tool_${i}`);
    const before = fingerprintLists(new ToolCatalog(names.map(toolNamed), undefined, 2), ContentCatalog.empty);
    const after = fingerprintLists(new ToolCatalog([...names, 'tool_9'].map(toolNamed), undefined, 2), ContentCatalog.empty);
    assert.deepEqual(changedKinds(before, after), ['tools']);
  });

  it('remembers per endpoint what was served last, across a replaced endpoint', () => {
    const served = new ServedLists();
    const one = fingerprintLists(new ToolCatalog([toolNamed('a')]), ContentCatalog.empty);
    const two = fingerprintLists(new ToolCatalog([toolNamed('b')]), ContentCatalog.empty);
    assert.deepEqual(served.update('127.0.0.1:1881/mcp', one), []);
    assert.deepEqual(served.update('127.0.0.1:1882/mcp', two), [], 'another runtime is another endpoint');
    assert.deepEqual(served.update('127.0.0.1:1881/mcp', two), ['tools']);
    assert.deepEqual(served.update('127.0.0.1:1881/mcp', two), []);
  });
});

describe('narrowListenRequest', () => {
  const served = (uri: string) => uri.startsWith('plant://');
  const listen = (notifications: unknown) => ({ jsonrpc: '2.0', id: 'listen:1', method: 'subscriptions/listen', params: { _meta: { x: 1 }, notifications } });

  it('leaves out URIs the endpoint does not serve and keeps everything else', () => {
    const narrowed = narrowListenRequest(listen({ toolsListChanged: true, resourceSubscriptions: ['plant://a', 'nowhere://b', 'plant://c'] }), served)!;
    assert.deepEqual(narrowed.uris, ['plant://a', 'plant://c']);
    assert.deepEqual(narrowed.unknown, ['nowhere://b']);
    assert.deepEqual(narrowed.body, listen({ toolsListChanged: true, resourceSubscriptions: ['plant://a', 'plant://c'] }));
  });

  it('hands a request with only served URIs on unchanged (the same object)', () => {
    const body = listen({ resourceSubscriptions: ['plant://a'] });
    assert.equal(narrowListenRequest(body, served)!.body, body);
  });

  it('leaves malformed filters to the SDK and ignores other methods and batches', () => {
    const malformed = listen({ resourceSubscriptions: 'plant://a' });
    assert.deepEqual(narrowListenRequest(malformed, served), { body: malformed, uris: [], unknown: [] });
    assert.equal(narrowListenRequest({ jsonrpc: '2.0', id: 1, method: 'tools/list' }, served), undefined);
    assert.equal(narrowListenRequest([listen({})], served), undefined);
  });
});

describe('ResourceWatchers', () => {
  it('counts each URI per stream until every stream watching it is released, once each', () => {
    const watchers = new ResourceWatchers();
    const first = watchers.watch(['plant://a', 'plant://a', 'plant://b']);
    const second = watchers.watch(['plant://a']);
    assert.ok(watchers.isWatched('plant://a') && watchers.isWatched('plant://b'));
    first();
    first();
    assert.ok(watchers.isWatched('plant://a'), 'the second stream still watches it');
    assert.ok(!watchers.isWatched('plant://b'));
    second();
    assert.equal(watchers.size, 0);
  });
});

describe('relayListChanges over one store', () => {
  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("delivers another instance's announcement for the same endpoint only, and ignores its own and malformed ones", async () => {
    const store = new MemoryStore();
    const logger = recordingLogger();
    const heard: ListKind[][] = [];
    const relay = relayListChanges({ store, namespace: 'ns', path: '/tools', logger, deliver: (kinds) => void heard.push(kinds) });
    const channel = { namespace: 'ns', kind: 'list-changed', id: '/tools' };
    relay.announce(['tools'], { tools: [null] });
    await store.publish(channel, JSON.stringify({ origin: 'another-instance', kinds: ['prompts', 'resources'] }));
    await store.publish({ ...channel, id: '/other' }, JSON.stringify({ origin: 'another-instance', kinds: ['tools'] }));
    await store.publish(channel, JSON.stringify({ origin: 'another-instance', kinds: ['everything'] }));
    await store.publish(channel, 'not json');
    await settle();
    assert.deepEqual(heard, [['prompts', 'resources']]);
    assert.equal(logger.lines.filter((line) => line.startsWith('debug list-changed message on /tools ignored')).length, 2);
    relay.close();
    await store.publish(channel, JSON.stringify({ origin: 'another-instance', kinds: ['tools'] }));
    await settle();
    assert.equal(heard.length, 1, 'nothing after close');
    await store.close();
  });

  it('says which news other instances missed when the storage cannot take it', async () => {
    const store = new MemoryStore();
    const logger = recordingLogger();
    const relay = relayListChanges({ store, namespace: 'ns', path: '/tools', logger, deliver: () => undefined });
    await store.close();
    relay.announce(['tools', 'prompts'], { tools: [null], prompts: [null] });
    await settle();
    assert.match(logger.lines.join('\n'), /warn clients on other instances were not told that the tools, prompts list\(s\) of \/tools changed: storage unavailable \(closed\)/);
  });
});
