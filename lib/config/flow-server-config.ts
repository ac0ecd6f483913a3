import { z } from 'zod';
import { DEFAULTS } from '../core/defaults.js';
import { McpPaletteError } from '../core/errors.js';
import { isValidEndpointPath } from '../mcp/endpoint-path.js';

export type AccessMode = 'local' | 'oauth';

/** A validated mcp-flow-server: one MCP endpoint. */
export interface FlowServerSettings {
  readonly serverName: string;
  readonly path: string;
  readonly access: AccessMode;
  readonly maxConcurrent: number;
  /** Identity-provider groups (Entra: app roles) allowed in with OAuth access. */
  readonly groups: readonly string[];
}

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

const flowServerSchema = z.object({
  serverName: z.string().trim().default(DEFAULTS.serverName)
    .transform((name) => (name === '' ? DEFAULTS.serverName : name))
    .refine((name) => SERVER_NAME.test(name)),
  path: z.string().trim().default(DEFAULTS.endpointPath).refine(isValidEndpointPath),
  // Flows from before access modes existed start as Local, the only mode that needs nothing else.
  access: z.enum(['local', 'oauth']).default('local'),
  maxConcurrent: z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)])
    .default(DEFAULTS.maxConcurrentCalls)
    .pipe(z.number().int().min(1).max(DEFAULTS.maxConcurrentCallsLimit)),
  // Separated by commas or whitespace, as people paste them from their identity provider.
  groups: z.string().default('').transform((text) => [...new Set(text.split(/[\s,]+/).filter(Boolean))])
    .refine((groups) => groups.every((group) => group.length <= 256)),
});

const FIELD_CODES: Record<string, string> = {
  serverName: 'invalid_name',
  path: 'invalid_path',
  access: 'access_unsupported',
  maxConcurrent: 'invalid_max_concurrent',
  groups: 'invalid_groups',
};

export function parseFlowServerConfig(config: Record<string, unknown>): FlowServerSettings {
  const blankToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);
  const parsed = flowServerSchema.safeParse({
    serverName: blankToUndefined(config.serverName),
    path: blankToUndefined(config.path),
    access: blankToUndefined(config.access),
    maxConcurrent: blankToUndefined(config.maxConcurrent),
    groups: typeof config.groups === 'string' ? config.groups : undefined,
  });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'path');
    throw new McpPaletteError(FIELD_CODES[field] ?? 'invalid_path', `invalid ${field}`, {
      field,
      access: String(config.access ?? ''),
    });
  }
  return Object.freeze(parsed.data);
}
