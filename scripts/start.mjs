// `npm start`: Node-RED from this repo's dev dependencies, a throwaway user directory with this
// package linked in, and the example flow deployed. Ctrl+C stops it and removes the directory.
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const editorPort = Number(process.env.NODE_RED_PORT ?? 1880);
const userDir = mkdtempSync(join(tmpdir(), 'node-red-mcp-'));

mkdirSync(join(userDir, 'node_modules', '@flowmcp'), { recursive: true });
symlinkSync(root, join(userDir, 'node_modules', '@flowmcp', 'node-red-mcp'), 'dir');
copyFileSync(join(root, 'examples', 'two-tools.json'), join(userDir, 'flows.json'));
writeFileSync(
  join(userDir, 'settings.js'),
  `module.exports = ${JSON.stringify({ uiHost: '127.0.0.1', uiPort: editorPort, flowFile: 'flows.json', credentialSecret: false }, null, 2)};\n`,
);

const redJs = require.resolve('node-red/red.js');
const child = spawn(process.execPath, [redJs, '--userDir', userDir, '--settings', join(userDir, 'settings.js')], {
  stdio: ['ignore', 'pipe', 'inherit'],
});
let announced = false;
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk);
  if (!announced && chunk.toString().includes('Started flows')) {
    announced = true;
    console.log(`
  Node-RED editor:  http://127.0.0.1:${editorPort}/
  MCP endpoint:     http://127.0.0.1:1881/mcp   (tools: add_numbers, greet)
  Try it:           claude mcp add --transport http node-red http://127.0.0.1:1881/mcp
`);
  }
});

const cleanup = () => rmSync(userDir, { recursive: true, force: true });
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
child.on('exit', (code) => {
  cleanup();
  process.exit(code ?? 0);
});
