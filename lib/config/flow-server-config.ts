import { DEFAULT_EDGE_URI_NAMING, namingProblem, uriNamingProblem } from '../edge/edge-naming.js';
import { SITE_PATTERN } from '../edge/edge-protocol.js';
import { z } from 'zod';
import { parseAllowedGroups } from '../access/allowed-groups.js';
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
  /** Open `subscriptions/listen` streams at most (2026-07-28 change notifications). */
  readonly maxStreams: number;
  /** Identity-provider groups (Entra: app roles) allowed in with OAuth access. */
  readonly groups: readonly string[];
  /** Limits of the calls that run as tasks (see TaskLimits). */
  readonly tasks: {
    readonly maxTasks: number;
    readonly maxTasksPerCaller: number;
    readonly maxStored: number;
    readonly maxStoredPerCaller: number;
    readonly ttlSeconds: number;
    readonly maxResultKb: number;
  };
  /** Edge relaying through the endpoint's Redis storage (lib/edge). */
  readonly edges: {
    /** Set on an edge: the site name its tools are offered to hubs under. */
    readonly site: string | undefined;
    /** Set on a hub: the sites whose tools this endpoint serves. */
    readonly hubSites: readonly string[];
    /** On a hub: sites whose tools only members of the given groups see and may call. */
    readonly siteGroups: ReadonlyMap<string, readonly string[]>;
    /** How an edge tool or prompt is named on the hub: `{site}` and `{tool}` are replaced. */
    readonly naming: string;
    /** How an edge resource's URI (or template) reads on the hub: `{site}` and `{uri}` are replaced. */
    readonly uriNaming: string;
    /** Calls one site may have pending on this hub endpoint at once. */
    readonly maxPendingPerSite: number;
  };
}

/** Edge tools are named `<site>.<tool>` on a hub unless the endpoint says otherwise. */
const DEFAULT_EDGE_NAMING = '{site}.{tool}';

const SERVER_NAME = /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/;

/** A whole number typed in the editor (a string) or written by hand into a flow file (a number). */
const wholeNumber = (fallback: number, min: number, max: number) =>
  z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)]).default(fallback).pipe(z.number().int().min(min).max(max));

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
  // Flows from before streams existed get the default.
  maxStreams: z.union([z.number(), z.string().trim().regex(/^\d+$/).transform(Number)])
    .default(DEFAULTS.maxListenStreams)
    .pipe(z.number().int().min(1).max(DEFAULTS.maxListenStreamsLimit)),
  // Separated by commas or whitespace, as people paste them from their identity provider.
  groups: z.string().default('').transform((text) => [...new Set(text.split(/[\s,]+/).filter(Boolean))])
    .refine((groups) => groups.every((group) => group.length <= 256)),
  // Flows saved before tasks existed have none of these: they get the defaults.
  maxTasks: wholeNumber(DEFAULTS.maxTasks, 1, DEFAULTS.maxConcurrentCallsLimit),
  maxTasksPerCaller: wholeNumber(DEFAULTS.maxTasksPerCaller, 1, DEFAULTS.maxConcurrentCallsLimit),
  // Flows saved before the stored-task caps existed get the defaults.
  maxStoredTasks: wholeNumber(DEFAULTS.maxStoredTasks, 1, DEFAULTS.maxStoredTasksLimit),
  maxStoredTasksPerCaller: wholeNumber(DEFAULTS.maxStoredTasksPerCaller, 1, DEFAULTS.maxStoredTasksLimit),
  taskTtl: wholeNumber(DEFAULTS.taskTtlSeconds, 60, DEFAULTS.taskTtlSecondsMax),
  maxTaskResultKb: wholeNumber(DEFAULTS.maxTaskResultKb, 1, DEFAULTS.maxResultBytes / 1024),
  // Flows saved before edges existed neither offer nor serve edge tools.
  edgeSite: z.string().trim().default('').refine((site) => site === '' || SITE_PATTERN.test(site)),
  hubSites: z.string().default('').transform((text) => [...new Set(text.split(/[\s,]+/).filter(Boolean))])
    .refine((sites) => sites.every((site) => SITE_PATTERN.test(site))),
  edgeNaming: z.string().trim().default(DEFAULT_EDGE_NAMING).transform((naming) => (naming === '' ? DEFAULT_EDGE_NAMING : naming))
    // A pattern under which two sites could give one hub name would let one site take over or deny another's tools.
    .refine((naming) => namingProblem(naming) === undefined),
  // Flows saved before edge resources were relayed get the default.
  edgeUriNaming: z.string().trim().default(DEFAULT_EDGE_URI_NAMING).transform((naming) => (naming === '' ? DEFAULT_EDGE_URI_NAMING : naming))
    .refine((naming) => uriNamingProblem(naming) === undefined),
  maxPendingPerSite: wholeNumber(DEFAULTS.maxConcurrentCalls, 1, DEFAULTS.maxConcurrentCallsLimit),
  // One line per site, `site: group, group`; flows saved before it existed restrict no site.
  hubSiteGroups: z.string().default('').transform(parseSiteGroups).refine((map) => map !== undefined),
});

