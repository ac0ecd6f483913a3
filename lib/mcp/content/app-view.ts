import { DEFAULTS } from '../../core/defaults.js';
import { McpPaletteError } from '../../core/errors.js';
import { APP_VIEW_MIME_TYPE, checkViewUri, parseAppViewMeta, type AppViewConfig } from '../app-ui.js';
import { parseResourceConfig, type ResourceDefinition } from './resource-definition.js';

/**
 * An app view as a resource: the node's HTML or the flow's, always of the extension's MIME type,
 * listed and read with the node's `_meta.ui`. A view larger than a result may be is refused at
 * deploy rather than at every read.
 */
export function parseAppViewConfig(config: AppViewConfig): ResourceDefinition {
  const uri = typeof config.uri === 'string' ? config.uri.trim() : '';
  const uriProblem = checkViewUri(uri);
  if (uriProblem) throw new McpPaletteError('invalid_uri', `URI ${uri}: ${uriProblem}`, { uri, reason: uriProblem });
  const ui = parseAppViewMeta(config);
  const source = config.source === 'flow' ? 'flow' : 'static';
  const text = typeof config.text === 'string' ? config.text : '';
  if (source === 'static' && Buffer.byteLength(text) > DEFAULTS.maxResultBytes) {
    throw new McpPaletteError('app_view_too_large', `the view is ${Buffer.byteLength(text)} bytes, over the ${DEFAULTS.maxResultBytes}-byte limit`, {
      bytes: Buffer.byteLength(text),
      limit: DEFAULTS.maxResultBytes,
    });
  }
  const resource = parseResourceConfig({ ...config, uri, mimeType: APP_VIEW_MIME_TYPE, source, text, completions: '', flowCompletions: '', size: '', audience: '', priority: '' });
  const appMeta = Object.freeze({ ui });
  return Object.freeze({ ...resource, listing: { ...resource.listing, _meta: appMeta }, appMeta });
}

