export { AuthModule } from './auth.module';
export { SystemTokenGuard } from './system-token.guard';
export { CurrentUser } from './authenticated-user';
export type { AuthenticatedUser } from './authenticated-user';
export { bearerToken } from './bearer-token';
