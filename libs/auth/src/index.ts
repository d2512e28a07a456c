export { TOKEN_KINDS, generateToken, hashToken, sameHash, isWellFormedToken } from './tokens';
export type { TokenKind } from './tokens';
