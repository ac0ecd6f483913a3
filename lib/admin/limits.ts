/**
 * Every bound get_flow applies, in one frozen place. The numbers keep one call's cost and answer
 * small whatever the size of the deployed flows: a model reads pages, never a whole export.
 */
export const GET_FLOW_LIMITS = Object.freeze({
  /** Items in any one list of an answer; `meta.nextOffset` continues it. */
  pageSize: 40,
  /** Wires (edges) in any one answer. */
  maxEdges: 80,
  /** Function code characters returned by `includeCode`, across func/initialize/finalize. */
  maxCodeChars: 10_000,
  /** A single property value over this (as JSON, in bytes) is omitted and listed instead. */
  maxValueBytes: 32 * 1024,
  /** Bytes of property values one answer carries (config pages and `includeConfig`). */
  configBudgetBytes: 64 * 1024,
  /** Nesting levels kept inside a returned value. */
  maxDepth: 16,
  /** Values (scalars and containers) one request may walk while copying properties. */
  maxVisitedValues: 2_000,
  /** One admin API read. */
  adminTimeoutMs: 15_000,
  /** Bytes of one admin API response; the read is aborted as soon as it passes this. */
  maxResponseBytes: 32 * 1024 * 1024,
  /** Configuration entries the in-process tab index walks before it stops. */
  maxIndexedNodes: 100_000,
  /** Nodes of one tab or subflow taken into a graph. */
  maxGraphNodes: 20_000,
  /** Wire visits (building adjacency and traversing it) per request. */
  maxWireVisits: 100_000,
  /** The tool's own deadline: admin reads run in parallel, so one read timeout plus slack. */
  toolTimeoutMs: 20_000,
  /** Items in the short lists inside one list entry (a chain's entry nodes, a node's link ids). */
  innerListSize: 10,
});

export const REDACTED = '[REDACTED]';
