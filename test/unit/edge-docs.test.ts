// What docs/edge-relay.md, the flow-server help and the edge examples tell a user about edges, against what
// ships: the liveness figure the hub logs, the Redis ACL recipe, and ports the examples bind.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { describe, it, mock } from 'node:test';
import { setImmediate as flush } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { EdgeHub } from '../../lib/edge/edge-hub.js';
import { siteChannel } from '../../lib/edge/edge-protocol.js';
import { MemoryStore } from '../../lib/storage/memory-store.js';
import { recordingLogger } from '../support/recording-logger.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');
/** A help text on one line, as the editor shows it. */
const help = (language: string) => read('locales', language, 'mcp-flow-server.html').replace(/\s+/g, ' ');
/** The edge page of the docs, on one line. */
const edgePage = read('docs', 'edge-relay.md').replace(/\s+/g, ' ');

/** The figure, in seconds, a hub writes to its log when it forgets a silent site. */
async function loggedLivenessSeconds(): Promise<string> {
  mock.timers.enable({ apis: ['setInterval', 'Date'], now: 1_000_000 });
  const store = new MemoryStore();
  const logger = recordingLogger();
  const hub = new EdgeHub({
    store,
    sites: ['plant-a'],
    naming: '{site}.{tool}',
    maxPendingPerSite: 1,
    endpoint: '/hub',
    logger,
    onToolsChanged: () => undefined,
    deliver: () => 'unknown',
    failSite: () => undefined,
    ask: () => 'unknown',
  });
  try {
    await store.publish(siteChannel('plant-a', 'announce'), JSON.stringify({ t: 'announce', site: 'plant-a', instance: 'i', tools: [] }));
    await flush();
    for (let second = 0; second < 60 && !logger.lines.some((line) => line.includes('stopped answering')); second += 1) mock.timers.tick(1_000);
    const figure = /no announcement for ([\d.]+) s/.exec(logger.lines.join('\n'))?.[1];
    assert.ok(figure, logger.lines.join('\n'));
    return figure;
  } finally {
    hub.close();
    mock.timers.reset();
    await store.close();
  }
}

describe('what the docs say about edges', () => {
  it('gives the liveness window the hub logs, in the docs and the help of every language', async () => {
    const seconds = await loggedLivenessSeconds();
    assert.match(edgePage, new RegExp(`A hub forgets a site it has not heard from for ${seconds.replace('.', '\\.')} s`));
    assert.match(help('en-US'), new RegExp(`not heard from for ${seconds.replace('.', '\\.')} s`));
    assert.match(help('de'), new RegExp(`${seconds.replace('.', ',')} s lang nichts gehört`));
    assert.match(help('ja'), new RegExp(`${seconds.replace('.', '\\.')}秒間通知のないサイト`));
  });

  it("turns Redis's default user off in the ACL recipe, before the edge users", () => {
    const off = edgePage.indexOf('ACL SETUSER default off');
    assert.ok(off > 0, 'the recipe turns the default user off');
    assert.ok(off < edgePage.indexOf('ACL SETUSER plant-a '), 'before the first edge user');
  });

  it('binds no example runtime to a port other programs on a Node-RED machine use (MQTT, the editor)', () => {
    const taken = new Map([['1880', 'the Node-RED editor'], ['1883', 'MQTT'], ['8883', 'MQTT over TLS']]);
    for (const file of readdirSync(join(root, 'examples')).filter((name) => name.endsWith('.json'))) {
      const flow = JSON.parse(read('examples', file)) as Array<{ type: string; port?: string; info?: string }>;
      for (const node of flow.filter((entry) => entry.type === 'mcp-runtime')) {
        assert.equal(taken.get(String(node.port)), undefined, `${file} binds ${node.port}`);
      }
      for (const port of taken.keys()) assert.doesNotMatch(flow.map((node) => node.info ?? '').join(' '), new RegExp(`127\\.0\\.0\\.1:${port}/`), `${file} points at ${port}`);
    }
    // The edge pair runs in one Node-RED for a try: their runtimes differ.
    const edgePorts = ['edge-hub.json', 'edge-site.json'].map((file) => (JSON.parse(read('examples', file)) as Array<{ type: string; port?: string }>).find((node) => node.type === 'mcp-runtime')?.port);
    assert.notEqual(edgePorts[0], edgePorts[1]);
  });
});
