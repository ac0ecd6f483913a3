import type { ResourceDefinition } from './resource-definition.js';

export interface TemplateMatch {
  readonly resource: ResourceDefinition;
  readonly variables: Record<string, string>;
}

interface Entry {
  /** The template's place in URI order: the first in that order that matches wins. */
  readonly order: number;
  readonly resource: ResourceDefinition;
}

interface PrefixNode {
  readonly next: Map<number, PrefixNode>;
  /** The templates whose literal start ends here, in URI order. */
  readonly here: Entry[];
}

/**
 * The template resources of one deploy, found for a URI without trying each of them: indexed by the
 * literal text before each template's first variable (a trie of those starts, built at deploy). A
 * lookup walks the URI's characters once, as deep as the longest start, and tries only the templates
 * whose start the URI begins with — as many as share that start, however many the endpoint has.
 * The answer is the one trying every template in URI order gives: the first in that order that matches.
 */
export class TemplateIndex {
  private readonly root: PrefixNode = { next: new Map(), here: [] };

  /** `templates` in URI order. */
  constructor(templates: readonly ResourceDefinition[]) {
    templates.forEach((resource, order) => {
      const start = resource.uri.slice(0, resource.uri.indexOf('{'));
      let node = this.root;
      for (let index = 0; index < start.length; index += 1) {
        const code = start.charCodeAt(index);
        let child = node.next.get(code);
        if (!child) {
          child = { next: new Map(), here: [] };
          node.next.set(code, child);
        }
        node = child;
      }
      node.here.push({ order, resource });
    });
  }

  find(uri: string): TemplateMatch | undefined {
    let best: (TemplateMatch & { order: number }) | undefined;
    let node: PrefixNode | undefined = this.root;
    for (let index = 0; node; index += 1) {
      for (const entry of node.here) {
        // A template later in URI order than a match already found cannot be the answer.
        if (best && entry.order > best.order) break;
        const variables = entry.resource.template!.match(uri);
        if (variables) best = { order: entry.order, resource: entry.resource, variables };
      }
      node = index < uri.length ? node.next.get(uri.charCodeAt(index)) : undefined;
    }
    return best && { resource: best.resource, variables: best.variables };
  }
}
