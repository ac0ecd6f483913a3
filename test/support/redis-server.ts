import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { freePort } from './ports.js';

export interface RedisServer {
  /** redis://127.0.0.1:<port>, without the password (tests pass that separately). */
  readonly url: string;
  readonly port: number;
  /** false when REDIS_URL points at a server we did not start: stop/restart throw, outage tests skip. */
  readonly controllable: boolean;
  /** Kills the server and waits until it has exited (idempotent). */
  stop(): Promise<void>;
  /** Stops it, then starts a fresh, empty one on the same port and waits until it answers. */
  restart(): Promise<void>;
  /** SIGSTOP: the socket stays open but nothing answers, like a hung or overloaded server. */
  freeze(): void;
  /** SIGCONT after freeze(). */
  thaw(): void;
}

export interface StartRedisOptions {
  /** Starts the server with `requirepass`; only possible with a spawned redis-server. */
  readonly password?: string;
  /**
   * ACL users, one `user ...` line each (as in an ACL file, without the leading `user `). They are
   * written to an ACL file the server loads at every start, so they survive restart(). The default
   * user stays open (no password, everything allowed) unless a line redefines `default`.
   */
  readonly aclUsers?: readonly string[];
}

const START_TIMEOUT_MS = 10_000;
const STOP_TIMEOUT_MS = 5_000;

/**
 * A real Redis for the runtime tests: `redis-server` from PATH on a free loopback port, no
 * persistence, or the server named by REDIS_URL when redis-server is not installed.
 */
export async function startRedis(options: StartRedisOptions = {}): Promise<RedisServer> {
  const binary = findOnPath('redis-server');
  if (binary === undefined) {
    const external = process.env.REDIS_URL;
    if (!external) throw new Error('redis-server not found on PATH; install redis or set REDIS_URL');
    if (options.password !== undefined) throw new Error('a password-protected Redis needs redis-server on PATH');
    if (options.aclUsers !== undefined) throw new Error('a Redis with ACL users needs redis-server on PATH');
    return externalServer(external);
  }
  const port = await freePort();
  const aclFile = options.aclUsers ? writeAclFile(options.aclUsers) : undefined;
  let child = await spawnRedis(port, options.password, aclFile);
  const stop = async () => {
    await stopChild(child);
  };
  return {
    url: `redis://127.0.0.1:${port}`,
    port,
    controllable: true,
    stop,
    async restart() {
      await stop();
      child = await spawnRedis(port, options.password, aclFile);
    },
    freeze: () => void child.kill('SIGSTOP'),
    thaw: () => void child.kill('SIGCONT'),
  };
}

function externalServer(url: string): RedisServer {
  const refuse = () => Promise.reject(new Error('cannot stop or restart the Redis at REDIS_URL'));
  const refuseNow = () => {
    throw new Error('cannot freeze the Redis at REDIS_URL');
  };
  return { url, port: Number(new URL(url).port || 6379), controllable: false, stop: refuse, restart: refuse, freeze: refuseNow, thaw: refuseNow };
}

function writeAclFile(users: readonly string[]): string {
  const lines = users.map((line) => `user ${line}`);
  if (!users.some((line) => line.startsWith('default '))) lines.unshift('user default on nopass ~* &* +@all');
  const file = join(mkdtempSync(join(tmpdir(), 'redis-acl-')), 'users.acl');
  writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}

async function spawnRedis(port: number, password: string | undefined, aclFile: string | undefined): Promise<ChildProcess> {
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', tmpdir()];
  if (password !== undefined) args.push('--requirepass', password);
  if (aclFile !== undefined) args.push('--aclfile', aclFile);
  return await spawnRedisProcess(args, port);
}

/**
 * Starts `redis-server <args>` (a data node, or a sentinel with `<conf> --sentinel`) and waits until
 * it answers PING on `port`; killed with the test process if the test crashes.
 */
export async function spawnRedisProcess(args: readonly string[], port: number): Promise<ChildProcess> {
  const binary = findOnPath('redis-server');
  if (binary === undefined) throw new Error('redis-server not found on PATH; install redis');
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const collect = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-4_000);
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  // A crashed test run must not leave a redis-server behind holding the port.
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  child.once('exit', () => process.removeListener('exit', killOnExit));

  const deadline = Date.now() + START_TIMEOUT_MS;
  while (Date.now() < deadline) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`redis-server exited during start (${child.exitCode ?? child.signalCode}):\n${output}`);
    }
    if (await answersPing(port)) return child;
    await delay(50);
  }
  await stopChild(child);
  throw new Error(`redis-server did not answer PING on port ${port} within ${START_TIMEOUT_MS} ms:\n${output}`);
}

/** One raw PING; a NOAUTH reply also means the server accepts connections. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let reply = '';
    const finish = (answer: boolean) => {
      socket.destroy();
      resolve(answer);
    };
    socket.setTimeout(1_000, () => finish(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString();
      if (reply.includes('\r\n')) finish(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
    socket.once('error', () => finish(false));
    socket.once('close', () => finish(false));
  });
}

export async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A frozen server would hold SIGTERM until thawed.
  child.kill('SIGCONT');
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** Tests that stop Redis or set its password need a redis-server of their own. */
export function redisServerOnPath(): boolean {
  return findOnPath('redis-server') !== undefined;
}

function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, command);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}
