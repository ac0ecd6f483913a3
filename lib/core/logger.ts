/**
 * What lib/ needs to report: node files pass the node's own log methods, so lines carry the
 * node's id and name. Never pass tokens, secrets or tool arguments to these.
 */
export interface Logger {
  debug(message: string): void;
  info(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

export const silentLogger: Logger = Object.freeze({
  debug() {},
  info() {},
  warn() {},
  error() {},
});
