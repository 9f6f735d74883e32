/**
 * Bodies of the account flows that go by mail (Directus docs: Authentication, Users): password request and reset,
 * invitations and registration, as TypeBox schemas. REST and GraphQL pass through the same ones.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { checkBody, compileSchema, Nullable } from './body-check.js';
import { EMAIL_PATTERN } from './email-address.js';
import type { Body } from './auth-bodies.js';

/** Most addresses one invitation may name (docs/limits.md). */
export const MAX_INVITES = 100;

function required(key: string, schema: TSchema = Type.String({ minLength: 1 })) {
  return Type.Object({ [key]: { ...schema, errorMessage: `"${key}" is required` } });
}

const Email = Type.String({ pattern: EMAIL_PATTERN, maxLength: 254, errorMessage: '"email" must be a valid email' });
const Url = (key: string) =>
  Type.Object({
    [key]: Type.Optional(Type.String({ maxLength: 2048, errorMessage: `"${key}" must be a string` })),
  });

export const PasswordRequestBody = compileSchema(
  Type.Intersect([required('email'), Type.Object({ email: Email }), Url('reset_url')]),
);
export const PasswordResetBody = compileSchema(
  Type.Intersect([
    required('token'),
    required('password'),
    Type.Object({ password: Type.String({ maxLength: 1000 }) }),
  ]),
);
export const InviteBody = compileSchema(
  Type.Intersect([
    required('email', Type.Union([Type.String({ minLength: 1 }), Type.Array(Type.String(), { minItems: 1 })])),
    Type.Object({
      email: Type.Union([Email, Type.Array(Email, { maxItems: MAX_INVITES })], {
        errorMessage: `"email" must be a valid email or a list of at most ${MAX_INVITES}`,
      }),
    }),
    required('role'),
    Url('invite_url'),
  ]),
);
export const AcceptInviteBody = PasswordResetBody;
export const RegisterBody = compileSchema(
  Type.Intersect([
    required('email'),
    required('password'),
    Type.Object({
      email: Email,
      password: Type.String({ maxLength: 1000 }),
      first_name: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
      last_name: Type.Optional(Nullable(Type.String({ maxLength: 50 }))),
    }),
    Url('verification_url'),
  ]),
);
export const VerifyEmailQuery = compileSchema(Type.Object({ token: Type.Optional(Type.String()) }));

export interface PasswordRequest {
  email: string;
  reset_url?: string;
}
export interface TokenAndPassword {
  token: string;
  password: string;
}
export interface Invite {
  email: string | string[];
  role: string;
  invite_url?: string;
}
export interface Registration {
  email: string;
  password: string;
  first_name?: string | null;
  last_name?: string | null;
  verification_url?: string;
}

export const checkPasswordRequest = (body: Body) => checkBody(PasswordRequestBody, body) as unknown as PasswordRequest;
export const checkTokenAndPassword = (body: Body) => checkBody(PasswordResetBody, body) as unknown as TokenAndPassword;
export const checkInvite = (body: Body) => checkBody(InviteBody, body) as unknown as Invite;
export const checkRegistration = (body: Body) => checkBody(RegisterBody, body) as unknown as Registration;
