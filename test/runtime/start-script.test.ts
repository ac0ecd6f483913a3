// `npm start`'s script (scripts/start.mjs) as a newcomer uses it: on ports chosen by environment
// variables, announcing the MCP URL only when it serves, keeping the user's flows across a Ctrl+C,
// and starting again from the example with --clean. It runs the working tree's build (linked, as
// `npm start` does), on the Node-RED under test.
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { connect } from '../support/mcp-http.js';
import { nodeRedPackage, type FlowNode } from '../support/node-red-process.js';
import { freePort } from '../support/ports.js';
import { runScript, type StartedScript } from '../support/script-process.js';

const GREET_FUNCTION = '5a1e0c7d2b3f4e08';

const runStartScript = (env: Record<string, string>, args: string[] = []): StartedScript => runScript('start.mjs', env, args);

async function greet(url: string): Promise<unknown> {
  const client = await connect(url, 'legacy');
  try {
    const result = await client.callTool({ name: 'greet', arguments: { name: 'Ada' } });
    return result.content;
  } finally {
    await client.close();
  }
}

describe(`npm start (scripts/start.mjs) on ${nodeRedPackage}`, () => {
  let userDir = '';
  let env: Record<string, string> = {};
  let editorUrl = '';
  let mcpUrl = '';
  const running = new Set<StartedScript>();
  const start = (args: string[] = [], extraEnv: Record<string, string> = {}) => {
    const script = runStartScript({ ...env, ...extraEnv }, args);
    running.add(script);
    return script;
  };
  const stop = async (script: StartedScript) => {
    await script.interrupt();
    running.delete(script);
  };

  before(async () => {
    const parent = mkdtempSync(join(tmpdir(), 'nr-mcp-start-'));
    // The default user directory (.node-red-dev/) lies inside this ESM package; the test's directory
    // does too, so a settings file that only loads as CommonJS outside such a package fails here.
    writeFileSync(join(parent, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    userDir = join(parent, 'dev');
    const editorPort = await freePort();
    const mcpPort = await freePort();
    env = { NODE_RED_PORT: String(editorPort), MCP_PORT: String(mcpPort), NODE_RED_DEV_DIR: userDir };
    editorUrl = `http://127.0.0.1:${editorPort}`;
    mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  });
  // A failed test still stops its Node-RED, so the next test finds the ports free.
  afterEach(async () => {
    for (const script of running) await stop(script);
  });
  after(() => rmSync(join(userDir, '..'), { recursive: true, force: true }));

  it('serves on the ports it was given, announces the MCP URL, answers a tool, and keeps the user\'s edit across Ctrl+C', async () => {
    const first = start();
    const [, announced] = await first.waitFor(/MCP endpoint: +(http\S+) +\(tools: ([^)]*)\)/);
    assert.equal(announced, mcpUrl);
    assert.match(first.output(), new RegExp(`Node-RED editor: +${editorUrl}/`));
    assert.match(first.output(), /\(tools: add_numbers, greet\)/);
    assert.deepEqual(await greet(mcpUrl), [{ type: 'text', text: 'Hello, Ada!' }]);

    // No welcome tour, no telemetry question (and so no update check or prompt).
    const settings = (await (await fetch(`${editorUrl}/settings`)).json()) as { editorTheme?: { tours?: unknown }; telemetryEnabled?: unknown };
    assert.equal(settings.editorTheme?.tours, false);
    assert.equal(settings.telemetryEnabled, false);

    // The newcomer changes the greeting and deploys, as the editor does.
    const flows = (await (await fetch(`${editorUrl}/flows`, { headers: { 'node-red-api-version': 'v1' } })).json()) as FlowNode[];
    const greetFunction = flows.find((node) => node.id === GREET_FUNCTION)!;
    greetFunction.func = String(greetFunction.func).replace('Hello, ', 'Howdy, ');
    const since = first.output().length;
    const deployed = await fetch(`${editorUrl}/flows`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'node-red-api-version': 'v1', 'node-red-deployment-type': 'full' },
      body: JSON.stringify(flows),
    });
    assert.equal(deployed.status, 204);
    // A full deploy restarts the endpoint after "Started flows"; it logs its tools once it serves again.
    await first.waitFor(new RegExp(`\\] 2 tools on ${mcpUrl.replace(/[.]/g, '\\.')}`), since);
    assert.deepEqual(await greet(mcpUrl), [{ type: 'text', text: 'Howdy, Ada!' }]);
    await stop(first);

    const second = start();
    assert.equal((await second.waitFor(/MCP endpoint: +(http\S+) +\(tools/))[1], mcpUrl);
    assert.deepEqual(await greet(mcpUrl), [{ type: 'text', text: 'Howdy, Ada!' }], 'the edit survived the restart');
    await stop(second);
  });

  it('--clean starts again from the example flow', async () => {
    const clean = start(['--clean']);
    assert.equal((await clean.waitFor(/MCP endpoint: +(http\S+) +\(tools/))[1], mcpUrl);
    assert.deepEqual(await greet(mcpUrl), [{ type: 'text', text: 'Hello, Ada!' }]);
    await stop(clean);
  });

  it('does not announce an MCP URL whose port another program holds, and says what to do', async () => {
    const blocker: Server = createServer();
    await new Promise<void>((resolve) => blocker.listen(Number(env.MCP_PORT), '127.0.0.1', resolve));
    try {
      const blocked = start();
      const [line] = await blocked.waitFor(/MCP endpoint NOT serving: .*\n/);
      assert.match(line, new RegExp(`${mcpUrl} \\(port ${env.MCP_PORT} on 127.0.0.1 is in use by another program; set MCP_PORT`));
      assert.doesNotMatch(blocked.output(), /MCP endpoint: +http/);
      assert.doesNotMatch(blocked.output(), /claude mcp add/);
      await stop(blocked);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
    }
  });
});
