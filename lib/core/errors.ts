/**
 * One error type for everything lib/ refuses. `code` is stable and maps to a catalog key in the
 * node files (lib never translates); `params` fill the catalog's __placeholders__.
 */
export class McpPaletteError extends Error {
  readonly code: string;
  readonly params: Readonly<Record<string, string | number>>;

  constructor(code: string, message: string, params: Record<string, string | number> = {}) {
    super(message);
    this.name = 'McpPaletteError';
    this.code = code;
    this.params = params;
  }
}

export function isPaletteError(value: unknown): value is McpPaletteError {
  return value instanceof McpPaletteError;
}

/** A message safe to show or log: never a stack, never the cause's internals. */
export function describeError(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  return 'unknown error';
}

/** `port_in_use` -> `portInUse`: the node files' catalog keys follow the codes mechanically. */
export function catalogKey(code: string): string {
  return code.replace(/_([a-z])/g, (_, letter: string) => letter.toUpperCase());
}
