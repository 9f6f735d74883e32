import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { publicAccountability } from '../../src/permissions/accountability.js';
import type { WriteContext } from '../../src/plan/write-context.js';
import { checkDeletes, resolvePlan } from '../../src/plan/write-resolution.js';
import { lookups, planCreate, planDelete, planUpdate } from '../helpers/write-planning.js';
import type { RowWrite } from '../../src/plan/mutation-plan.js';
import { thrownCode as code } from '../helpers/thrown.js';
import { WRITE_SCHEMA, WRITER } from '../helpers/write-schema.js';

const NOW = new Date('2026-03-04T05:06:07.089Z');
let uuids = 0;
const ctx: WriteContext = {
  schema: WRITE_SCHEMA,
  accountability: WRITER,
  now: NOW,
  uuid: () => `00000000-0000-4000-8000-${String(++uuids).padStart(12, '0')}`,
  maxBatchMutation: Infinity,
};

/** The errors a plan throws, as [code, field, type] rows. */
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

describe('planCreate', () => {
  it('coerces values to their logical form and leaves defaults, keys and generated columns to the database', () => {
    const [row] = planCreate(
      'articles',
      [{ title: 'T', rating: '3', published_on: '2024-01-05', words: 9 }],
      false,
      ctx,
    ).rows;
    assert.deepEqual(row!.values, { title: 'T', rating: 3, published_on: '2024-01-05' });
    assert.equal(row!.key, null);
    assert.equal(row!.action, 'create');
  });

  it('lists every failure of every item together: required, nnull, types, lengths and rules', () => {
    assert.deepEqual(
      failures(() =>
        planCreate(
          'articles',
          [{ status: null, rating: 1.5 }, { title: 'x'.repeat(51) }, { title: 'xeno', published_on: 'soon' }],
          true,
          ctx,
        ),
      ),
      [
        ['INVALID_PAYLOAD', 'rating', null],
        ['FAILED_VALIDATION', 'title', 'required'],
        ['FAILED_VALIDATION', 'status', 'nnull'],
        ['VALUE_TOO_LONG', 'title', null],
        ['FAILED_VALIDATION', 'title', 'nstarts_with'],
        ['INVALID_PAYLOAD', 'published_on', null],
        ['FAILED_VALIDATION', 'title', 'nstarts_with'],
      ],
    );
  });

  it('drops keys that are no field; refuses unknown and system collections and callers without access', () => {
    // An admin's key that is no field is dropped, as Directus drops it.
    const [row] = planCreate('articles', [{ title: 'T', nope: 1 }], false, ctx).rows;
    assert.equal(row!.values.title, 'T');
    assert.ok(!('nope' in row!.values));
    assert.equal(
      code(() => planCreate('nope', [{}], false, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planCreate('service_users', [{}], false, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planCreate('articles', [{ title: 'T' }], false, { ...ctx, accountability: publicAccountability() })),
      'FORBIDDEN',
    );
  });

  it('gives uuid keys, creation dates and users from the specials, and marks hash fields', () => {
    const [row] = planCreate('things', [{ label: 'L', secret: 'pw', created: '1999-01-01' }], false, ctx).rows;
    assert.match(String(row!.key), /^00000000-0000-4000-8000-\d{12}$/);
    assert.equal(row!.values.id, row!.key);
    assert.equal(row!.values.created, NOW.toISOString());
    assert.equal(row!.values.updated, undefined);
    assert.equal(row!.values.owner, 'u-1');
    assert.deepEqual(row!.hashFields, ['secret']);
    const [update] = planUpdate('things', [{ key: row!.key, payload: { label: 'M' } }], false, ctx).rows;
    assert.deepEqual(update!.values, { label: 'M', updated: NOW.toISOString() });
  });

  it('plans m2o objects as parents and o2m arrays as children, any depth', () => {
    const [row] = planCreate(
      'authors',
      [
        {
          name: 'A',
          articles: [
            { title: 'one', tags: [{ tags_id: { name: 'new' } }, { tags_id: 2 }, 7] },
            3,
            { id: 4, rating: 1 },
          ],
        },
      ],
      false,
      ctx,
    ).rows;
    const [articles] = row!.children;
    assert.equal(articles!.related.collection, 'articles');
    assert.equal(articles!.replace, true);
    assert.deepEqual(articles!.assign, [3]);
    assert.deepEqual(
      articles!.rows.map((r) => [r.action, r.key, r.filledByParent]),
      [
        ['create', null, 'author'],
        ['upsert', 4, 'author'],
      ],
    );
    const [junction] = articles!.rows[0]!.children;
    assert.equal(junction!.related.collection, 'articles_tags');
    assert.deepEqual(junction!.assign, [7]);
    assert.deepEqual(
      junction!.rows.map((r) => r.values),
      [{}, { tags_id: 2 }],
    );
    const [tag] = junction!.rows[0]!.parents;
    assert.equal(tag!.field, 'tags_id');
    assert.deepEqual(tag!.row.values, { name: 'new' });
    // author, 2 articles, 2 junction rows, 1 tag, and the two bare keys.
    assert.equal(
      planCreate(
        'authors',
        [
          {
            name: 'A',
            articles: [
              { title: 'one', tags: [{ tags_id: { name: 'new' } }, { tags_id: 2 }, 7] },
              3,
              { id: 4, rating: 1 },
            ],
          },
        ],
        false,
        ctx,
      ).rowCount,
      8,
    );
  });

  it('takes the detailed form and checks its shape', () => {
    const [row] = planUpdate(
      'authors',
      [
        {
          key: 1,
          payload: { articles: { create: [{ title: 'c' }], update: [{ id: 2, title: 'u' }], delete: [3, '4'] } },
        },
      ],
      false,
      ctx,
    ).rows;
    const [set] = row!.children;
    assert.equal(set!.replace, false);
    assert.deepEqual(
      set!.rows.map((r) => r.action),
      ['create'],
    );
    assert.deepEqual(
      set!.updates.map((r) => [r.action, r.key]),
      [['update', 2]],
    );
    assert.deepEqual(set!.remove, [3, 4]);
    for (const articles of [{ update: [{ title: 'no key' }] }, { create: {} }, { replace: [] }, 'x', [null]]) {
      assert.equal(
        code(() => planUpdate('authors', [{ key: 1, payload: { articles } }], false, ctx)),
        'INVALID_PAYLOAD',
        JSON.stringify(articles),
      );
    }
    assert.equal(
      code(() => planUpdate('authors', [{ key: 1, payload: { articles: ['abc'] } }], false, ctx)),
      'FORBIDDEN',
    );
  });

  it('checks m2a collections against the allowed ones', () => {
    const [row] = planCreate(
      'pages',
      [
        {
          title: 'P',
          sections: [
            { collection: 'tags', item: { name: 't' } },
            { collection: 'pages', item: 5 },
          ],
        },
      ],
      false,
      ctx,
    ).rows;
    const [sections] = row!.children;
    assert.deepEqual(
      sections!.rows[0]!.parents.map((p) => [p.field, p.anyCollection, p.row.collection.collection]),
      [['item', true, 'tags']],
    );
    assert.deepEqual(sections!.rows[1]!.values, { collection: 'pages', item: '5' });
    assert.equal(
      code(() => planCreate('pages', [{ sections: [{ collection: 'authors', item: { name: 'x' } }] }], false, ctx)),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      code(() => planCreate('pages', [{ sections: [{ item: { name: 'x' } }] }], false, ctx)),
      'INVALID_PAYLOAD',
    );
  });

  it('does not require what the parent or a nested parent fills', () => {
    assert.deepEqual(
      failures(() => planCreate('articles', [{ title: 'T', author: { name: 'N' } }], false, ctx)),
      [],
    );
    assert.deepEqual(
      failures(() => planCreate('authors', [{ name: 'N', articles: [{ title: 'T' }] }], false, ctx)),
      [],
    );
    assert.deepEqual(
      failures(() => planCreate('authors', [{ name: 'N', articles: [{ rating: 1 }] }], false, ctx)),
      [['FAILED_VALIDATION', 'title', 'required']],
    );
  });

  it('drops an o2m item\'s back-reference: the parent being written fills it (an object, a "+" placeholder)', () => {
    for (const author of [{ name: 'Other' }, '+', 7]) {
      const [row] = planCreate(
        'authors',
        [
          { name: 'A', articles: { create: [{ title: 'T', author }] } },
          { name: 'B', articles: [{ title: 'U', author }] },
        ],
        true,
        ctx,
      ).rows;
      const child = row!.children[0]!.rows[0]!;
      assert.deepEqual(child.parents, []);
      assert.equal(child.values.author, undefined);
      assert.equal(child.filledByParent, 'author');
    }
  });

  it('refuses payloads nested deeper than a hundred relations, with a coded error', () => {
    // Pages holding pages through their m2a sections (an o2m item's back-reference would be the parent's own).
    let page: Record<string, unknown> = {};
    for (let i = 0; i < 120; i++) page = { sections: [{ collection: 'pages', item: page }] };
    assert.equal(
      code(() => planCreate('pages', [page], false, ctx)),
      'INVALID_PAYLOAD',
    );
  });

  it('keeps concealed values sent back as read on update', () => {
    const [row] = planUpdate(
      'things',
      [{ key: '00000000-0000-4000-8000-000000000001', payload: { label: 'x', secret: '**********' } }],
      false,
      ctx,
    ).rows;
    assert.deepEqual(row!.hashFields, []);
    assert.equal(row!.values.secret, undefined);
  });

  it('enforces MAX_BATCH_MUTATION on every planned row', () => {
    const limited = { ...ctx, maxBatchMutation: 2 };
    assert.equal(
      code(() => planCreate('tags', [{ name: 'a' }, { name: 'b' }], true, limited)),
      'OK',
    );
    assert.equal(
      code(() => planCreate('authors', [{ name: 'a', articles: [{ title: 'x' }, { title: 'y' }] }], false, limited)),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      code(() => planDelete('tags', [1, 2, 3], limited)),
      'INVALID_PAYLOAD',
    );
  });
});

describe('planUpdate and planDelete', () => {
  it("shares one data's m2o object between the keys' rows (planned, resolved and counted once), not its o2m items", () => {
    const data = { author: { name: 'Shared' }, tags: [{ tags_id: 1 }] };
    const entries = [1, 2, 3].map((key) => ({ key, payload: data }));
    const draft = planUpdate('articles', entries, false, ctx, true);
    const parents = new Set(draft.rows.map((row) => row.parents[0]!.row));
    assert.equal(parents.size, 1);
    assert.equal(new Set(draft.rows.map((row) => row.children[0]!.rows[0])).size, 3);
    // 3 rows + 1 author + 3 junction rows.
    assert.equal(draft.rowCount, 7);
    const plan = resolvePlan(draft, lookups({ articles: { 1: true, 2: true, 3: true } }), new Map(), ctx);
    assert.equal(new Set(plan.rows.map((row) => row.parents[0]!.row)).size, 1);
    assert.equal(planUpdate('articles', entries, false, ctx).rowCount, 9);
  });

  it('refuses keys that cannot be keys, and key changes', () => {
    assert.equal(
      code(() => planUpdate('authors', [{ key: 'abc', payload: { name: 'x' } }], false, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => planUpdate('authors', [{ key: undefined, payload: { name: 'x' } }], true, ctx)),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      code(() => planUpdate('authors', [{ key: '1', payload: { id: 1, name: 'x' } }], false, ctx)),
      'OK',
    );
    assert.equal(
      code(() => planUpdate('authors', [{ key: '1', payload: { id: 2 } }], false, ctx)),
      'INVALID_PAYLOAD',
    );
    assert.equal(
      code(() => planDelete('authors', [1, 'x'], ctx)),
      'FORBIDDEN',
    );
    assert.deepEqual(planDelete('authors', [1, '1', 2], ctx).keys, [1, 2]);
  });

  it('checks only the given fields, and says each failure of shared data once', () => {
    assert.deepEqual(
      failures(() => planUpdate('authors', [{ key: 1, payload: { email: 'e' } }], false, ctx)),
      [],
    );
    assert.deepEqual(
      failures(() =>
        planUpdate(
          'authors',
          [1, 2, 3].map((key) => ({ key, payload: { name: null } })),
          false,
          ctx,
        ),
      ),
      [['FAILED_VALIDATION', 'name', 'nnull']],
    );
  });
});

describe('resolvePlan (draft + lookups + hashes → plan)', () => {
  const NO_HASHES = new Map();
  const draft = () => planCreate('articles', [{ title: 'T', author: { id: 9, email: 'e@x' } }], false, ctx);

  it('updates an existing upserted row, and skips a row the payload does not change', () => {
    const planned = draft();
    assert.equal(planned.rows[0]!.parents[0]!.row.action, 'upsert');
    const plan = resolvePlan(planned, lookups({ authors: { '9': true } }), NO_HASHES, ctx);
    const parent = plan.rows[0]!.parents[0]!.row;
    assert.equal(parent.action, 'update');
    assert.equal(parent.key, 9);
    assert.deepEqual(parent.values, { email: 'e@x' });
    // The draft is not changed: the plan is new data.
    assert.equal(planned.rows[0]!.parents[0]!.row.action, 'upsert');
  });

  it('creates a missing upserted row with its key, with the checks of a create', () => {
    assert.deepEqual(
      failures(() => resolvePlan(draft(), lookups(), NO_HASHES, ctx)),
      [['FAILED_VALIDATION', 'name', 'required']],
    );
    const plan = resolvePlan(
      planCreate('articles', [{ title: 'T', author: { id: 9, email: 'e@x', name: 'N' } }], false, ctx),
      lookups(),
      NO_HASHES,
      ctx,
    );
    const parent = plan.rows[0]!.parents[0]!.row;
    assert.equal(parent.action, 'create');
    assert.deepEqual(parent.values, { email: 'e@x', name: 'N', id: 9 });
  });

  it('refuses an update or upsert of a row the lookup did not find or whose rule does not hold: FORBIDDEN', () => {
    const update = planUpdate('authors', [{ key: 3, payload: { name: 'X' } }], false, ctx);
    assert.equal(
      code(() => resolvePlan(update, lookups(), NO_HASHES, ctx)),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => resolvePlan(update, lookups({ authors: { '3': false } }), NO_HASHES, ctx)),
      'FORBIDDEN',
    );
    assert.equal(resolvePlan(update, lookups({ authors: { '3': true } }), NO_HASHES, ctx).rows[0]!.action, 'update');
    assert.equal(
      code(() => resolvePlan(draft(), lookups({ authors: { '9': false } }), NO_HASHES, ctx)),
      'FORBIDDEN',
    );
  });

  it('lists the rows an array no longer names for the deselect action, counted against MAX_BATCH_MUTATION', () => {
    const update = planUpdate(
      'authors',
      [{ key: 1, payload: { articles: [2, { id: 3, title: 'Kept' }] } }],
      false,
      ctx,
    );
    const found = lookups({ authors: { '1': true }, articles: { '2': true, '3': true } }, [
      { related: 'articles', fk: 'author', parent: 1, keys: [2, 3, 4, 5] },
    ]);
    const plan = resolvePlan(update, found, NO_HASHES, ctx);
    assert.deepEqual(plan.rows[0]!.children[0]!.deselect, [4, 5]);
    assert.equal(plan.rowCount, update.rowCount + 2);
    assert.equal(
      code(() => resolvePlan(update, found, NO_HASHES, { ...ctx, maxBatchMutation: update.rowCount + 1 })),
      'INVALID_PAYLOAD',
    );
    // A created parent has nothing linked yet.
    const created = resolvePlan(
      planCreate('authors', [{ name: 'A', articles: [2] }], false, ctx),
      found,
      NO_HASHES,
      ctx,
    );
    assert.deepEqual(created.rows[0]!.children[0]!.deselect, []);
  });

  it('links bare keys only to rows the lookup found', () => {
    const create = planCreate('authors', [{ name: 'A', articles: [2] }], false, ctx);
    assert.equal(
      code(() => resolvePlan(create, lookups(), NO_HASHES, ctx)),
      'FORBIDDEN',
    );
    assert.deepEqual(
      resolvePlan(create, lookups({ articles: { '2': true } }), NO_HASHES, ctx).rows[0]!.children[0]!.assign,
      [2],
    );
  });

  it('stores the hashes made before the transaction in the plan, leaving the draft plain', () => {
    const draft = planCreate('things', [{ label: 'L', secret: 's3cret' }], false, ctx);
    assert.deepEqual(draft.rows[0]!.hashFields, ['secret']);
    const hashed = '$argon2id$v=19$made-before';
    const plan = resolvePlan(draft, lookups(), new Map([[draft.rows[0]!, new Map([['s3cret', hashed]])]]), ctx);
    assert.equal(plan.rows[0]!.values.secret, hashed);
    assert.equal(draft.rows[0]!.values.secret, 's3cret');
    // A value nobody hashed is a bug of the writer, never stored plain.
    assert.throws(() => resolvePlan(draft, lookups(), NO_HASHES, ctx), /No hash was made/);
  });

  it('checks a delete against the rows the lookup found under the delete rule', () => {
    const plan = planDelete('authors', [1, 2], ctx);
    assert.equal(
      code(() => checkDeletes(plan, lookups({}, [], { authors: { '1': true } }))),
      'FORBIDDEN',
    );
    assert.equal(
      code(() => checkDeletes(plan, lookups({}, [], { authors: { '1': true, '2': false } }))),
      'FORBIDDEN',
    );
    checkDeletes(plan, lookups({}, [], { authors: { '1': true, '2': true } }));
  });
});
