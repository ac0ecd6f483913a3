// `npm run start:oauth`: a DEMO of the OAuth sign-in on this computer. Like `npm start`, plus a
// development OpenID provider (scripts/demo-idp.mjs) with one demo user, and next to the example's
// Local endpoint a second endpoint with OAuth sign-in and a `whoami` tool (scripts/demo-flow.mjs).
// Everything listens on 127.0.0.1 only and lives in memory and in a throwaway user directory that
// Ctrl+C deletes; the bridge's client secret and the demo password are made for each run.
//
//   NODE_RED_PORT  editor port (default 1880)
//   MCP_PORT       port of the MCP runtime serving both endpoints (default 1881)
//   DEMO_IDP_PORT  port of the demo identity provider (default 1882)
//   --host ADDR    only 127.0.0.1 is accepted: the demo user's password is printed in the terminal
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEMO_HOST, startDemoIdp } from './demo-idp.mjs';
import { DEMO_PATH, DEMO_SECRET_ENV, DEMO_SERVER_NAME, DEMO_SLUG, DEMO_TOOL, demoFlow } from './demo-flow.mjs';
import { linkPalette, portFromEnv, root, startNodeRed, writeDevSettings } from './node-red-dev.mjs';
import { portInUse, probeEndpoint } from './start-endpoints.mjs';

const EXAMPLE_RUNTIME_ID = '5a1e0c7d2b3f4e02';
const DEMO_GROUP = 'mcp-demo';
const DEMO_CLIENT_ID = 'node-red-mcp-demo-bridge';
const SERVED_DEADLINE_MS = 20_000;

const host = hostArgument(process.argv.slice(2));
if (host !== DEMO_HOST) {
  console.error(`start:oauth is a demo and listens on ${DEMO_HOST} only (asked for ${JSON.stringify(host)}): its user's password is printed here and its storage is memory. For a shared server, follow "Sign-in for shared servers (OAuth)" in docs/sign-in.md with your own identity provider.`);
  process.exit(2);
}
const editorPort = portFromEnv('NODE_RED_PORT', 1880);
const mcpPort = portFromEnv('MCP_PORT', 1881);
const idpPort = portFromEnv('DEMO_IDP_PORT', 1882);

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

async function main() {
  for (const [name, port] of [['NODE_RED_PORT', editorPort], ['MCP_PORT', mcpPort], ['DEMO_IDP_PORT', idpPort]]) {
    if (await portInUse(DEMO_HOST, port)) {
      console.error(`Port ${port} on ${DEMO_HOST} is in use by another program: set ${name} to a free port.`);
      process.exit(1);
    }
  }

  const base = `http://${DEMO_HOST}:${mcpPort}`;
  const user = { username: 'demo', password: randomBytes(9).toString('base64url'), email: 'demo@example.com', name: 'Demo User', groups: [DEMO_GROUP] };
  const clientSecret = randomBytes(32).toString('hex');
  const idp = await startDemoIdp({
    port: idpPort,
    user,
    client: { clientId: DEMO_CLIENT_ID, clientSecret, redirectUri: `${base}/oauth/${DEMO_SLUG}/callback` },
  });

  const userDir = mkdtempSync(join(tmpdir(), 'node-red-mcp-oauth-demo-'));
  linkPalette(userDir);
  // OAuth needs the runtime's Base URL: the address clients reach it at, here loopback.
  const example = JSON.parse(readFileSync(join(root, 'examples', 'two-tools.json'), 'utf8')).map((node) =>
    node.id === EXAMPLE_RUNTIME_ID ? { ...node, port: String(mcpPort), host: DEMO_HOST, baseUrl: base } : node,
  );
  const flows = [...example, ...demoFlow({ runtimeId: EXAMPLE_RUNTIME_ID, issuer: idp.issuer, clientId: DEMO_CLIENT_ID, group: DEMO_GROUP })];
  writeFileSync(join(userDir, 'flows.json'), JSON.stringify(flows, null, 4));
  writeDevSettings(userDir, editorPort, 'scripts/start-oauth.mjs');

  startNodeRed(userDir, {
    // The secret reaches the mcp-auth node as an MCP_* variable: it is in no file and never printed.
    env: { [DEMO_SECRET_ENV]: clientSecret },
    onStarted: () => announce(base, idp.issuer, user).catch((error) => console.error(`could not check the MCP endpoints: ${error.message}`)),
    onExit: async () => {
      await idp.stop();
      rmSync(userDir, { recursive: true, force: true });
    },
  });
}

async function announce(base, issuer, user) {
  const localUrl = `${base}/mcp`;
  const oauthUrl = `${base}${DEMO_PATH}`;
  const [local, oauth] = await Promise.all([probeEndpoint(localUrl), waitForSignInMetadata(oauthUrl)]);
  if (local.problem || oauth.problem) {
    console.error(`\n  The demo endpoints are NOT serving: ${[local.problem, oauth.problem].filter(Boolean).join('; ')}\n`);
    return;
  }
  console.log(`
  ===== DEMO: OAuth sign-in on this computer (development only, ${DEMO_HOST} only) =====
  Node-RED editor:    http://${DEMO_HOST}:${editorPort}/   (tab "Sign-in demo")
  Local endpoint:     ${localUrl}   (tools: ${(local.tools ?? []).join(', ')})
  OAuth endpoint:     ${oauthUrl}   (tool: ${DEMO_TOOL}; group: ${DEMO_GROUP})
  Demo provider:      ${issuer}   (in memory; forgotten on Ctrl+C)

  1. claude mcp add --transport http ${DEMO_SERVER_NAME} ${oauthUrl}
  2. In Claude Code, run /mcp, pick ${DEMO_SERVER_NAME}, sign in in the browser with
       user name: ${user.username}
       password:  ${user.password}
     and approve the client on the bridge's consent page.
  3. Ask: "call the ${DEMO_TOOL} tool of ${DEMO_SERVER_NAME}"; it answers with ${user.email}.
  (Codex: codex mcp add ${DEMO_SERVER_NAME} --url ${oauthUrl} --oauth-client-registration dcr
   starts the same sign-in; Codex registers itself with the demo.)
  No internet needed: Claude Code's client metadata document is pinned in the demo's mcp auth.
`);
}

/** The endpoint serves once its protected-resource metadata answers (it starts just after "Started flows"). */
async function waitForSignInMetadata(url) {
  const parsed = new URL(url);
  const metadataUrl = `${parsed.origin}/.well-known/oauth-protected-resource${parsed.pathname}`;
  const deadline = Date.now() + SERVED_DEADLINE_MS;
  let problem = 'no answer';
  while (Date.now() < deadline) {
    try {
      const response = await fetch(metadataUrl);
      if (response.ok && (await response.json()).resource === url) return {};
      problem = `HTTP ${response.status} for ${metadataUrl}; see the Node-RED log and the node status`;
    } catch (error) {
      problem = `${error.cause?.code ?? error.message}; see the Node-RED log and the node status`;
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return { problem };
}

/** `--host ADDR` or `--host=ADDR`; the default is the only address accepted. */
function hostArgument(args) {
  for (let index = 0; index < args.length; index += 1) {
    if (args[index] === '--host') return args[index + 1] ?? '';
    if (args[index].startsWith('--host=')) return args[index].slice('--host='.length);
  }
  return DEMO_HOST;
}
