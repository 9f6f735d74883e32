/**
 * Write cases (Directus docs: Errors, Access control): the first case, as admin, gives three matrix roles write rules through the
 * system collections themselves (an access row created with its policy and the policy's permissions, nested), so
 * the roles of roles.ts stay read-only for the other files. Then creates, updates and deletes per role: item rules
 * (relational `$CURRENT_USER.email` for `own`, published-only for `published`), field sets, presets, validation,
 * nested writes, batch writes refused whole, and refused rows answering exactly like missing ones.
 *
 * Typed by the runner (case-format.ts); kept free of imports so that it stands on its own.
 */

const FORBIDDEN = { status: 403, error: 'FORBIDDEN' } as const;
const ADA = { author: { email: { _eq: '$CURRENT_USER.email' } } };

/** An access row for `role`'s user, created with a new policy holding `permissions` (nested writes). */
function grant(role: string, permissions: Record<string, unknown>[]) {
  return {
    name: `grants ${role} write rules`,
    role: 'admin',
    request: {
      method: 'POST',
      url: '/access',
      query: { fields: 'policy.permissions.action' },
      body: { user: `$USER_ID(${role})`, policy: { name: `matrix ${role} writes`, permissions } },
    },
    expect: {
      status: 200,
      check: (body: any) => {
        if (body.data.policy.permissions.length !== permissions.length)
          throw new Error(`${role}: ${JSON.stringify(body)}`);
      },
    },
  };
}

const read = (url: string, data: unknown) => ({ request: { url }, expect: { status: 200, data } });

