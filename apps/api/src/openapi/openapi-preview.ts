import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from '@app/config';
import { ApiModule } from '../app.module';
import { ApiConfig } from '../config';
import { buildOpenApiDocument } from './openapi';

/**
 * Runs `use` on the api created in preview mode, which reads the controllers' metadata without
 * instantiating a provider (no database, no NATS, no server).
 */
export async function withPreviewApi<T>(
  use: (app: INestApplication, config: ApiConfig) => T | Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const config = loadConfig(ApiConfig, env);
  const app = await NestFactory.create(ApiModule.forRoot(config), new FastifyAdapter(), {
    preview: true,
    logger: false,
    abortOnError: false,
  });
  try {
    return await use(app, config);
  } finally {
    await app.close();
  }
}

/** The api's OpenAPI document, as `/api/openapi.json` serves it, without running the api. */
export function previewOpenApiDocument(env: NodeJS.ProcessEnv = process.env): Promise<OpenAPIObject> {
  return withPreviewApi((app, config) => buildOpenApiDocument(app, config.API_PUBLIC_URL), env);
}
