import { z } from 'zod';
import type { OperationDeps } from '../deps.ts';
import type { KeyView } from '../../accounts/records.ts';
import { defineOperation } from '../operation.ts';
import { blankAsMissing, pageSizeField, pageTokenField } from '../fields.ts';
import { ApiError } from '../../domain/errors.ts';
import { pageOf, pageSizeOf } from '../paging.ts';
import { removeAccount } from '../../saved-requests/remove-account.ts';

// Field rules (lengths, scope names, expiry) live in src/accounts/validation.ts; these schemas check shapes.
const loginInput = z.strictObject({ username: z.string(), password: z.string() });
const createAccountInput = z.strictObject({
  username: z.string(),
  password: blankAsMissing(z.string().optional()),
  scopes: z.array(z.string()).default(['read']),
});
const listInput = z.strictObject({ page_size: pageSizeField, page_token: pageTokenField });
const deleteAccountInput = z.strictObject({ username: z.string().min(1, 'is required') });
const createKeyInput = z.strictObject({
  name: z.string(),
  scopes: z.array(z.string()).default(['read']),
  expires_at: blankAsMissing(z.string().optional()),
  account: blankAsMissing(z.string().optional()),
});
const listKeysInput = z.strictObject({
  account: blankAsMissing(z.string().optional()),
  page_size: pageSizeField,
  page_token: pageTokenField,
});
const revokeKeyInput = z.strictObject({ key_id: z.string().min(1, 'is required') });

const keyJson = (key: KeyView) => ({
  key_id: key.key_id,
  name: key.name,
  scopes: key.scopes,
  created_at: key.created_at,
  expires_at: key.expires_at ?? '',
  last_used_at: key.last_used_at ?? '',
  account: key.account,
});

export function accountOperations(deps: OperationDeps) {
  const { access } = deps;
  return {
    'tms.v1.AccountService.Login': defineOperation(loginInput, async (ctx, input) => {
      const session = await access.login(input.username, input.password, ctx.client);
      return { token: session.token, expires_at: session.expires_at };
    }),
    'tms.v1.AccountService.Logout': defineOperation(z.strictObject({}), async (ctx) => {
      if (!ctx.authorization) throw new ApiError('unauthenticated', 'missing Authorization: Bearer <API_KEY> header');
      await access.logout(ctx.authorization);
      return { status: 'Logged out' };
    }),
    'tms.v1.AccountService.CreateAccount': defineOperation(createAccountInput, async (ctx, input) => {
      const { account, password } = await access.createAccount(ctx.principal, input);
      return {
        status: password ? `Account created; its generated password is shown once: ${password}` : 'Account created',
        account: { username: account.username, scopes: account.scopes, created_at: account.created_at },
      };
    }),
    'tms.v1.AccountService.ListAccounts': defineOperation(listInput, async (ctx, input) => {
      const page = pageOf(access.listAccounts(ctx.principal), (a) => a.username, pageSizeOf(input.page_size, deps.config), input.page_token);
      return {
        accounts: page.items.map((a) => ({ username: a.username, scopes: a.scopes, created_at: a.created_at })),
        next_page_token: page.nextPageToken,
      };
    }),
    'tms.v1.AccountService.DeleteAccount': defineOperation(deleteAccountInput, async (ctx, input) => {
      const username = await removeAccount(access, deps.savedRequests, ctx.principal, input.username);
      return { status: 'Account deleted', username };
    }),
    'tms.v1.AccountService.CreateKey': defineOperation(createKeyInput, async (ctx, input) => {
      const key = await access.createKey(ctx.principal, input);
      // CreateKeyResponse has no last_used_at (a new key has never been used); gRPC refuses unknown fields.
      const { key_id, name, scopes, created_at, expires_at, account } = keyJson(key);
      return { key_id, key: key.key, name, scopes, created_at, expires_at, account };
    }),
    'tms.v1.AccountService.ListKeys': defineOperation(listKeysInput, async (ctx, input) => {
      const keys = await access.listKeys(ctx.principal, { account: input.account });
      const page = pageOf(keys, (k) => `${k.created_at} ${k.key_id}`, pageSizeOf(input.page_size, deps.config), input.page_token);
      return { keys: page.items.map(keyJson), next_page_token: page.nextPageToken };
    }),
    'tms.v1.AccountService.RevokeKey': defineOperation(revokeKeyInput, async (ctx, input) => {
      const key = await access.revokeKey(ctx.principal, input.key_id);
      return { status: 'Key revoked', key_id: key.key_id };
    }),
  };
}
