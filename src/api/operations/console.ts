import { z } from 'zod';
import type { OperationDeps } from '../deps.ts';
import type { SavedRequestRecord } from '../../saved-requests/records.ts';
import { defineOperation } from '../operation.ts';
import { blankAsMissing, pageSizeField, pageTokenField } from '../fields.ts';
import { invalidArgument } from '../../domain/errors.ts';
import { pageSizeOf } from '../paging.ts';

const saveInput = z.strictObject({
  name: z.string(),
  method: z.string(),
  path: z.string(),
  headers: z.record(z.string(), z.string()).default({}),
  body: z.string().default(''),
});
const listInput = z.strictObject({ page_size: pageSizeField, page_token: pageTokenField });
const getInput = z.strictObject({
  id: blankAsMissing(z.string().max(200, 'must be at most 200 characters').optional()),
  share_token: blankAsMissing(z.string().max(200, 'must be at most 200 characters').optional()),
});
const byIdInput = z.strictObject({ id: z.string().trim().min(1, 'is required').max(200, 'must be at most 200 characters') });

/** The SavedRequest message, snake_case. */
const savedJson = (record: SavedRequestRecord) => ({
  id: record.id,
  name: record.name,
  method: record.method,
  path: record.path,
  headers: record.headers,
  body: record.body,
  created_at: record.created_at,
  owner: record.owner,
  share_token: record.share_token,
});

/** ConsoleService: requests saved from the try-it console, per account (see src/saved-requests/). */
export function consoleOperations({ savedRequests, config }: OperationDeps) {
  return {
    'tms.v1.ConsoleService.SaveRequest': defineOperation(saveInput, async (ctx, input) => ({
      saved_request: savedJson(await savedRequests.save(ctx.principal.account, input)),
    })),
    'tms.v1.ConsoleService.ListSavedRequests': defineOperation(listInput, async (ctx, input) => {
      const page = await savedRequests.list(ctx.principal.account, pageSizeOf(input.page_size, config), input.page_token);
      return { saved_requests: page.records.map(savedJson), next_page_token: page.nextPageToken };
    }),
    'tms.v1.ConsoleService.GetSavedRequest': defineOperation(getInput, async (ctx, input) => {
      if (input.id !== undefined && input.share_token !== undefined) throw invalidArgument('share_token', 'give either id or share_token, not both');
      if (input.share_token !== undefined) return { saved_request: savedJson(await savedRequests.getShared(input.share_token)) };
      if (input.id === undefined) throw invalidArgument('id', 'is required (or share_token)');
      return { saved_request: savedJson(await savedRequests.get(ctx.principal.account, input.id)) };
    }),
    'tms.v1.ConsoleService.DeleteSavedRequest': defineOperation(byIdInput, async (ctx, input) => {
      const deleted = await savedRequests.delete(ctx.principal.account, input.id);
      return { status: 'Saved request deleted', id: deleted.id };
    }),
    'tms.v1.ConsoleService.ShareSavedRequest': defineOperation(byIdInput, async (ctx, input) => ({
      saved_request: savedJson(await savedRequests.share(ctx.principal.account, input.id)),
    })),
    'tms.v1.ConsoleService.UnshareSavedRequest': defineOperation(byIdInput, async (ctx, input) => ({
      saved_request: savedJson(await savedRequests.unshare(ctx.principal.account, input.id)),
    })),
  };
}
