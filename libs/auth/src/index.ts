export { TOKEN_KINDS, generateToken, hashToken, constantTimeEqual, isWellFormedToken } from './tokens';
export type { TokenKind } from './tokens';
export { SecretBox, SecretBoxError } from './secret-box';
export { sha256BodySignature } from './body-signature';
