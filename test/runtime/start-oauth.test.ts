// `npm run start:oauth` (scripts/start-oauth.mjs) as a newcomer uses it: started on free ports, it
// prints how to connect; the official MCP client then signs in through the demo provider's own login
// page with the printed user name and password, and the demo tool answers with the user's e-mail.
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { connect } from '../support/mcp-http.js';
import { nodeRedPackage } from '../support/node-red-process.js';
import { RegisteringOAuthProvider, signedInClient } from '../support/oauth-client.js';
import { freePort } from '../support/ports.js';
import { runScript, type StartedScript } from '../support/script-process.js';
import { CookieJar } from '../support/test-idp.js';

/** What the demo user does in the browser at the provider: fill in the login form and submit it. */
async function signInAtDemoProvider(providerUrl: string, username: string, password: string): Promise<string> {
  const redirectUri = new URL(providerUrl).searchParams.get('redirect_uri');
  if (!redirectUri) throw new Error('authorization URL has no redirect_uri');
  const jar = new CookieJar();
  let next = new URL(providerUrl);
  for (let hop = 0; hop < 12; hop += 1) {
    let response = await fetch(next, { redirect: 'manual', headers: jar.header(next) });
    jar.store(next, response.headers.getSetCookie());
    if (response.status === 200 && /\/interaction\/[\w-]+$/.test(next.pathname)) {
      const page = await response.text();
      assert.match(page, /DEMO identity provider/);
      assert.match(page, /<input name="username"[^>]*>[\s\S]*<input name="password" type="password"/);
      const post = (pass: string) =>
        fetch(next, {
          method: 'POST',
          redirect: 'manual',
          headers: { ...jar.header(next), 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ username, password: pass }).toString(),
        });
      const wrong = await post(`${password}-wrong`);
      assert.equal(wrong.status, 401);
      assert.match(await wrong.text(), /Wrong user name or password/);
      response = await post(password);
      jar.store(next, response.headers.getSetCookie());
    }
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) {
      throw new Error(`sign-in stopped at ${next.pathname} with HTTP ${response.status}: ${(await response.text()).slice(0, 500)}`);
    }
    await response.body?.cancel();
    const target = new URL(location, next);
    if (target.href.startsWith(redirectUri)) return target.href;
    next = target;
  }
  throw new Error('sign-in did not reach the bridge after 12 redirects');
}

describe(`npm run start:oauth (scripts/start-oauth.mjs) on ${nodeRedPackage}`, () => {
  let demo: StartedScript;
  let printed: RegExpExecArray;
  let mcpPort = 0;

  before(async () => {
    mcpPort = await freePort();
    const env = { NODE_RED_PORT: String(await freePort()), MCP_PORT: String(mcpPort), DEMO_IDP_PORT: String(await freePort()) };
    demo = runScript('start-oauth.mjs', env);
    printed = await demo.waitFor(/claude mcp add --transport http (\S+) (\S+)\n[\s\S]*?user name: (\S+)\n\s*password: +(\S+)\n[\s\S]*?answers with (\S+)\.\n/);
  });
  after(async () => {
    await demo?.interrupt();
  });

  it('prints the OAuth endpoint next to the Local one, marked as a demo', () => {
    const output = demo.output();
    assert.match(output, /DEMO: OAuth sign-in on this computer \(development only, 127\.0\.0\.1 only\)/);
    assert.match(output, new RegExp(`Local endpoint: +http://127\\.0\\.0\\.1:${mcpPort}/mcp +\\(tools: add_numbers, greet\\)`));
    assert.equal(printed[2], `http://127.0.0.1:${mcpPort}/oauth-demo`);
  });

  it('lets the official client sign in as the printed demo user and call whoami, which answers with their e-mail', async () => {
    const [, , oauthUrl, username, password, email] = printed;
    const provider = new RegisteringOAuthProvider(await freePort(), 'start:oauth test client');
    const client = await signedInClient(oauthUrl!, provider, { signIn: (url) => signInAtDemoProvider(url, username!, password!) }, username!);
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), ['whoami']);
      const result = await client.callTool({ name: 'whoami', arguments: {} });
      assert.equal(email, 'demo@example.com');
      assert.equal((result.content as Array<{ text: string }>)[0]!.text, 'You are signed in as demo@example.com (groups: mcp-demo)');
    } finally {
      await client.close();
    }
    // The Local endpoint next to it still answers without a sign-in.
    const local = await connect(`http://127.0.0.1:${mcpPort}/mcp`, 'legacy');
    try {
      assert.deepEqual((await local.listTools()).tools.map((tool) => tool.name).sort(), ['add_numbers', 'greet']);
    } finally {
      await local.close();
    }
  });

  it('removes its user directory on Ctrl+C', async () => {
    const userDir = /User directory : (\S+)/.exec(demo.output())?.[1];
    assert.ok(userDir && existsSync(userDir), 'Node-RED names the demo user directory');
    assert.equal(await demo.interrupt(), 0);
    assert.equal(existsSync(userDir), false);
  });
});

describe('npm run start:oauth refuses to listen beyond loopback', () => {
  for (const args of [['--host', '0.0.0.0'], ['--host=192.168.1.10'], ['--host', '::']]) {
    it(`refuses ${args.join(' ')} before starting anything`, async () => {
      const script = runScript('start-oauth.mjs', { NODE_RED_PORT: String(await freePort()), MCP_PORT: String(await freePort()), DEMO_IDP_PORT: String(await freePort()) }, args);
      try {
        // A script that did start Node-RED fails here instead of hanging the test.
        const outcome = await Promise.race([script.exited(), script.waitFor(/Welcome to Node-RED/).then(() => 'started Node-RED')]);
        assert.equal(outcome, 2);
        assert.match(script.output(), /start:oauth is a demo and listens on 127\.0\.0\.1 only/);
        assert.doesNotMatch(script.output(), /password: /);
      } finally {
        await script.interrupt();
      }
    });
  }
});
