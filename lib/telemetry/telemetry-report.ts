/**
 * What a metrics node subscribes to, from its `report` field: `all` adds resource reads, prompts and
 * completions to the tool calls. Anything else, and a node saved before the field existed, reports
 * tool calls only, the editor's default ("tools").
 */
export function telemetryReport(report: unknown): { readonly content: boolean } {
  return { content: report === 'all' };
}