const FIELD_CODES: Record<string, string> = {
  serverName: 'invalid_name',
  path: 'invalid_path',
  access: 'access_unsupported',
  maxConcurrent: 'invalid_max_concurrent',
  maxStreams: 'invalid_max_streams',
  groups: 'invalid_groups',
  maxTasks: 'invalid_max_tasks',
  maxTasksPerCaller: 'invalid_max_tasks_per_caller',
  maxStoredTasks: 'invalid_max_stored_tasks',
  maxStoredTasksPerCaller: 'invalid_max_stored_tasks_per_caller',
  taskTtl: 'invalid_task_ttl',
  maxTaskResultKb: 'invalid_max_task_result',
  edgeSite: 'invalid_edge_site',
  hubSites: 'invalid_hub_sites',
  edgeNaming: 'invalid_edge_naming',
  edgeUriNaming: 'invalid_edge_uri_naming',
  maxPendingPerSite: 'invalid_max_pending_per_site',
  hubSiteGroups: 'invalid_hub_site_groups',
};

export function parseFlowServerConfig(config: Record<string, unknown>): FlowServerSettings {
  const blankToUndefined = (value: unknown) => (value === '' || value === null ? undefined : value);
  const parsed = flowServerSchema.safeParse({
    serverName: blankToUndefined(config.serverName),
    path: blankToUndefined(config.path),
    access: blankToUndefined(config.access),
    maxConcurrent: blankToUndefined(config.maxConcurrent),
    maxStreams: blankToUndefined(config.maxStreams),
    groups: typeof config.groups === 'string' ? config.groups : undefined,
    maxTasks: blankToUndefined(config.maxTasks),
    maxTasksPerCaller: blankToUndefined(config.maxTasksPerCaller),
    maxStoredTasks: blankToUndefined(config.maxStoredTasks),
    maxStoredTasksPerCaller: blankToUndefined(config.maxStoredTasksPerCaller),
    taskTtl: blankToUndefined(config.taskTtl),
    maxTaskResultKb: blankToUndefined(config.maxTaskResultKb),
    edgeSite: typeof config.edgeSite === 'string' ? config.edgeSite : undefined,
    hubSites: typeof config.hubSites === 'string' ? config.hubSites : undefined,
    edgeNaming: typeof config.edgeNaming === 'string' ? config.edgeNaming : undefined,
    edgeUriNaming: typeof config.edgeUriNaming === 'string' ? config.edgeUriNaming : undefined,
    maxPendingPerSite: blankToUndefined(config.maxPendingPerSite),
    hubSiteGroups: typeof config.hubSiteGroups === 'string' ? config.hubSiteGroups : undefined,
  });
  if (!parsed.success) {
    const field = String(parsed.error.issues[0]?.path[0] ?? 'path');
    throw new McpPaletteError(FIELD_CODES[field] ?? 'invalid_path', `invalid ${field}`, {
      field,
      access: String(config.access ?? ''),
    });
  }
  const { maxTasks, maxTasksPerCaller, maxStoredTasks, maxStoredTasksPerCaller, taskTtl, maxTaskResultKb, edgeSite, hubSites, edgeNaming, edgeUriNaming, maxPendingPerSite, hubSiteGroups, ...endpoint } = parsed.data;
  // Groups for a site the hub does not serve would restrict nothing: a typo, said at deploy.
  const stray = [...hubSiteGroups!.keys()].find((site) => !hubSites.includes(site));
  if (stray !== undefined) {
    throw new McpPaletteError('invalid_hub_site_groups', `site ${stray} has groups but is not among the sites served`, { field: 'hubSiteGroups', access: String(config.access ?? '') });
  }
  // An endpoint serving its own site would relay to itself, and rename its tools on every heartbeat.
  if (edgeSite !== '' && hubSites.includes(edgeSite)) {
    throw new McpPaletteError('hub_serves_own_site', 'an endpoint cannot serve the site it offers its own tools as', { field: 'hubSites', access: String(config.access ?? '') });
  }
  return Object.freeze({
    ...endpoint,
    tasks: Object.freeze({ maxTasks, maxTasksPerCaller, maxStored: maxStoredTasks, maxStoredPerCaller: maxStoredTasksPerCaller, ttlSeconds: taskTtl, maxResultKb: maxTaskResultKb }),
    edges: Object.freeze({ site: edgeSite === '' ? undefined : edgeSite, hubSites, siteGroups: hubSiteGroups!, naming: edgeNaming, uriNaming: edgeUriNaming, maxPendingPerSite }),
  });
}

/**
 * A hub's site groups as the editor saves them: one line per site, `site: group, group` (groups
 * separated by commas or spaces). Undefined when a line is malformed, names a site twice or gives
 * a site no groups.
 */
export function parseSiteGroups(text: string): ReadonlyMap<string, readonly string[]> | undefined {
  const groupsOf = new Map<string, readonly string[]>();
  for (const line of text.split(/\r?\n/)) {
    if (line.trim() === '') continue;
    const match = /^\s*([^:\s]+)\s*:(.*)$/.exec(line);
    if (!match || !SITE_PATTERN.test(match[1]!) || groupsOf.has(match[1]!)) return undefined;
    let groups: readonly string[] | undefined;
    try {
      groups = parseAllowedGroups(match[2]);
    } catch {
      return undefined;
    }
    if (groups === undefined) return undefined;
    groupsOf.set(match[1]!, groups);
  }
  return groupsOf;
}
