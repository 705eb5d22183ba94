// The store's client and search tokens. Under load the sandbox makes tens of thousands of tokens
// a second and must keep each one until maxTokens newer ones exist. Kept as objects in a Map,
// every token outlived two scavenges, was copied into old space and marked there until forgotten:
// about 3 µs of GC per token at the cap, more than the rest of the token call. So tokens live in a
// ring of slots held in typed arrays, and the token value names its own slot: a lookup decodes the
// slot and compares the stored characters, and nothing per token is left for the GC to copy.
import { randomFillSync } from 'node:crypto';

export interface TokenRecord {
  Token: string;
  ApiKey: string;
  Kind: 'client' | 'search';
  CompanyId?: string;
  SearchId?: string;
  /** Epoch milliseconds; undefined means no expiry. */
  ValidTo?: number;
  Revoked: boolean;
  /** Roles of the User the token was created for; undefined when created without a User. */
  UserRoles?: string[];
}

export type NewToken = Omit<TokenRecord, 'Token' | 'Revoked'>;

/** 24 random bytes as base64url: 32 characters, the first four of which carry the slot (3 bytes). */
const TOKEN_BYTES = 24;
const TOKEN_LENGTH = 32;
const SLOT_CHARACTERS = 4;
/** The most slots three bytes can name. */
export const MAX_TOKEN_SLOTS = 2 ** 24;

const BASE64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
const SEXTETS = new Int8Array(128).fill(-1);
for (let index = 0; index < BASE64URL.length; index++) SEXTETS[BASE64URL.charCodeAt(index)] = index;

const EMPTY = 0;
const CLIENT = 1;
const SEARCH = 2;

/** Tokens in creation order, at most `capacity`; a new token past that takes the oldest one's slot. */
export class TokenTable {
  private readonly capacity: number;
  private created = 0;
  private readonly text: Uint8Array;
  private readonly kinds: Uint8Array;
  private readonly revoked: Uint8Array;
  /** NaN for a token without expiry. */
  private readonly validTo: Float64Array;
  // References to strings the store keeps anyway (API keys, CompanyIds), so they cost no copy.
  private readonly apiKeys: string[] = [];
  private readonly companyIds: Array<string | undefined> = [];
  private readonly searchIds: Array<string | undefined> = [];
  private readonly userRoles: Array<string[] | undefined> = [];
  // One buffer, refilled in place, serves 2048 tokens: a new Buffer per refill cost more than
  // the random bytes in it.
  private readonly random = Buffer.allocUnsafe(TOKEN_BYTES * 2048);
  private randomOffset = this.random.length;

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_TOKEN_SLOTS) {
      throw new Error(`maxTokens must be an integer from 1 to ${MAX_TOKEN_SLOTS}`);
    }
    this.capacity = capacity;
    // Pages of a typed array are not touched until written, so an unused capacity costs no memory.
    this.text = new Uint8Array(capacity * TOKEN_LENGTH);
    this.kinds = new Uint8Array(capacity);
    this.revoked = new Uint8Array(capacity);
    this.validTo = new Float64Array(capacity);
  }

  /** Tokens kept now. */
  get size(): number {
    return Math.min(this.created, this.capacity);
  }

  create(token: NewToken): TokenRecord {
    const slot = this.created % this.capacity;
    this.created++;
    const value = this.newValue(slot);
    const start = slot * TOKEN_LENGTH;
    for (let index = 0; index < TOKEN_LENGTH; index++) this.text[start + index] = value.charCodeAt(index);
    this.kinds[slot] = token.Kind === 'client' ? CLIENT : SEARCH;
    this.revoked[slot] = 0;
    this.validTo[slot] = token.ValidTo ?? NaN;
    // During the first round slot equals the arrays' length, so these append.
    this.apiKeys[slot] = token.ApiKey;
    this.companyIds[slot] = token.CompanyId;
    this.searchIds[slot] = token.SearchId;
    this.userRoles[slot] = token.UserRoles;
    return {
      Token: value,
      ApiKey: token.ApiKey,
      Kind: token.Kind,
      CompanyId: token.CompanyId,
      SearchId: token.SearchId,
      ValidTo: token.ValidTo,
      Revoked: false,
      UserRoles: token.UserRoles,
    };
  }

  /**
   * The token as it stands now, or undefined for a value never made here or already forgotten.
   * `prefix`: compare only that many first characters (the fault credentials-prefix-compared).
   */
  get(value: string, prefix?: number): TokenRecord | undefined {
    const slot = this.slotOf(value, prefix);
    if (slot === undefined) return undefined;
    const validTo = this.validTo[slot];
    return {
      Token: value,
      ApiKey: this.apiKeys[slot],
      Kind: this.kinds[slot] === CLIENT ? 'client' : 'search',
      CompanyId: this.companyIds[slot],
      SearchId: this.searchIds[slot],
      ValidTo: Number.isNaN(validTo) ? undefined : validTo,
      Revoked: this.revoked[slot] === 1,
      UserRoles: this.userRoles[slot],
    };
  }

  /** Marks a kept token revoked; false when the value is unknown. */
  revoke(value: string): boolean {
    const slot = this.slotOf(value);
    if (slot === undefined) return false;
    this.revoked[slot] = 1;
    return true;
  }

  /** Revokes every kept token of a company. */
  revokeCompany(companyId: string): void {
    for (let slot = 0; slot < this.size; slot++) if (this.companyIds[slot] === companyId) this.revoked[slot] = 1;
  }

  private slotOf(value: string, prefix?: number): number | undefined {
    const compared = prefix === undefined ? TOKEN_LENGTH : Math.max(SLOT_CHARACTERS, Math.min(prefix, TOKEN_LENGTH));
    if (prefix === undefined ? value.length !== TOKEN_LENGTH : value.length < compared) return undefined;
    let slot = 0;
    for (let index = 0; index < SLOT_CHARACTERS; index++) {
      const code = value.charCodeAt(index);
      const sextet = code < SEXTETS.length ? SEXTETS[code] : -1;
      if (sextet < 0) return undefined;
      slot = slot * 64 + sextet;
    }
    if (slot >= this.capacity || this.kinds[slot] === EMPTY) return undefined;
    const start = slot * TOKEN_LENGTH;
    for (let index = 0; index < compared; index++) if (this.text[start + index] !== value.charCodeAt(index)) return undefined;
    return slot;
  }

  private newValue(slot: number): string {
    if (this.randomOffset + TOKEN_BYTES > this.random.length) {
      randomFillSync(this.random);
      this.randomOffset = 0;
    }
    const start = this.randomOffset;
    this.randomOffset += TOKEN_BYTES;
    this.random[start] = slot >>> 16;
    this.random[start + 1] = (slot >>> 8) & 0xff;
    this.random[start + 2] = slot & 0xff;
    return this.random.toString('base64url', start, start + TOKEN_BYTES);
  }
}
