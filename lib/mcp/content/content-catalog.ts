import type { ListPromptsResult, ListResourcesResult, ListResourceTemplatesResult, Prompt, Resource, ServerCapabilities } from '@modelcontextprotocol/server';
import type { Admits } from '../../access/access-views.js';
import { DEFAULTS } from '../../core/defaults.js';
import { UI_EXTENSION } from '../app-ui.js';
import { PagedList } from '../paged-list.js';
import type { ResourceTemplateListing } from './resource-definition.js';
import type { PromptDefinition } from './prompt-definition.js';
import type { ResourceDefinition } from './resource-definition.js';
import { TemplateIndex } from './template-index.js';

export interface ResourceMatch {
  readonly resource: ResourceDefinition;
  readonly variables: Record<string, string>;
}

/**
 * The resources, resource templates and prompts one endpoint serves, built once per deploy like
 * the tool catalog: list results are prebuilt, a fixed URI or prompt name is one Map lookup.
 * Templates are matched after the fixed URIs, so an exact resource always wins; of the templates,
 * the first in URI order that matches, found through their literal starts (template-index.ts) so
 * the cost does not grow with their number.
 */
export class ContentCatalog {
  /** Each list in pages of `DEFAULTS.listPageSize`; `.first` is the whole list when it fits on one. */
  readonly resourcePages: PagedList<Resource, ListResourcesResult>;
  readonly templatePages: PagedList<ResourceTemplateListing, ListResourceTemplatesResult>;
  readonly promptPages: PagedList<Prompt, ListPromptsResult>;
  /** What the endpoint declares in `capabilities`: only what it has. */
  readonly capabilities: ServerCapabilities;
  /** Changes exactly when `capabilities` does. */
  readonly capabilityKey: string;
  private readonly fixed: ReadonlyMap<string, ResourceDefinition>;
  private readonly templates: readonly ResourceDefinition[];
  private readonly templatesByText: ReadonlyMap<string, ResourceDefinition>;
  private readonly templateIndex: TemplateIndex;
  private readonly prompts: ReadonlyMap<string, PromptDefinition>;
  /** The whole deploy's catalog, when this one is what some callers may see of it (`restrictedTo`). */
  private readonly whole: ContentCatalog | undefined;

  constructor(
    resources: readonly ResourceDefinition[],
    prompts: readonly PromptDefinition[],
    private readonly pageSize: number = DEFAULTS.listPageSize,
    whole?: ContentCatalog,
  ) {
    this.whole = whole;
    const byUri = [...resources].sort((a, b) => compare(a.uri, b.uri));
    this.fixed = new Map(byUri.filter((resource) => !resource.template).map((resource) => [resource.uri, resource]));
    this.templates = byUri.filter((resource) => resource.template);
    this.templatesByText = new Map(this.templates.map((resource) => [resource.uri, resource]));
    this.templateIndex = new TemplateIndex(this.templates);
    const sortedPrompts = [...prompts].sort((a, b) => compare(a.name, b.name));
    this.prompts = new Map(sortedPrompts.map((prompt) => [prompt.name, prompt]));
    this.resourcePages = new PagedList(
      'resources/list',
      [...this.fixed.values()].map((resource) => resource.listing as Resource),
      (resource) => resource.uri,
      (page, nextCursor) => ({ resources: page as Resource[], ...(nextCursor ? { nextCursor } : {}) }),
      pageSize,
    );
    this.templatePages = new PagedList(
      'resources/templates/list',
      this.templates.map((resource) => resource.listing as ResourceTemplateListing),
      (template) => template.uriTemplate,
      (page, nextCursor) => ({ resourceTemplates: page as ResourceTemplateListing[], ...(nextCursor ? { nextCursor } : {}) }),
      pageSize,
    );
    this.promptPages = new PagedList(
      'prompts/list',
      sortedPrompts.map((prompt) => prompt.listing),
      (prompt) => prompt.name,
      (page, nextCursor) => ({ prompts: page as Prompt[], ...(nextCursor ? { nextCursor } : {}) }),
      pageSize,
    );
    const hasResources = byUri.length > 0;
    const hasPrompts = sortedPrompts.length > 0;
    // A caller's view declares what the endpoint does: which lists exist is no secret, what they hold is.
    this.capabilities = whole?.capabilities ?? Object.freeze({
      ...(hasResources ? { resources: {} } : {}),
      ...(hasPrompts ? { prompts: {} } : {}),
      // Only prompt arguments and template variables can be completed.
      ...(hasPrompts || this.templates.length > 0 ? { completions: {} } : {}),
      // MCP Apps is negotiated as an extension (SEP-1724), in both eras alike; only endpoints with a view declare it.
      ...(byUri.some((resource) => resource.appMeta) ? { extensions: { [UI_EXTENSION]: {} } } : {}),
    });
    this.capabilityKey = Object.keys(this.capabilities).join(',');
  }

