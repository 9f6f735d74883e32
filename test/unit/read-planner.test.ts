import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { thrownCode as code } from '../helpers/thrown.js';
import { publicAccountability } from '../../src/permissions/accountability.js';
import { planRead, type PlanContext } from '../../src/plan/read-planner.js';
import { ADMIN_ACCOUNTABILITY, SMALL_SCHEMA } from '../helpers/small-schema.js';

const ctx: PlanContext = { schema: SMALL_SCHEMA, accountability: ADMIN_ACCOUNTABILITY, queryLimitDefault: 100, now: new Date('2026-01-01T00:00:00Z') };


describe('planRead', () => {
  it('selects every column for * and defaults sort to the key and limit to the default', () => {
    const plan = planRead('articles', {}, ctx);
    assert.deepEqual(plan.fields.map((f) => f.key), ['id', 'title', 'rating', 'price', 'published', 'updated_at', 'metadata', 'secret']);
    assert.deepEqual(plan.sort.map((s) => [s.field.field, s.descending]), [['id', false]]);
    assert.equal(plan.limit, 100);
    assert.equal(plan.offset, 0);
    assert.equal(plan.filter, null);
    assert.ok(plan.fields.find((f) => f.key === 'secret')!.field.concealed);
  });

  it('computes offsets from pages and treats -1 as no limit', () => {
    assert.equal(planRead('articles', { limit: 10, page: 3, offset: 1 }, ctx).offset, 21);
    assert.equal(planRead('articles', { limit: -1 }, ctx).limit, null);
  });

  it('coerces filter values to the field type and resolves dynamic values', () => {
    const plan = planRead('articles', { filter: { type: 'logical', operator: '_and', children: [
      { type: 'condition', field: 'rating', operator: '_in', value: ['1', 2] },
      { type: 'condition', field: 'published', operator: '_eq', value: 'false' },
      { type: 'condition', field: 'price', operator: '_gt', value: 3 },
      { type: 'condition', field: 'updated_at', operator: '_lt', value: { dynamic: 'NOW', offsetMs: -86_400_000 } },
      { type: 'condition', field: 'title', operator: '_eq', value: { dynamic: 'CURRENT_USER' } },
    ] } }, ctx);
    assert.equal(plan.filter!.kind, 'and');
    const values = (plan.filter as { children: { value: unknown }[] }).children.map((c) => c.value);
    assert.deepEqual(values, [[1, 2], false, '3', '2025-12-31T00:00:00.000Z', 'u1']);
  });

  it('builds search over text fields, and numeric fields when the term is a number', () => {
    const words = planRead('articles', { search: 'Ada' }, ctx).filter as { kind: string; children: { field: { field: string }; operator: string }[] };
    assert.deepEqual(words.children.map((c) => [c.field.field, c.operator]), [['title', '_icontains']]);
    const number = planRead('articles', { search: '5' }, ctx).filter as { children: { field: { field: string } }[] };
    assert.deepEqual(number.children.map((c) => c.field.field), ['id', 'title', 'rating', 'price']);
  });

  it('turns keys of the wrong type into a filter that matches nothing', () => {
    assert.deepEqual(planRead('articles', { keys: ['abc'] }, { ...ctx, single: true }).filter, { kind: 'constant', value: false });
  });

  it('refuses unknown and system collections, unknown fields and non-admins with FORBIDDEN', () => {
    assert.equal(code(() => planRead('nope', {}, ctx)), 'FORBIDDEN');
    assert.equal(code(() => planRead('service_users', {}, ctx)), 'FORBIDDEN');
    assert.equal(code(() => planRead('articles', { fields: ['nope'] }, ctx)), 'FORBIDDEN');
    assert.equal(code(() => planRead('articles', { sort: [{ field: 'nope', order: 'asc' }] }, ctx)), 'FORBIDDEN');
    assert.equal(code(() => planRead('articles', { filter: { type: 'condition', field: 'nope', operator: '_eq', value: 1 } }, ctx)), 'FORBIDDEN');
    assert.equal(code(() => planRead('articles', {}, { ...ctx, accountability: publicAccountability() })), 'FORBIDDEN');
  });

  it('refuses values that cannot fit the field with INVALID_QUERY', () => {
    for (const [field, value] of [['rating', 'high'], ['published', 'maybe'], ['updated_at', '2024-13-01'], ['price', '1,5']] as const) {
      assert.equal(code(() => planRead('articles', { filter: { type: 'condition', field, operator: '_eq', value } }, ctx)), 'INVALID_QUERY', field);
    }
    assert.equal(code(() => planRead('articles', { filter: { type: 'condition', field: 'rating', operator: '_gt', value: null } }, ctx)), 'INVALID_QUERY');
  });
});
