import { DynamicModule, Global, Module } from '@nestjs/common';

/** Makes a validated configuration object injectable by its class everywhere in a service. */
@Global()
@Module({})
export class ConfigModule {
  static forRoot<T extends object>(config: T): DynamicModule {
    const token = config.constructor;
    return { module: ConfigModule, providers: [{ provide: token, useValue: config }], exports: [token] };
  }
}
