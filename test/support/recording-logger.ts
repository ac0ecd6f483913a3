import type { Logger } from '../../lib/core/logger.js';

/** A logger that keeps every line as `level message`, for tests that check what was logged (and what was not). */
export function recordingLogger(): Logger & { readonly lines: string[] } {
  const lines: string[] = [];
  const write = (level: string) => (message: string) => void lines.push(`${level} ${message}`);
  return { lines, debug: write('debug'), info: write('info'), warn: write('warn'), error: write('error') };
}
