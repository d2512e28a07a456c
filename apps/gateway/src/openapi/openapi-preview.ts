import { INestApplication } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { FastifyAdapter } from '@nestjs/platform-fastify';
import type { OpenAPIObject } from '@nestjs/swagger';
import { loadConfig } from '@app/config';
import { GatewayModule } from '../app.module';
import { GatewayConfig } from '../config';
import { buildGatewayOpenApiDocument } from './openapi';

/**
 * Runs `use` on the gateway created in preview mode, which reads the controllers' metadata without
 * instantiating a provider (no database, no NATS, no server).
 */
export async function withPreviewGateway<T>(
  use: (app: INestApplication, config: GatewayConfig) => T | Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const config = loadConfig(GatewayConfig, env);
  const app = await NestFactory.create(GatewayModule.forRoot(config), new FastifyAdapter(), {
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

/** The gateway's OpenAPI document, as `/v1/openapi.json` serves it, without running the gateway. */
export function previewGatewayOpenApiDocument(env: NodeJS.ProcessEnv = process.env): Promise<OpenAPIObject> {
  return withPreviewGateway((app, config) => buildGatewayOpenApiDocument(app, config.GATEWAY_PUBLIC_URL), env);
}
