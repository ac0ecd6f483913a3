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

/** The log methods a Node-RED node has (described by shape, so lib/ needs no node-red import). */
export interface NodeLog {
  debug(message: string): void;
  log(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}

/** A node's own log methods as a Logger: `info` is Node-RED's `log`. */
export function loggerOf(node: NodeLog): Logger {
  return {
    debug: (message) => node.debug(message),
    info: (message) => node.log(message),
    warn: (message) => node.warn(message),
    error: (message) => node.error(message),
  };
}

/**
 * Writes `line` with the node's `log` (Node-RED's info level, the node's id and name, every log
 * handler as usual) without the stack trace Node-RED captures for each line: `node.log` builds an
 * Error per line only to report a log handler that fails, and on the audit line every signed-in call
 * writes that capture cost more than everything else the sign-in adds to a call (docs/performance.md).
 * A failing handler is still reported, without a stack.
 */
export function logWithoutStack(node: Pick<NodeLog, 'log'>, line: string): void {
  const limit = Error.stackTraceLimit;
  try {
    Error.stackTraceLimit = 0;
  } catch {
    // Frozen intrinsics (node --frozen-intrinsics) forbid the change: the line is written all the same.
    node.log(line);
    return;
  }
  try {
    node.log(line);
  } finally {
    Error.stackTraceLimit = limit;
  }
}
