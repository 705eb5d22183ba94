import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_TOKEN_SLOTS, TokenTable } from '../../sandbox/token-table.ts';
import { resolveConfig } from '../../sandbox/config.ts';

const client = (CompanyId: string, extra: { ValidTo?: number; UserRoles?: string[] } = {}) => ({ ApiKey: 'key-a', Kind: 'client' as const, CompanyId, ...extra });

/** The same value with one character after the slot changed, still base64url. */
function tampered(value: string, at = 10): string {
  const replacement = value[at] === 'A' ? 'B' : 'A';
  return value.slice(0, at) + replacement + value.slice(at + 1);
}

describe('token table', () => {
  test('a created token is found with everything it was created with (TOK-03)', () => {
    const table = new TokenTable(10);
    const created = table.create(client('company-1', { ValidTo: 1_800_000_000_000, UserRoles: ['Admin'] }));
    assert.match(created.Token, /^[A-Za-z0-9_-]{32}$/);
    assert.deepEqual(table.get(created.Token), created);
    const search = table.create({ ApiKey: 'key-b', Kind: 'search', SearchId: 'search-1' });
    assert.deepEqual(table.get(search.Token), { Token: search.Token, ApiKey: 'key-b', Kind: 'search', CompanyId: undefined, SearchId: 'search-1', ValidTo: undefined, Revoked: false, UserRoles: undefined });
    assert.equal(table.size, 2);
  });

  test('values that were never made here are unknown: another slot, other characters, other lengths, other alphabets (SEC-02)', () => {
    const table = new TokenTable(4);
    const created = table.create(client('company-1'));
    assert.equal(table.get(tampered(created.Token)), undefined);
    assert.equal(table.get(tampered(created.Token, 31)), undefined);
    // A slot that holds nothing yet, and a slot past the capacity.
    assert.equal(table.get(`AAAB${created.Token.slice(4)}`), undefined);
    assert.equal(table.get(`AAAZ${created.Token.slice(4)}`), undefined);
    assert.equal(table.get(created.Token.slice(0, 31)), undefined);
    assert.equal(table.get(`${created.Token}A`), undefined);
    assert.equal(table.get(`é${created.Token.slice(1)}`), undefined);
    assert.equal(table.get(`+${created.Token.slice(1)}`), undefined);
    assert.equal(table.get(''), undefined);
    assert.equal(table.revoke(tampered(created.Token)), false);
  });

  test('past its capacity the table forgets the oldest token first, and the newest stay usable', () => {
    const table = new TokenTable(3);
    const tokens = Array.from({ length: 5 }, (_, index) => table.create(client(`company-${index}`)).Token);
    assert.equal(table.size, 3);
    assert.equal(table.get(tokens[0]), undefined);
    assert.equal(table.get(tokens[1]), undefined);
    assert.deepEqual(tokens.slice(2).map((token) => table.get(token)?.CompanyId), ['company-2', 'company-3', 'company-4']);
    assert.equal(new Set(tokens).size, 5);
  });

  test('a revoked token stays known as revoked; a slot taken over by a new token is not revoked (TOK-11, SEC-05)', () => {
    const table = new TokenTable(2);
    const first = table.create(client('company-1')).Token;
    assert.equal(table.revoke(first), true);
    assert.equal(table.get(first)?.Revoked, true);
    table.create(client('company-2'));
    const third = table.create(client('company-3')).Token;
    assert.equal(table.get(first), undefined);
    assert.equal(table.get(third)?.Revoked, false);
  });

  test('revoking a company revokes its kept tokens and no others', () => {
    const table = new TokenTable(5);
    const mine = [table.create(client('company-1')).Token, table.create(client('company-1')).Token];
    const other = table.create(client('company-2')).Token;
    table.revokeCompany('company-1');
    assert.deepEqual(mine.map((token) => table.get(token)?.Revoked), [true, true]);
    assert.equal(table.get(other)?.Revoked, false);
  });

  test('the capacity is bounded by the slots a token can name, and the configuration says so', () => {
    assert.throws(() => new TokenTable(0), /maxTokens must be an integer from 1 to 16777216/);
    assert.throws(() => new TokenTable(MAX_TOKEN_SLOTS + 1), /maxTokens/);
    assert.throws(() => resolveConfig({ maxTokens: MAX_TOKEN_SLOTS + 1 }), /invalid value for "maxTokens"/);
    assert.equal(resolveConfig({ maxTokens: MAX_TOKEN_SLOTS }).maxTokens, MAX_TOKEN_SLOTS);
  });
});
