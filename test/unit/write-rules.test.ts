/**
 * Write rules in the pure planner (plan/write-access.ts, plan/write-rules.ts): rules resolved per caller into
 * field sets, presets, validation filters and planned item rules; applied to planned rows, nested ones included.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Accountability } from '../../src/permissions/accountability.js';
import type { PermissionRule } from '../../src/permissions/permission-rule.js';
import { PermissionSet } from '../../src/permissions/permission-store.js';
import type { WriteContext } from '../../src/plan/write-context.js';
import { resolvePlan } from '../../src/plan/write-resolution.js';
import { lookups, planCreate, planDelete, planUpdate } from '../helpers/write-planning.js';
import { policyWriteAccess, resolveVariables } from '../../src/plan/write-access.js';
import { parseFilter } from '../../src/request/parse-filter.js';
import { thrownCode as code } from '../helpers/thrown.js';
import { WRITE_SCHEMA } from '../helpers/write-schema.js';

const NOW = new Date('2026-03-04T05:06:07.089Z');
const USER: Accountability = {
  user: 'u-1',
  role: 'r-1',
  roles: ['r-1', 'r-0'],
  policies: ['p-1'],
  admin: false,
  app: false,
  ip: null,
};

function rule(
  collection: string,
  action: PermissionRule['action'],
  extra: Partial<PermissionRule> & { validationRule?: Record<string, unknown> } = {},
): PermissionRule {
  const { validationRule, ...rest } = extra;
  return {
    policy: 'p-1',
    collection,
    action,
    fields: '*',
    permissions: null,
    validation: validationRule ? parseFilter(validationRule) : null,
    rawValidation: validationRule ?? null,
    presets: null,
    ...rest,
  };
}

function context(rules: PermissionRule[], dynamic = new Map<string, unknown>()): WriteContext {
  const access = policyWriteAccess(new PermissionSet(rules), {
    schema: WRITE_SCHEMA,
    accountability: USER,
    now: NOW,
    dynamic,
  });
  return {
    schema: WRITE_SCHEMA,
    accountability: USER,
    now: NOW,
    uuid: () => '00000000-0000-4000-8000-000000000001',
    maxBatchMutation: Infinity,
    access,
  };
}

function failures(fn: () => unknown): [string, unknown, unknown][] {
  try {
    fn();
  } catch (error) {
    const list = (error as { errors?: { code: string; extensions: Record<string, unknown> }[] }).errors ?? [
      error as { code: string; extensions: Record<string, unknown> },
    ];
    return list.map((e) => [e.code, e.extensions.field ?? null, e.extensions.type ?? null]);
  }
  return [];
}

describe('write access', () => {
  it('resolves variables in presets and validation rules', () => {
    const resolved = resolveVariables(
      { a: '$CURRENT_USER', b: ['$CURRENT_ROLES'], c: '$NOW(-1 day)', d: '$CURRENT_USER.email', e: '$other', f: 3 },
      {
        accountability: USER,
        now: NOW,
        dynamic: new Map([['$CURRENT_USER.email', 'me@example.com']]),
      },
    );
    assert.deepEqual(resolved, {
      a: 'u-1',
      b: [['r-1', 'r-0']],
      c: '2026-03-03T05:06:07.089Z',
      d: 'me@example.com',
      e: '$other',
      f: 3,
    });
  });

  it('unions fields, merges presets, keeps every validation and ORs item rules', () => {
    const ctx = context([
      rule('articles', 'update', {
        fields: ['title'],
        presets: { status: 'draft' },
        permissions: parseFilter({ author: { _eq: 1 } }),
        validationRule: { rating: { _gte: 1 } },
      }),
      rule('articles', 'update', {
        fields: ['rating'],
        presets: { rating: 2 },
        permissions: parseFilter({ status: { _eq: 'draft' } }),
        validationRule: { rating: { _lte: 5 } },
      }),
    ]);
    const rules = ctx.access!.rules(WRITE_SCHEMA.collections.articles!, 'update')!;
    assert.deepEqual([...(rules.fields as Set<string>)], ['title', 'rating']);
    // Keyed by the rules' stored names: an object without a prototype (compared as a plain one).
    assert.equal(Object.getPrototypeOf(rules.presets), null);
    assert.deepEqual({ ...rules.presets }, { status: 'draft', rating: 2 });
    assert.equal(rules.validation.length, 2);
    assert.equal(rules.filter?.kind, 'or');
    assert.equal(ctx.access!.rules(WRITE_SCHEMA.collections.articles!, 'delete'), null);
  });

  it('plans a rule without a condition as every row, and one that no longer fits the schema as none', () => {
    const ctx = context([
      rule('articles', 'delete'),
      rule('authors', 'delete', { permissions: parseFilter({ gone: { _eq: 1 } }) }),
    ]);
    assert.equal(ctx.access!.rules(WRITE_SCHEMA.collections.articles!, 'delete')!.filter, null);
    assert.deepEqual(ctx.access!.rules(WRITE_SCHEMA.collections.authors!, 'delete')!.filter, {
      kind: 'constant',
      value: false,
    });
  });
});

describe('write rules in the planner', () => {
  it('refuses an action without a rule, and a non-admin without rules at all', () => {
    const ctx = context([rule('articles', 'create')]);
    assert.equal(
      code(() => planUpdate('articles', [{ key: 1, payload: { title: 'T' } }], false, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planDelete('articles', [1], ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planCreate('articles', [{ title: 'T' }], false, { ...ctx, access: undefined })),
      'FORBIDDEN',
    );
    assert.equal(planCreate('articles', [{ title: 'T' }], false, ctx).rows.length, 1);
  });

  it('refuses fields outside the rules, but not the key of an update nor preset fields', () => {
    const ctx = context([
      rule('articles', 'create', { fields: ['title'], presets: { status: 'review', rating: '4' } }),
      rule('articles', 'update', { fields: ['title'] }),
    ]);
    assert.equal(
      code(() => planCreate('articles', [{ title: 'T', rating: 1 }], false, ctx)),
      'FORBIDDEN',
    );
    const [created] = planCreate('articles', [{ title: 'T' }], false, ctx).rows;
    assert.deepEqual(created!.values, { title: 'T', status: 'review', rating: 4 });
    const [updated] = planUpdate('articles', [{ key: 1, payload: { id: 1, title: 'U' } }], true, ctx).rows;
    assert.deepEqual(updated!.values, { title: 'U' });
  });

  it('lets the payload win over presets, and validates the merged payload', () => {
    const ctx = context([
      rule('articles', 'create', {
        presets: { status: 'draft', rating: 9 },
        validationRule: { _and: [{ rating: { _lte: 5 } }, { status: { _in: ['draft', 'review'] } }] },
      }),
    ]);
    assert.deepEqual(
      failures(() => planCreate('articles', [{ title: 'T' }], false, ctx)),
      [['FAILED_VALIDATION', 'rating', 'lte']],
    );
    const [row] = planCreate('articles', [{ title: 'T', rating: 3, status: 'review' }], false, ctx).rows;
    assert.deepEqual(row!.values, { title: 'T', rating: 3, status: 'review' });
    assert.deepEqual(
      failures(() => planCreate('articles', [{ title: 'T', rating: 3, status: 'published' }], false, ctx)),
      [['FAILED_VALIDATION', 'status', 'in']],
    );
  });

  it('checks nested writes against the related collection: creates, links by key (its foreign key), upserts on lookup', () => {
    const ctx = context([
      rule('authors', 'create', { fields: ['name', 'articles'] }),
      rule('articles', 'create', { fields: ['title'] }),
      rule('articles', 'update', { fields: ['title'] }),
    ]);
    // An o2m child's foreign key is written by the link: the child's create fields must hold it.
    assert.equal(
      code(() => planCreate('authors', [{ name: 'A', articles: [{ title: 'T' }] }], false, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planCreate('authors', [{ name: 'A', articles: [7] }], false, ctx)),
      'FORBIDDEN',
    );
    const linking = context([
      rule('authors', 'create', { fields: ['name', 'articles'] }),
      rule('articles', 'create', { fields: ['id', 'title', 'author'] }),
      rule('articles', 'update', { fields: ['author'] }),
    ]);
    const plan = planCreate(
      'authors',
      [{ name: 'A', articles: [7, { title: 'New' }, { id: 8, title: 'Upserted' }] }],
      false,
      linking,
    );
    const children = plan.rows[0]!.children[0]!;
    assert.deepEqual(children.assign, [7]);
    const upsert = children.rows[1]!;
    assert.equal(upsert.action, 'upsert');
    // Exists: an update, whose fields do not include title; missing: a create (with the given key), whose fields do.
    assert.equal(
      code(() => resolvePlan(plan, lookups({ articles: { '7': true, '8': true } }), new Map(), linking)),
      'FORBIDDEN',
    );
    const resolved = resolvePlan(plan, lookups({ articles: { '7': true } }), new Map(), linking);
    assert.equal(resolved.rows[0]!.children[0]!.rows[1]!.action, 'create');
  });
});
