// `npm start`: Node-RED from this repo's dev dependencies with this package linked in, and the
// example flow on first run. What the user builds is kept between runs in .node-red-dev/ (git-ignored);
// `--clean` (`npm run start:clean`) starts again from the example. The MCP URL is announced only once
// a probe got an MCP answer from it, so a port already taken is reported instead of advertised.
//
//   NODE_RED_PORT     editor port (default 1880)
//   MCP_PORT          port of the example's mcp-runtime (the example has 1881), applied on every
//                     start while it is set
//   NODE_RED_DEV_DIR  the user directory (default .node-red-dev/ in this repository)
import { copyFileSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { linkPalette, portFromEnv, root, startNodeRed, writeDevSettings } from './node-red-dev.mjs';
import { endpointsOf, portInUse, probeEndpoint } from './start-endpoints.mjs';

const EXAMPLE_RUNTIME_ID = '5a1e0c7d2b3f4e02';

const clean = process.argv.includes('--clean');
const editorPort = portFromEnv('NODE_RED_PORT', 1880);
const mcpPort = process.env.MCP_PORT === undefined ? undefined : portFromEnv('MCP_PORT', 1881);
const userDir = resolve(process.env.NODE_RED_DEV_DIR ?? join(root, '.node-red-dev'));
const flowFile = join(userDir, 'flows.json');
const shownDir = relative(process.cwd(), userDir).startsWith('..') ? userDir : relative(process.cwd(), userDir) || '.';

if (clean) {
  rmSync(userDir, { recursive: true, force: true });
  console.log(`--clean: removed ${shownDir}, starting again from the example flow`);
}
linkPalette(userDir);

if (!existsSync(flowFile)) copyFileSync(join(root, 'examples', 'two-tools.json'), flowFile);
if (mcpPort !== undefined) {
  // Only while MCP_PORT is set, so a port changed in the editor survives a restart without it.
  const flows = readFlows();
  const exampleRuntime = flows.find((node) => node.id === EXAMPLE_RUNTIME_ID && node.type === 'mcp-runtime');
  if (exampleRuntime) {
    exampleRuntime.port = String(Number(mcpPort));
    writeFileSync(flowFile, JSON.stringify(flows, null, 4));
  }
}

writeDevSettings(userDir, editorPort, 'scripts/start.mjs');

/** The saved flows; a file the user broke by hand stops the start with a hint, and is left as it is. */
function readFlows() {
  try {
    const flows = JSON.parse(readFileSync(flowFile, 'utf8'));
    if (Array.isArray(flows)) return flows;
    if (Array.isArray(flows?.flows)) return flows.flows;
    throw new Error('not a list of nodes');
  } catch (error) {
    console.error(`${join(shownDir, 'flows.json')} cannot be read (${error.message}): fix it, or start again from the example with \`npm run start:clean\` (which deletes it).`);
    process.exit(1);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});

async function main() {
  if (await portInUse('127.0.0.1', editorPort)) {
    console.error(`The editor port ${editorPort} on 127.0.0.1 is in use by another program: set NODE_RED_PORT to a free port.`);
    process.exit(1);
  }
  // Checked before Node-RED takes its own ports, so another program's server is never announced as ours.
  const endpoints = endpointsOf(readFlows());
  for (const endpoint of endpoints) {
    if (await portInUse(endpoint.host, endpoint.port)) {
      endpoint.problem = `port ${endpoint.port} on ${endpoint.host} is in use by another program; set MCP_PORT to a free port`;
    }
  }

  startNodeRed(userDir, {
    onStarted: () => announce(endpoints).catch((error) => console.error(`could not check the MCP endpoints: ${error.message}`)),
  });
}

async function announce(endpoints) {
  const lines = [`  Node-RED editor:  http://127.0.0.1:${editorPort}/`];
  for (const endpoint of endpoints) {
    const found = endpoint.problem ? { problem: endpoint.problem } : await probeEndpoint(endpoint.url);
    if (found.problem) {
      lines.push(`  MCP endpoint NOT serving: ${endpoint.url} (${found.problem})`);
      continue;
    }
    const tools = found.tools ? `   (tools: ${found.tools.join(', ') || 'none'})` : '   (OAuth sign-in)';
    lines.push(`  MCP endpoint:     ${endpoint.url}${tools}`);
    lines.push(`  Try it:           claude mcp add --transport http ${endpoint.name} ${endpoint.url}`);
  }
  lines.push(`  Your flows are kept in ${shownDir}/ between runs; \`npm run start:clean\` starts again from the example.`);
  console.log(`\n${lines.join('\n')}\n`);
}
