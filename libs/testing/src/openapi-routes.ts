import { RequestMethod } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants';
import { RouteParamtypes } from '@nestjs/common/enums/route-paramtypes.enum';
import { ModulesContainer } from '@nestjs/core';
import type {
  OpenAPIObject,
  OperationObject,
  ReferenceObject,
  SchemaObject,
} from '@nestjs/swagger/dist/interfaces/open-api-spec.interface';

/** @nestjs/swagger's metadata keys (its constants module is not exported). */
const EXCLUDED_CONTROLLER = 'swagger/apiExcludeController';
const EXCLUDED_ENDPOINT = 'swagger/apiExcludeEndpoint';

export interface DocumentedRoute {
  operationId: string;
  method: string;
  takesBody: boolean;
}

/**
 * Every HTTP route of an app's controllers that its OpenAPI document should show, read from Nest's
 * metadata (not from the document), with the operation id `Controller_method` it gets there.
 */
export function documentedRoutesOf(container: ModulesContainer): DocumentedRoute[] {
  const routes: DocumentedRoute[] = [];
  for (const module of container.values()) {
    for (const wrapper of module.controllers.values()) {
      const controller = wrapper.metatype as (new (...args: never[]) => object) | null;
      if (!controller || Reflect.getMetadata(PATH_METADATA, controller) === undefined) continue;
      // Health, readiness, metrics and channel callbacks are not part of the public API.
      if (Reflect.getMetadata(EXCLUDED_CONTROLLER, controller)?.[0]) continue;
      const proto = controller.prototype as Record<string, unknown>;
      for (const name of Object.getOwnPropertyNames(proto)) {
        const handler = proto[name];
        if (name === 'constructor' || typeof handler !== 'function') continue;
        const method = Reflect.getMetadata(METHOD_METADATA, handler) as RequestMethod | undefined;
        if (method === undefined || Reflect.getMetadata(EXCLUDED_ENDPOINT, handler)?.disable) continue;
        const args = (Reflect.getMetadata(ROUTE_ARGS_METADATA, controller, name) ?? {}) as Record<string, unknown>;
        routes.push({
          operationId: `${controller.name.replace(/Controller$/, '')}_${name}`,
          method: RequestMethod[method].toLowerCase(),
          takesBody: Object.keys(args).some((k) => k.startsWith(`${RouteParamtypes.BODY}:`)),
        });
      }
    }
  }
  return routes;
}

/** The operations of a document by their operation id. */
export function operationsOf(document: OpenAPIObject): Map<string, OperationObject> {
  const operations = new Map<string, OperationObject>();
  for (const item of Object.values(document.paths)) {
    for (const method of ['get', 'post', 'put', 'patch', 'delete'] as const) {
      const op = item[method];
      if (op?.operationId) operations.set(op.operationId, op);
    }
  }
  return operations;
}

const isRef = (s: SchemaObject | ReferenceObject | undefined): s is ReferenceObject => !!s && '$ref' in s;

/** A schema of the document's components by its reference. */
export function schemaOf(document: OpenAPIObject, ref: ReferenceObject): SchemaObject {
  return document.components?.schemas?.[ref.$ref.replace('#/components/schemas/', '')] as SchemaObject;
}

/**
 * The checks every service's OpenAPI document passes, declared inside its `describe` once
 * `state()` can give the document and the controllers' routes: every route is documented and
 * nothing else; bodies are schemas with properties (those named in `streamedBodies`, read from the
 * request stream, are non-JSON text); every operation has a summary, a credential
 * (but those named in `withoutCredential`), a success answer with content (or, for those named in
 * `redirects`, a 3xx answer), and problem answers.
 */
export function itDocumentsEveryRoute(
  state: () => { document: OpenAPIObject; routes: DocumentedRoute[] },
  options: { minRoutes: number; withoutCredential?: string[]; streamedBodies?: string[]; redirects?: string[] },
): void {
  it('documents every route of the controllers, and nothing else', () => {
    const { document, routes } = state();
    expect(routes.length).toBeGreaterThanOrEqual(options.minRoutes);
    expect([...operationsOf(document).keys()].sort()).toEqual(routes.map((r) => r.operationId).sort());
  });

  it('every operation that takes a body documents it as a schema with properties', () => {
    const { document, routes } = state();
    const operations = operationsOf(document);
    for (const route of routes) {
      const op = operations.get(route.operationId) as OperationObject;
      const body = op.requestBody as { content?: Record<string, { schema?: SchemaObject | ReferenceObject }> };
      if ((options.streamedBodies ?? []).includes(route.operationId)) {
        const types = Object.entries(body?.content ?? {}).map(([type, c]) => [type, (c.schema as SchemaObject)?.type]);
        expect({
          op: route.operationId,
          streamed: types.length > 0 && types.every(([t, s]) => t !== 'application/json' && s === 'string'),
        }).toEqual({ op: route.operationId, streamed: true });
        continue;
      }
      if (!route.takesBody) {
        expect({ op: route.operationId, body: op.requestBody }).toEqual({ op: route.operationId, body: undefined });
        continue;
      }
      const schema = body?.content?.['application/json']?.schema;
      expect({ op: route.operationId, ref: isRef(schema) }).toEqual({ op: route.operationId, ref: true });
      const props = Object.keys(schemaOf(document, schema as ReferenceObject).properties ?? {});
      expect({ op: route.operationId, props: props.length > 0 }).toEqual({ op: route.operationId, props: true });
    }
  });

  it('every operation documents a summary, its security, its success answer and problem answers', () => {
    for (const [id, op] of operationsOf(state().document)) {
      const statuses = Object.keys(op.responses);
      const redirect = (options.redirects ?? []).includes(id);
      const success = statuses.filter((s) => (redirect ? /^3\d\d$/ : /^2\d\d$/).test(s));
      const problems = statuses.filter((s) => /^[45]\d\d$/.test(s));
      const credential = !(options.withoutCredential ?? []).includes(id);
      expect({ id, summary: typeof op.summary }).toEqual({ id, summary: 'string' });
      expect({ id, security: (op.security ?? []).length > 0 }).toEqual({ id, security: credential });
      expect({ id, success: success.length > 0 }).toEqual({ id, success: true });
      expect({ id, fourxx: problems.some((s) => s.startsWith('4')) }).toEqual({ id, fourxx: true });
      for (const status of success.filter((s) => s !== '204' && !redirect)) {
        const content = (op.responses[status] as { content?: Record<string, unknown> }).content;
        expect({ id, status, content: content !== undefined }).toEqual({ id, status, content: true });
      }
      for (const status of problems) {
        const content = (op.responses[status] as { content?: Record<string, { schema: ReferenceObject }> }).content;
        expect({ id, status, schema: content?.['application/problem+json']?.schema?.$ref }).toEqual({
          id,
          status,
          schema: '#/components/schemas/ProblemDto',
        });
      }
      if (op.requestBody)
        expect({ id, has: ['400', '413', '415'].every((s) => statuses.includes(s)) }).toEqual({ id, has: true });
    }
  });
}
