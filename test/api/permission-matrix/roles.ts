/**
 * The roles of the permission matrix, as data: each is a user (with a static token) holding one policy, except
 * `public` (no token: the Public policy) and `admin` (the bootstrap admin). Expected results in the *.cases.ts
 * files are worked out by hand from these rules and the blog fixture (test/helpers/fixture/*.sql):
 *
 *   authors   1 Ada (ada@example.com, active)   2 Alan (active)   3 Grace (inactive)
 *   articles  1 Hello World   published rating 5 author 1   tags science, computing (junction rows 1, 2)
 *             2 Second Post   published rating 3 author 1   tags history            (junction row 3)
 *             3 Draft Ideas   draft     rating - author 2
 *             4 Machines...   published rating 4 author 2   tags science, computing (junction rows 4, 5)
 *             5 Compilers     archived  rating 2 author 3   tags computing          (junction row 6)
 *             6 Unicode ...   published rating 1 no author
 *   tags      1 science  2 history  3 computing  4 unused
 *   pages     1 Home: sections 1 heading 1 (Welcome, level 1), 2 paragraph 1 (Hello there.)
 *             2 About: sections 3 heading 2 (Our story, level 2), 4 paragraph 2 (We began in a garage.),
 *                      5 paragraph 1        3 Empty: no sections
 *
 * Task W adds write permissions (create/update/delete) to these roles, or new roles, for its write cases.
 */
import type { PermissionSpec } from '../../helpers/access-fixture.js';

export interface MatrixRole {
  /** The user's email; `$CURRENT_USER.email` rules match on it. */
  email: string;
  permissions: PermissionSpec[];
  app_access?: boolean;
}

export const MATRIX_ROLES = {
  /** Own rows only: Ada sees her author row and the articles written by it (a relational `$CURRENT_USER` rule). */
  own: {
    email: 'ada@example.com',
    permissions: [
      { collection: 'articles', fields: '*', permissions: { author: { email: { _eq: '$CURRENT_USER.email' } } } },
      {
        collection: 'authors',
        fields: 'id,name,email,articles',
        permissions: { email: { _eq: '$CURRENT_USER.email' } },
      },
      { collection: 'articles_tags', fields: '*' },
      { collection: 'tags', fields: 'id,name,articles' },
    ],
  },
  /**
   * Published only: published articles with some fields, every author (no email), the tag junction rows but those
   * of tag 2 (history) and not tags, pages and sections, level-1 headings only, no paragraphs.
   */
  published: {
    email: 'published@example.com',
    permissions: [
      {
        collection: 'articles',
        fields: 'id,title,slug,status,rating,author,tags',
        permissions: { status: { _eq: 'published' } },
      },
      { collection: 'authors', fields: 'id,name,articles' },
      { collection: 'articles_tags', fields: '*', permissions: { tags_id: { _neq: 2 } } },
      { collection: 'pages', fields: '*' },
      { collection: 'pages_sections', fields: '*' },
      { collection: 'headings', fields: '*', permissions: { level: { _eq: 1 } } },
    ],
  },
  /**
   * Field subset: every article, but only id, title, status and author — rating on published articles only and
   * publish_date on archived ones (null elsewhere); active authors' id and name; all of pages and their sections.
   */
  subset: {
    email: 'subset@example.com',
    permissions: [
      { collection: 'articles', fields: 'id,title,status,author' },
      { collection: 'articles', fields: 'rating', permissions: { status: { _eq: 'published' } } },
      { collection: 'articles', fields: 'publish_date', permissions: { status: { _eq: 'archived' } } },
      { collection: 'authors', fields: 'id,name', permissions: { active: { _eq: true } } },
      { collection: 'pages', fields: '*' },
      { collection: 'pages_sections', fields: '*' },
      { collection: 'headings', fields: '*' },
      { collection: 'paragraphs', fields: '*' },
    ],
  },
  /** App access (the built-in reads of one's own user, roles, policies, permissions and the settings) and drafts. */
  app: {
    email: 'app@example.com',
    app_access: true,
    permissions: [{ collection: 'articles', fields: 'id,title', permissions: { status: { _eq: 'draft' } } }],
  },
  /** A user whose policy grants nothing. */
  none: { email: 'none@example.com', permissions: [] },
} satisfies Record<string, MatrixRole>;

/** What the Public policy grants (requests without a token). */
export const PUBLIC_PERMISSIONS: PermissionSpec[] = [
  { collection: 'tags', fields: 'id,name' },
  { collection: 'pages', fields: 'id,title' },
];

export type RoleName = keyof typeof MATRIX_ROLES | 'public' | 'admin';
