import type { FlowNode } from '../flow-shapes.js';
import type { ModeContext } from './mode-context.js';

export type ConfigScopeName = 'tab' | 'subflow' | 'global';

export interface ConfigScope {
  readonly scope: ConfigScopeName;
  /** The tab or subflow id; absent for the global scope. */
  readonly ownerId?: string;
  readonly configs: readonly FlowNode[];
}

/** The config nodes of a tab (`id`), of a subflow definition (`subflowId`) or global (neither). */
export async function resolveConfigScope(context: ModeContext): Promise<ConfigScope> {
  const scope = await loadScope(context);
  context.inspection.scannedNodes += scope.configs.length;
  return scope;
}

async function loadScope({ args, sources }: ModeContext): Promise<ConfigScope> {
  if (args.id !== undefined) return { scope: 'tab', ownerId: args.id, configs: (await sources.tab(args.id)).configs };
  if (args.subflowId !== undefined) {
    return { scope: 'subflow', ownerId: args.subflowId, configs: (await sources.subflow(args.subflowId)).configs };
  }
  return { scope: 'global', configs: (await sources.global()).configs };
}

export function describeScope(scope: ConfigScope): string {
  return scope.scope === 'global' ? 'the global scope' : `${scope.scope} "${scope.ownerId}"`;
}
