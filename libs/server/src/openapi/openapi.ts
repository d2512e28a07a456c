import { applyDecorators, DynamicModule, INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import {
  ApiExtraModels,
  ApiResponse,
  DocumentBuilder,
  getSchemaPath,
  OpenAPIObject,
  SwaggerModule,
} from '@nestjs/swagger';
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ProblemDto } from './problem.dto';

/** What each error status means, unless a service says it in its own words. */
export const PROBLEM_DESCRIPTIONS: Readonly<Record<number, string>> = {
  400: 'Invalid request, validation error',
  401: 'Authentication error: missing, malformed, unknown or revoked token',
  403: 'Access denied: another tenant’s resource',
  404: 'Not found',
  409: 'Conflict',
  410: 'Gone',
  413: 'Body larger than 256 KiB',
  414: 'URI too long: a path segment past 100 characters',
  415: 'Body is not application/json',
  422: 'Request cannot be processed in the resource’s current state',
  429: 'Too many requests: the token’s rate limit; see Retry-After',
  503: 'A dependency (database, broker, channel) could not be reached; nothing was changed; see Retry-After',
};

const problemContent = () => ({
  'application/problem+json': { schema: { $ref: getSchemaPath(ProblemDto) } },
});

/**
 * `ApiProblems(...statuses)`: the error answers of an endpoint, each an application/problem+json
 * body, described in the service's words where `descriptions` has them.
 */
export function problemDecorator(
  descriptions: Readonly<Record<number, string>> = {},
): (...statuses: number[]) => MethodDecorator & ClassDecorator {
  return (...statuses) =>
    applyDecorators(
      ApiExtraModels(ProblemDto),
      ...statuses.map((status) =>
        ApiResponse({
          status,
          description: descriptions[status] ?? PROBLEM_DESCRIPTIONS[status] ?? 'Error',
          content: problemContent(),
        }),
      ),
    );
}

/** Error answers of an endpoint, each an application/problem+json body. */
export const ApiProblems = problemDecorator();

export interface OpenApiSite {
  title: string;
  description: string;
  /** The server URL operations are relative to (`https://host/api`, `https://host`). */
  serverUrl: string;
  /** Security schemes and anything else the service adds to the document. */
  configure?: (builder: DocumentBuilder) => DocumentBuilder;
}

/**
 * The OpenAPI document of a service, generated from its controllers and DTOs. Works on an app
 * created with `preview: true` too (no provider instantiated: no database or NATS), which is how
 * `pnpm openapi:lint`, the SDK's generator and the documents' tests build it. Operation ids are
 * `Controller_method`; every route that takes a JSON body also answers the body parser's problems.
 */
export function createOpenApiDocument(app: INestApplication, site: OpenApiSite): OpenAPIObject {
  const builder = new DocumentBuilder()
    .setTitle(site.title)
    .setDescription(site.description)
    .setVersion('1')
    .addServer(site.serverUrl.replace(/\/+$/, ''));
  const document = SwaggerModule.createDocument(app, (site.configure?.(builder) ?? builder).build(), {
    // Routes are declared under the global prefix, if any; the server URL above carries it.
    ignoreGlobalPrefix: true,
    operationIdFactory: (controller, method) => `${controller.replace(/Controller$/, '')}_${method}`,
  });
  documentBodyProblems(document);
  return document;
}

/** Every route that takes a JSON body answers the body parser's and the validation's problems. */
function documentBodyProblems(document: OpenAPIObject): void {
  const problem = (description: string) => ({ description, content: problemContent() });
  const parserProblems = {
    400: problem('Invalid request: not JSON, or a field is invalid (each named in errors[])'),
    413: problem(PROBLEM_DESCRIPTIONS[413]),
    415: problem(PROBLEM_DESCRIPTIONS[415]),
  };
  for (const item of Object.values(document.paths)) {
    for (const method of ['post', 'put', 'patch'] as const) {
      const operation = item[method];
      if (!operation?.requestBody) continue;
      for (const [status, response] of Object.entries(parserProblems)) operation.responses[status] ??= response;
    }
  }
}

/** swagger-ui-dist ships with @nestjs/swagger; its files are served from memory, a fixed list. */
function swaggerUiAssets(): Record<string, { type: string; body: Buffer }> {
  const root = dirname(
    require.resolve('swagger-ui-dist/package.json', { paths: [dirname(require.resolve('@nestjs/swagger'))] }),
  );
  const files: Record<string, string> = {
    'swagger-ui.css': 'text/css; charset=utf-8',
    'swagger-ui-bundle.js': 'application/javascript; charset=utf-8',
    'swagger-ui-standalone-preset.js': 'application/javascript; charset=utf-8',
    'favicon-32x32.png': 'image/png',
  };
  return Object.fromEntries(
    Object.entries(files).map(([name, type]) => [name, { type, body: readFileSync(join(root, name)) }]),
  );
}

const docsPage = (base: string, title: string) => `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${title}</title>
<link rel="stylesheet" href="${base}/docs/assets/swagger-ui.css">
<link rel="icon" type="image/png" href="${base}/docs/assets/favicon-32x32.png">
</head>
<body>
<div id="swagger-ui"></div>
<script src="${base}/docs/assets/swagger-ui-bundle.js"></script>
<script src="${base}/docs/assets/swagger-ui-standalone-preset.js"></script>
<script src="${base}/docs/init.js"></script>
</body>
</html>`;

const docsInit = (base: string) => `window.ui = SwaggerUIBundle({
  url: '${base}/openapi.json',
  dom_id: '#swagger-ui',
  deepLinking: true,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout',
});`;

/**
 * Serves a document under `base` (`/api`, `/v1`): `{base}/openapi.json` (and `.yaml`) and an
 * interactive page at `{base}/docs`. The page's assets are served here rather than through
 * @fastify/static, which would add a plugin for four files.
 */
export function serveOpenApi(app: NestFastifyApplication, document: OpenAPIObject, base: string): void {
  const path = base.replace(/^\/+|\/+$/g, '');
  SwaggerModule.setup(`${path}/docs`, app, document, {
    ui: false,
    jsonDocumentUrl: `${path}/openapi.json`,
    yamlDocumentUrl: `${path}/openapi.yaml`,
  });

  const root = `/${path}`;
  const page = docsPage(root, document.info.title);
  const init = docsInit(root);
  const assets = swaggerUiAssets();
  const fastify = app.getHttpAdapter().getInstance();
  fastify.get(`${root}/docs`, (_req, reply) => {
    void reply.type('text/html; charset=utf-8').send(page);
  });
  fastify.get(`${root}/docs/init.js`, (_req, reply) => {
    void reply.type('application/javascript; charset=utf-8').send(init);
  });
  fastify.get<{ Params: { file: string } }>(`${root}/docs/assets/:file`, (req, reply) => {
    const asset = Object.prototype.hasOwnProperty.call(assets, req.params.file) ? assets[req.params.file] : undefined;
    if (!asset) {
      void reply.callNotFound();
      return;
    }
    void reply.header('Cache-Control', 'public, max-age=86400').type(asset.type).send(asset.body);
  });
}

/**
 * Runs `use` on an app created in preview mode, which reads the controllers' metadata without
 * instantiating a provider (no database, no NATS, no server): how the documents are built offline.
 */
export async function withPreviewApp<T>(
  module: DynamicModule,
  use: (app: INestApplication) => T | Promise<T>,
): Promise<T> {
  const app = await NestFactory.create(module, new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}