  /** Whether some resource or prompt has *Required scopes*. */
  get scoped(): boolean {
    return (this.anyScoped ??= [...this.fixed.values(), ...this.templates, ...this.prompts.values()].some((item) => item.requiredScopes !== undefined));
  }

  private anyScoped: boolean | undefined;

  /** Every resource's and prompt's *Allowed groups* (undefined for the unrestricted ones). */
  get restrictions(): Iterable<readonly string[] | undefined> {
    return [...this.resourceRestrictions, ...this.promptRestrictions];
  }

  get resourceRestrictions(): readonly (readonly string[] | undefined)[] {
    return [...this.fixed.values(), ...this.templates].map((item) => item.allowedGroups);
  }

  get promptRestrictions(): readonly (readonly string[] | undefined)[] {
    return [...this.prompts.values()].map((item) => item.allowedGroups);
  }

  /**
   * The resources and prompts a caller `admits` lets in, as a catalog of their own. What the endpoint
   * declares (`capabilities`) stays the whole deploy's: the SDK's handlers are registered for it.
   */
  restrictedTo(admits: Admits): ContentCatalog {
    const resources = [...this.fixed.values(), ...this.templates].filter((resource) => admits(resource.allowedGroups));
    const prompts = [...this.prompts.values()].filter((prompt) => admits(prompt.allowedGroups));
    return new ContentCatalog(resources, prompts, this.pageSize, this);
  }

  /** This catalog's resources (fixed URIs, then templates, each in URI order) and prompts (by name). */
  get items(): { readonly resources: readonly ResourceDefinition[]; readonly prompts: readonly PromptDefinition[] } {
    return { resources: [...this.fixed.values(), ...this.templates], prompts: [...this.prompts.values()] };
  }

  /** Whether this view leaves out a resource the deploy serves at `uri` (telemetry and audit only). */
  withholdsResource(uri: string): boolean {
    return this.whole !== undefined && this.findResource(uri) === undefined && this.whole.findResource(uri) !== undefined;
  }

  /** The declared URI or template of what the whole deploy serves at `uri` (telemetry names it so). */
  wholeResourceName(uri: string): string {
    return (this.whole ?? this).findResource(uri)?.resource.uri ?? 'unknown';
  }

  /** Whether this view leaves out the prompt `name` (telemetry and audit only). */
  withholdsPrompt(name: string): boolean {
    return this.whole !== undefined && !this.prompts.has(name) && this.whole.findPrompt(name) !== undefined;
  }

  /** Whether this view leaves out the resource template `uriTemplate` (completion references). */
  withholdsTemplate(uriTemplate: string): boolean {
    return this.whole !== undefined && !this.templatesByText.has(uriTemplate) && this.whole.findTemplate(uriTemplate) !== undefined;
  }

  get resourceCount(): number {
    return this.fixed.size + this.templates.length;
  }

  get promptCount(): number {
    return this.prompts.size;
  }

  get isEmpty(): boolean {
    return this.resourceCount === 0 && this.promptCount === 0;
  }

  findResource(uri: string): ResourceMatch | undefined {
    const fixed = this.fixed.get(uri);
    if (fixed) return { resource: fixed, variables: {} };
    return this.templateIndex.find(uri);
  }

  /** The template resource whose template text is `uriTemplate` (completion references name it so). */
  findTemplate(uriTemplate: string): ResourceDefinition | undefined {
    return this.templatesByText.get(uriTemplate);
  }

  findPrompt(name: string): PromptDefinition | undefined {
    return this.prompts.get(name);
  }

  get resourcesResult(): ListResourcesResult {
    return this.resourcePages.first;
  }

  get templatesResult(): ListResourceTemplatesResult {
    return this.templatePages.first;
  }

  get promptsResult(): ListPromptsResult {
    return this.promptPages.first;
  }

  static readonly empty = new ContentCatalog([], []);
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
