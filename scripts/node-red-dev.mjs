// What `npm start` (scripts/start.mjs) and `npm run start:oauth` (scripts/start-oauth.mjs) share:
// port variables, this checkout linked into a user directory, the development settings, and Node-RED
// started from this repository's dev dependencies.
import { spawn } from 'node:child_process';
import { mkdirSync, readlinkSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, isAbsolute, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);

/** The port in the environment variable `name`, or `fallback`; anything else stops the start. */
export function portFromEnv(name, fallback) {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    console.error(`${name} must be a port number (1-65535)`);
    process.exit(2);
  }
  return value;
}

/** Links this checkout into `userDir` as @flowmcp/node-red-mcp (kept when it already points here). */
export function linkPalette(userDir) {
  mkdirSync(join(userDir, 'node_modules', '@flowmcp'), { recursive: true });
  const link = join(userDir, 'node_modules', '@flowmcp', 'node-red-mcp');
  if (linkTarget(link) !== root) {
    rmSync(link, { recursive: true, force: true });
    symlinkSync(root, link, 'dir');
  }
}

/**
 * settings.cjs for a development Node-RED whose editor listens on 127.0.0.1:editorPort. CommonJS by
 * its extension: the default user directory (.node-red-dev/) sits inside this ESM package, where a
 * settings.js would be loaded as an ES module and fail on `module.exports`.
 */
export function writeDevSettings(userDir, editorPort, writtenBy) {
  const settings = {
    uiHost: '127.0.0.1',
    uiPort: editorPort,
    flowFile: 'flows.json',
    // Development only: credentials stay readable in the user directory.
    credentialSecret: false,
    // No welcome tour, no telemetry question and no "new Node-RED version" prompt: this Node-RED's
    // version is the one this repository pins.
    editorTheme: { tours: false },
    telemetry: { enabled: false, updateNotification: false },
    // The palette is linked from this checkout; an "update" from the catalogue would replace the link.
    externalModules: { palette: { denyUpdateList: ['@flowmcp/node-red-mcp'] } },
  };
  writeFileSync(join(userDir, 'settings.cjs'), `// Written by ${writtenBy} on every start.\nmodule.exports = ${JSON.stringify(settings, null, 2)};\n`);
}

/**
 * Starts Node-RED on `userDir`, its output passed through; `onStarted` runs once, when Node-RED
 * reports "Started flows". Ctrl+C (SIGINT/SIGTERM) stops it; `onExit(code)` runs when it has
 * stopped, then this process exits with its code. `env` is added to Node-RED's environment.
 */
export function startNodeRed(userDir, { env = {}, onStarted, onExit = async () => {} }) {
  // NODE_RED_PACKAGE (a path) lets the Node-RED 5 test leg run these scripts on its Node-RED.
  const nodeRedDir = process.env.NODE_RED_PACKAGE && isAbsolute(process.env.NODE_RED_PACKAGE)
    ? process.env.NODE_RED_PACKAGE
    : dirname(require.resolve('node-red/package.json'));
  const child = spawn(process.execPath, [join(nodeRedDir, 'red.js'), '--userDir', userDir, '--settings', join(userDir, 'settings.cjs')], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, ...env },
  });
  let started = false;
  child.stdout.on('data', (chunk) => {
    process.stdout.write(chunk);
    if (!started && chunk.toString().includes('Started flows')) {
      started = true;
      onStarted();
    }
  });
  for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => child.kill(signal));
  child.on('exit', (code) => {
    onExit(code).finally(() => process.exit(code ?? 0));
  });
  return child;
}

function linkTarget(path) {
  try {
    return readlinkSync(path);
  } catch {
    return undefined;
  }
}
