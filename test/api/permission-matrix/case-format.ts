/**
 * The shape of a permission-matrix case (see permission-matrix.test.ts for how they run). Plain data, so a table of
 * cases reads as a table; `check` is the escape hatch for a predicate no field below expresses.
 */
import type { RoleName } from './roles.js';

export type Method = 'GET' | 'SEARCH' | 'POST' | 'PATCH' | 'DELETE';

export interface MatrixRequest {
  method?: Method;
  /** Path, e.g. `/items/articles/1`. */
  url: string;
  /** Query parameters, serialised with qs (`filter[status][_eq]=...`). */
  query?: Record<string, unknown>;
  /** JSON body (writes, SEARCH). */
  body?: unknown;
}

export interface Expectation {
  status: number;
  /** `errors[0].extensions.code`. */
  error?: string;
  /** The whole JSON body. */
  body?: unknown;
  /** `body.data`. */
  data?: unknown;
  /** Compare `data` (an array) without regard to order. */
  unordered?: boolean;
  /** The primary keys of `body.data`, in order (`id` unless `key` says otherwise). */
  ids?: (number | string)[];
  key?: string;
  /** `body.meta`. */
  meta?: Record<string, number>;
  /** Fields that must not appear on the object or on any row of `data`. */
  absent?: string[];
  /** `field` is null exactly on the rows with these keys (and not null on the others). */
  nullOn?: { field: string; ids: (number | string)[] };
  /** The same request made by the same role with this one instead answers the same status and the same bytes. */
  sameBodyAs?: MatrixRequest;
  check?: (body: any) => void;
}

export interface MatrixCase {
  /** What the case shows; the runner prefixes the role. */
  name: string;
  role: RoleName;
  request: MatrixRequest;
  expect: Expectation;
  /** A read made as admin afterwards (writes: what the database holds now). */
  then?: { request: MatrixRequest; expect: Expectation };
}