export const cases = [
  grant('own', [
    { collection: 'articles', action: 'create', fields: 'title,body,author', presets: { status: 'draft' } },
    { collection: 'articles', action: 'update', fields: 'title,body', permissions: ADA },
    { collection: 'articles', action: 'delete', permissions: ADA },
  ]),
  grant('published', [
    { collection: 'articles', action: 'create', fields: 'title,tags', presets: { status: 'published' } },
    {
      collection: 'articles',
      action: 'update',
      fields: 'title,rating',
      permissions: { status: { _eq: 'published' } },
      validation: { rating: { _between: [1, 5] } },
    },
    { collection: 'articles_tags', action: 'create', fields: '*' },
  ]),
  grant('subset', [
    { collection: 'articles', action: 'create', fields: 'title,status', validation: { status: { _in: ['draft'] } } },
    { collection: 'pages', action: 'update', fields: 'sections' },
    { collection: 'pages_sections', action: 'create', fields: '*' },
    {
      collection: 'pages_sections',
      action: 'update',
      fields: 'pages_id',
      permissions: { collection: { _eq: 'headings' } },
    },
    { collection: 'headings', action: 'create', fields: 'text,level' },
  ]),

  // own: Ada's articles (1, 2) only, title and body only.
  {
    name: 'updates her own article',
    role: 'own',
    request: {
      method: 'PATCH',
      url: '/items/articles/1',
      query: { fields: 'title' },
      body: { title: 'Hello, edited' },
    },
    expect: { status: 200, data: { title: 'Hello, edited' } },
    then: read('/items/articles/1?fields=title', { title: 'Hello, edited' }),
  },
  {
    name: 'another author’s article answers like a missing one',
    role: 'own',
    request: { method: 'PATCH', url: '/items/articles/3', body: { title: 'x' } },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'PATCH', url: '/items/articles/999', body: { title: 'x' } } },
    then: read('/items/articles/3?fields=title', { title: 'Draft Ideas' }),
  },
  {
    name: 'a field outside her update fields',
    role: 'own',
    request: { method: 'PATCH', url: '/items/articles/2', body: { status: 'draft' } },
    expect: FORBIDDEN,
    then: read('/items/articles/2?fields=status', { status: 'published' }),
  },
  {
    name: 'a batch touching another author’s row is refused whole',
    role: 'own',
    request: {
      method: 'PATCH',
      url: '/items/articles',
      body: [
        { id: 2, title: 'Second, edited' },
        { id: 4, title: 'x' },
      ],
    },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'PATCH', url: '/items/articles/999', body: { title: 'x' } } },
    then: read('/items/articles/2?fields=title', { title: 'Second Post' }),
  },
  {
    name: 'creates with the preset under her payload',
    role: 'own',
    request: {
      method: 'POST',
      url: '/items/articles',
      query: { fields: 'title,status' },
      body: { title: 'Ada writes', author: 1 },
    },
    expect: { status: 200, data: { title: 'Ada writes', status: 'draft' } },
  },
  {
    name: 'deleting another author’s article answers like a missing one',
    role: 'own',
    request: { method: 'DELETE', url: '/items/articles/4' },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'DELETE', url: '/items/articles/999' } },
    then: read('/items/articles/4?fields=id', { id: 4 }),
  },
  {
    name: 'deletes her own article',
    role: 'own',
    request: { method: 'DELETE', url: '/items/articles/2' },
    expect: { status: 204 },
    then: { request: { url: '/items/articles/2' }, expect: FORBIDDEN },
  },
  {
    name: 'no rule for authors',
    role: 'own',
    request: { method: 'PATCH', url: '/items/authors/1', body: { name: 'x' } },
    expect: FORBIDDEN,
  },

  // published: published rows only; ratings between 1 and 5.
  {
    name: 'a draft answers like a missing row',
    role: 'published',
    request: { method: 'PATCH', url: '/items/articles/3', body: { title: 'x' } },
    expect: { ...FORBIDDEN, sameBodyAs: { method: 'PATCH', url: '/items/articles/999', body: { title: 'x' } } },
  },
  {
    name: 'a rating out of bounds fails validation',
    role: 'published',
    request: { method: 'PATCH', url: '/items/articles/4', body: { rating: 9 } },
    expect: {
      status: 400,
      body: {
        errors: [
          {
            message: 'Validation failed for field "rating". Value has to be between 1 and 5.',
            extensions: { code: 'FAILED_VALIDATION', field: 'rating', path: [], type: 'between', valid: [1, 5] },
          },
        ],
      },
    },
    then: read('/items/articles/4?fields=rating', { rating: 4 }),
  },
  {
    name: 'rates a published article',
    role: 'published',
    request: { method: 'PATCH', url: '/items/articles/4', query: { fields: 'id,rating' }, body: { rating: 2 } },
    expect: { status: 200, data: { id: 4, rating: 2 } },
  },
  {
    name: 'keys including an archived row are refused whole',
    role: 'published',
    request: { method: 'PATCH', url: '/items/articles', body: { keys: [4, 5], data: { title: 'x' } } },
    expect: FORBIDDEN,
    then: read('/items/articles/4?fields=title', { title: 'Machines Thinking' }),
  },
  {
    name: 'creates an article linked to existing tags (junction rows created)',
    role: 'published',
    request: {
      method: 'POST',
      url: '/items/articles',
      query: { fields: 'title,status,tags' },
      body: { title: 'Tagged', tags: [{ tags_id: 1 }, { tags_id: 3 }] },
    },
    expect: {
      status: 200,
      check: (body: any) => {
        if (body.data.status !== 'published' || body.data.tags.length !== 2) throw new Error(JSON.stringify(body));
      },
    },
  },
  {
    name: 'but may not create tags',
    role: 'published',
    request: {
      method: 'POST',
      url: '/items/articles',
      body: { title: 'New tag', tags: [{ tags_id: { name: 'brand new' } }] },
    },
    expect: FORBIDDEN,
    then: read('/items/tags?filter[name][_eq]=brand new', []),
  },
  {
    name: 'no delete rule',
    role: 'published',
    request: { method: 'DELETE', url: '/items/articles/1' },
    expect: FORBIDDEN,
  },

  // subset: creates drafts with title and status only.
  {
    name: 'a status other than draft fails validation',
    role: 'subset',
    request: { method: 'POST', url: '/items/articles', body: { title: 'S', status: 'published' } },
    expect: { status: 400, error: 'FAILED_VALIDATION' },
  },
  {
    name: 'a field outside the create fields',
    role: 'subset',
    request: { method: 'POST', url: '/items/articles', body: { title: 'S', rating: 3 } },
    expect: FORBIDDEN,
  },
  {
    name: 'creates a draft (read back under the read rules)',
    role: 'subset',
    request: {
      method: 'POST',
      url: '/items/articles',
      query: { fields: 'title,status' },
      body: { title: 'S', status: 'draft' },
    },
    expect: { status: 200, data: { title: 'S', status: 'draft' } },
  },
  {
    name: 'no update rule',
    role: 'subset',
    request: { method: 'PATCH', url: '/items/articles/1', body: { title: 'x' } },
    expect: FORBIDDEN,
  },
  {
    name: 'm2a: adds a heading section (junction row and heading created)',
    role: 'subset',
    request: {
      method: 'PATCH',
      url: '/items/pages/3',
      query: { fields: 'sections.collection,sections.item:headings.text' },
      body: { sections: { create: [{ collection: 'headings', item: { text: 'Hi', level: 1 } }] } },
    },
    expect: { status: 200, data: { sections: [{ collection: 'headings', item: { text: 'Hi' } }] } },
  },
  {
    name: 'm2a: no paragraph may be created',
    role: 'subset',
    request: {
      method: 'PATCH',
      url: '/items/pages/3',
      body: { sections: { create: [{ collection: 'paragraphs', item: { body: 'x' } }] } },
    },
    expect: FORBIDDEN,
    then: {
      request: { url: '/items/pages/3', query: { fields: 'sections' } },
      expect: {
        status: 200,
        check: (body: any) => {
          if (body.data.sections.length !== 1) throw new Error(JSON.stringify(body));
        },
      },
    },
  },
  {
    name: 'o2m: unlinking a paragraph section needs an update rule that holds on it',
    role: 'subset',
    request: { method: 'PATCH', url: '/items/pages/2', body: { sections: { delete: [4] } } },
    expect: FORBIDDEN,
    then: read('/items/pages/2?fields=sections', { sections: [3, 4, 5] }),
  },
  {
    name: 'o2m: unlinks a heading section',
    role: 'subset',
    request: {
      method: 'PATCH',
      url: '/items/pages/2',
      query: { fields: 'sections' },
      body: { sections: { delete: [3] } },
    },
    expect: { status: 200, data: { sections: [4, 5] } },
  },

  {
    name: 'no write at all',
    role: 'none',
    request: { method: 'POST', url: '/items/articles', body: { title: 'x' } },
    expect: FORBIDDEN,
  },
  {
    name: 'no delete at all',
    role: 'none',
    request: { method: 'DELETE', url: '/items/articles', body: [1, 2] },
    expect: FORBIDDEN,
  },
  {
    name: 'the public writes nothing',
    role: 'public',
    request: { method: 'POST', url: '/items/tags', body: { name: 'x' } },
    expect: FORBIDDEN,
  },
  {
    name: 'the public deletes nothing',
    role: 'public',
    request: { method: 'DELETE', url: '/items/tags/4' },
    expect: FORBIDDEN,
    then: read('/items/tags/4?fields=name', { name: 'unused' }),
  },

  // System collections: app access updates one's own profile, nothing else.
  {
    name: 'updates her own profile',
    role: 'app',
    request: { method: 'PATCH', url: '/users/me', query: { fields: 'first_name' }, body: { first_name: 'Appy' } },
    expect: { status: 200, data: { first_name: 'Appy' } },
  },
  {
    name: 'but not her role',
    role: 'app',
    request: { method: 'PATCH', url: '/users/me', body: { role: null } },
    expect: FORBIDDEN,
  },
  {
    name: 'nor her status',
    role: 'app',
    request: { method: 'PATCH', url: '/users/me', body: { status: 'active' } },
    expect: FORBIDDEN,
  },
  {
    name: 'another user answers like a missing one',
    role: 'app',
    request: { method: 'PATCH', url: '/users/$USER_ID(admin)', body: { first_name: 'x' } },
    expect: {
      ...FORBIDDEN,
      sameBodyAs: { method: 'PATCH', url: '/users/00000000-0000-4000-8000-000000000000', body: { first_name: 'x' } },
    },
  },
  {
    name: 'no policies of her own making',
    role: 'app',
    request: { method: 'POST', url: '/policies', body: { name: 'mine', admin_access: true } },
    expect: FORBIDDEN,
  },
  {
    name: 'no app access: not even her own profile',
    role: 'own',
    request: { method: 'PATCH', url: '/users/me', body: { first_name: 'x' } },
    expect: FORBIDDEN,
  },
  {
    name: 'admins write anything',
    role: 'admin',
    request: { method: 'PATCH', url: '/items/articles/5', query: { fields: 'status' }, body: { status: 'published' } },
    expect: { status: 200, data: { status: 'published' } },
  },
];
