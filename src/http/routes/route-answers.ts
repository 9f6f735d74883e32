/** Answers several route declarations share: some data, or a list of objects, in `{data}`. */
import { Type } from '@sinclair/typebox';
import type { RouteAnswer } from '../route-declaration.js';

export const LIST = Type.Array(Type.Object({}));

export const ANY_DATA: RouteAnswer = { description: 'The answer', data: Type.Unknown() };

export const listOf = (description: string): RouteAnswer => ({ description, data: LIST });
