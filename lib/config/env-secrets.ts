import { McpPaletteError } from '../core/errors.js';

export type Environment = Readonly<Record<string, string | undefined>>;

// Only MCP_* names: a flow author must not be able to point a node at NODE_RED_CREDENTIAL_SECRET,
// cloud keys or any other variable of the Node-RED process and read it back through a config.
const ENV_NAME = /^MCP_[A-Z0-9_]{1,64}$/;

/** The env-name field of a config node: undefined when blank, else a valid MCP_* name. */
export function envNameFrom(value: unknown): string | undefined {
  const name = blankToUndefined(value);
  if (name === undefined) return undefined;
  if (!ENV_NAME.test(name)) {
    throw new McpPaletteError('invalid_env_name', 'environment variable names must match MCP_[A-Z0-9_]', { name: safeName(name) });
  }
  return name;
}

/** The value of a required variable; a missing or blank one is a configuration error. */
export function readEnv(env: Environment, name: string): string {
  const value = blankToUndefined(env[name]);
  if (value === undefined) throw new McpPaletteError('missing_env', `environment variable ${name} is not set`, { name });
  return value;
}

/** Editors save blank fields as '' and hand-written flows may use null or numbers. */
export function blankToUndefined(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  const trimmed = (typeof value === 'string' ? value : String(value)).trim();
  return trimmed === '' ? undefined : trimmed;
}

/** Echo only what looks like a variable name: a password pasted into the field must not be shown. */
function safeName(name: string): string {
  return /^[A-Z][A-Z0-9_]{0,79}$/.test(name) ? name : '(not a variable name)';
}
