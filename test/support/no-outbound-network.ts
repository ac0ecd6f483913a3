// Loaded with `node --import` into a process (and, through NODE_OPTIONS, every Node process it
// starts) to cut it off from everything but loopback, the way a machine with no internet is, and to
// write down each attempt to go further. A test then knows that nothing was even tried, which a
// machine that merely has no internet cannot tell it (a lookup that fails looks like one never made).
//
// OUTBOUND_LOG names the file: `armed <pid>` when a process loads this, `dns <host>` for a host name
// lookup and `connect <host>:<port>` for a TCP connection beyond loopback. Each is then refused as
// an offline machine refuses it (ENOTFOUND, ENETUNREACH).
import { appendFileSync } from 'node:fs';
import dns from 'node:dns';
import { syncBuiltinESMExports } from 'node:module';
import net from 'node:net';

export const OUTBOUND_LOG_ENV = 'OUTBOUND_LOG';

const log = process.env[OUTBOUND_LOG_ENV];
if (log) {
  appendFileSync(log, `armed ${process.pid}\n`);
  const record = (line: string) => appendFileSync(log, `${line}\n`);
  const isLoopback = (host: string) => {
    const bare = host.replace(/^\[|\]$/g, '').toLowerCase();
    return bare === 'localhost' || bare === '::1' || /^(::ffff:)?127\.\d+\.\d+\.\d+$/.test(bare);
  };
  const offline = (host: string) => Object.assign(new Error(`getaddrinfo ENOTFOUND ${host} (no network in this test)`), { code: 'ENOTFOUND', hostname: host });

  const lookup = dns.lookup;
  dns.lookup = function guardedLookup(host: string, ...rest: unknown[]) {
    if (isLoopback(String(host)) || net.isIP(String(host)) !== 0) return (lookup as Function).call(dns, host, ...rest);
    record(`dns ${host}`);
    const callback = rest.at(-1) as (error: Error) => void;
    process.nextTick(() => callback(offline(String(host))));
    return {} as never;
  } as typeof dns.lookup;
  const promisedLookup = dns.promises.lookup;
  dns.promises.lookup = async function guardedPromisedLookup(host: string, ...rest: unknown[]) {
    if (isLoopback(String(host)) || net.isIP(String(host)) !== 0) return (promisedLookup as Function).call(dns.promises, host, ...rest);
    record(`dns ${host}`);
    throw offline(String(host));
  } as typeof dns.promises.lookup;

  const connect = net.Socket.prototype.connect;
  net.Socket.prototype.connect = function guardedConnect(this: net.Socket, ...args: unknown[]) {
    const first = (Array.isArray(args[0]) ? args[0][0] : args[0]) as { host?: string; port?: number; path?: string } | number | string;
    const options = typeof first === 'object' && first !== null ? first : typeof first === 'number' ? { port: first, host: args[1] as string | undefined } : { path: first };
    if (!options.path && options.host !== undefined && !isLoopback(String(options.host))) {
      record(`connect ${options.host}:${options.port}`);
      process.nextTick(() => this.destroy(Object.assign(new Error(`connect ENETUNREACH ${options.host} (no network in this test)`), { code: 'ENETUNREACH' })));
      return this;
    }
    return (connect as Function).apply(this, args);
  } as typeof net.Socket.prototype.connect;
  syncBuiltinESMExports();
}
