import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import type { DescService } from '@bufbuild/protobuf';
import {
  RPC_SCOPES,
  assertCovered,
  authorize,
  canChange,
  canSee,
  isPublic,
  requiredScope,
} from '../../src/accounts/authorization.ts';
import { hasScope } from '../../src/accounts/principal.ts';
import { ApiError } from '../../src/domain/errors.ts';
import { principalOf } from './support.ts';

const reader = principalOf('rita', ['read']);
const writer = principalOf('walt', ['write']);
const admin = principalOf('root', ['admin']);

/** Every RPC the generated code declares (all services in src/gen), by `package.Service.Method`. */
async function generatedRpcs(): Promise<string[]> {
  const genDir = new URL('../../src/gen/', import.meta.url).pathname;
  const files = (await readdir(genDir, { recursive: true })).filter((f) => f.endsWith('_pb.ts'));
  const names: string[] = [];
  for (const file of files) {
    const module = (await import(join(genDir, file))) as Record<string, unknown>;
    for (const value of Object.values(module)) {
      const service = value as DescService;
      if (service?.kind === 'service') names.push(...service.methods.map((m) => `${service.typeName}.${m.name}`));
    }
  }
  return names;
}

test('scopes nest: admin implies write implies read', () => {
  assert.equal([hasScope(reader, 'read'), hasScope(reader, 'write'), hasScope(reader, 'admin')], [true, false, false]);
  assert.equal([hasScope(writer, 'read'), hasScope(writer, 'write'), hasScope(writer, 'admin')], [true, true, false]);
  assert.equal([hasScope(admin, 'read'), hasScope(admin, 'write'), hasScope(admin, 'admin')], [true, true, true]);
  assert.not.ok(hasScope(principalOf('none', []), 'read'));
});

test('every RPC in the generated code has an entry in the table, and the table names no others', async () => {
  const rpcs = await generatedRpcs();
  assert.ok(rpcs.length >= 30, `found ${rpcs.length} RPCs`);
  assertCovered(rpcs);
  assert.equal(new Set(RPC_SCOPES.keys()), new Set(rpcs));
});

test('the table: reads need read, changes write, accounts admin; login and health are public', () => {
  assert.is(requiredScope('tms.v1.EventService.SearchEvents'), 'read');
  assert.is(requiredScope('tms.v1.EventService.ManipulateEvent'), 'write');
  assert.is(requiredScope('tms.v1.TimelineService.DeleteTimeline'), 'write');
  assert.is(requiredScope('tms.v1.AnchorService.SetAnchor'), 'write');
  assert.is(requiredScope('tms.v1.AnchorService.CheckAnchorStability'), 'read');
  assert.is(requiredScope('tms.v1.AccountService.CreateAccount'), 'admin');
  assert.is(requiredScope('tms.v1.AccountService.CreateKey'), 'read');
  assert.ok(isPublic('tms.v1.AccountService.Login'));
  assert.ok(isPublic('grpc.health.v1.Health.Check'));
  assert.not.ok(isPublic('tms.v1.AccountService.Logout'));
  // The gRPC path form is the same RPC.
  assert.is(requiredScope('/tms.v1.EventService/ManipulateEvent'), 'write');
});

test('an RPC missing from the table is an error, never a default', () => {
  assert.throws(() => requiredScope('tms.v1.EventService.DropEverything'), /has no entry in the authorization table/);
  assert.throws(() => authorize(admin, 'tms.v1.NewService.Anything'), /has no entry/);
  assert.throws(() => assertCovered(['tms.v1.EventService.SearchEvents', 'tms.v1.X.Y']), /tms\.v1\.X\.Y/);
});

test('authorize: permission_denied naming the RPC, the scope needed and the scopes held', () => {
  authorize(reader, 'tms.v1.EventService.SearchEvents');
  authorize(writer, 'tms.v1.EventService.SearchEvents');
  authorize(admin, 'tms.v1.AccountService.DeleteAccount');
  authorize(principalOf('', []), 'tms.v1.AccountService.Login');
  let error: unknown;
  try {
    authorize(reader, 'tms.v1.EventService.ManipulateEvent');
  } catch (caught) {
    error = caught;
  }
  assert.instance(error, ApiError);
  assert.is((error as ApiError).code, 'permission_denied');
  assert.is((error as ApiError).message, 'tms.v1.EventService.ManipulateEvent needs the "write" scope; this credential has: read');
  assert.throws(() => authorize(writer, 'tms.v1.AccountService.ListAccounts'), /needs the "admin" scope; this credential has: write/);
});

test('ownership: owners and admins see; unowned records (primary) are seen by all', () => {
  assert.ok(canSee(reader, 'rita'));
  assert.not.ok(canSee(reader, 'walt'));
  assert.ok(canSee(admin, 'walt'));
  assert.ok(canSee(reader, ''));
  assert.ok(canSee(reader, undefined));
});

test('changes: owners with write, admins; primary and unowned records need admin', () => {
  const ownerWithWrite = principalOf('walt', ['write']);
  const ownerReadOnly = principalOf('walt', ['read']);
  assert.ok(canChange(ownerWithWrite, 'tl_1', 'walt'));
  assert.not.ok(canChange(ownerReadOnly, 'tl_1', 'walt'));
  assert.not.ok(canChange(writer, 'tl_2', 'rita'));
  assert.ok(canChange(admin, 'tl_2', 'rita'));
  assert.not.ok(canChange(writer, 'primary', ''));
  assert.not.ok(canChange(principalOf('walt', ['write']), 'primary', 'walt'));
  assert.ok(canChange(admin, 'primary', ''));
  assert.not.ok(canChange(writer, 'tl_3', ''));
});

test.run();
