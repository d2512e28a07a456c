import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/** A secret stored or carried sealed: `v1.<key id>.<iv>.<ciphertext>.<tag>`, base64url parts. */
const FORMAT = /^v1\.([A-Za-z0-9_-]{1,32})\.([A-Za-z0-9_-]{16})\.([A-Za-z0-9_-]*)\.([A-Za-z0-9_-]{22})$/;

/** Raised when a sealed value cannot be opened: unknown key id, tampered with, or not a sealed value. */
export class SecretBoxError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SecretBoxError';
  }
}

/**
 * Seals secrets at rest and in transit with AES-256-GCM. Several keys may be known at once, each
 * with an id written beside the ciphertext, so a key can be rotated: seal with the current key,
 * open with whichever key sealed the value.
 */
export class SecretBox {
  private readonly keys: Map<string, Buffer>;

  /**
   * @param keys key id -> 32-byte key; `current` seals.
   */
  constructor(
    keys: Record<string, Buffer>,
    private readonly current: string,
  ) {
    this.keys = new Map(Object.entries(keys));
    for (const [id, key] of this.keys) {
      if (!/^[A-Za-z0-9_-]{1,32}$/.test(id))
        throw new SecretBoxError(`key id "${id}" must be 1-32 letters, digits, _ or -`);
      if (key.length !== 32) throw new SecretBoxError(`key "${id}" must be 32 bytes`);
    }
    if (!this.keys.has(current)) throw new SecretBoxError(`the current key "${current}" is not among the keys`);
  }

  /**
   * Reads keys from a variable's value: `id:base64key[,id:base64key...]`, the first sealing. A lone
   * base64 key gets the id `k1`.
   */
  static fromSpec(spec: string): SecretBox {
    const entries = spec
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
      .map((part) => {
        const at = part.indexOf(':');
        return at < 0 ? ['k1', part] : [part.slice(0, at), part.slice(at + 1)];
      });
    if (entries.length === 0) throw new SecretBoxError('no key given');
    for (const [id, b64] of entries) {
      if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) throw new SecretBoxError(`key "${id}" is not base64`);
    }
    return new SecretBox(
      Object.fromEntries(entries.map(([id, b64]) => [id, Buffer.from(b64, 'base64')])),
      entries[0][0],
    );
  }

  /** True when `spec` is a usable key list (for configuration checks). */
  static isValidSpec(spec: string): boolean {
    try {
      SecretBox.fromSpec(spec);
      return true;
    } catch {
      return false;
    }
  }

  get currentKeyId(): string {
    return this.current;
  }

  /** Every key id it knows, the sealing one first. */
  get keyIds(): string[] {
    return [this.current, ...[...this.keys.keys()].filter((id) => id !== this.current)];
  }

  /**
   * Keys for another purpose derived from these (HKDF-SHA256, `info` naming the purpose), the
   * sealing key's first: the stored keys themselves never leave the box, and keys derived for
   * different purposes are unrelated.
   */
  derive(info: string, length = 32): Buffer[] {
    return this.keyIds.map((id) => Buffer.from(hkdfSync('sha256', this.keys.get(id)!, Buffer.alloc(0), info, length)));
  }

  /**
   * Seals `plain`; `aad` (additional data, e.g. the id of the row it is stored in) must be given
   * again to open it, so a sealed value copied elsewhere does not open.
   */
  seal(plain: string, aad?: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.current)!, iv);
    if (aad !== undefined) cipher.setAAD(Buffer.from(aad, 'utf8'));
    const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
    return [
      'v1',
      this.current,
      iv.toString('base64url'),
      ct.toString('base64url'),
      cipher.getAuthTag().toString('base64url'),
    ].join('.');
  }

  open(sealed: string, aad?: string): string {
    const m = FORMAT.exec(sealed);
    if (!m) throw new SecretBoxError('not a sealed value');
    const key = this.keys.get(m[1]);
    if (!key) throw new SecretBoxError(`sealed with key "${m[1]}", which is not configured`);
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(m[2], 'base64url'));
      if (aad !== undefined) decipher.setAAD(Buffer.from(aad, 'utf8'));
      decipher.setAuthTag(Buffer.from(m[4], 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(m[3], 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretBoxError('the sealed value does not open with its key (tampered with, or the wrong key)');
    }
  }

  /** The key id a sealed value names, without opening it (to find values to re-seal after a rotation). */
  static keyIdOf(sealed: string): string | null {
    return FORMAT.exec(sealed)?.[1] ?? null;
  }
}
