import { pointerPath, type SchemaIssue } from '../../lib/mcp/schema-issues.js';

type Translate = (key: string, params?: Record<string, string | number>) => string;

/**
 * Each schema issue as one sentence from the `schemaIssue` catalog, the place it names first. The
 * editor's template renders the same keys the same way (mcp-tool-registry.html, sayIssue).
 */
export function sayIssues(issues: readonly SchemaIssue[], t: Translate): string {
  return issues
    .map((issue) => {
      const path = issue.pointer === undefined ? undefined : pointerPath(issue.pointer);
      const where = path === undefined ? '' : path === '/' ? t('schemaIssue.root') : t('schemaIssue.at', { path });
      return t(`schemaIssue.${issue.key}`, { ...issue.params, where });
    })
    .join(' ');
}
