/**
 * Bodies of the authentication routes and mutations (Directus docs: Authentication): login, refresh, logout and the
 * two-factor steps, as TypeBox schemas. REST and GraphQL (auth_login, users_me_tfa_*) pass through the same ones, and
 * the routes' declarations show them in the OpenAPI document.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { checkBody, compileSchema, Nullable, OneOf, Present } from './body-check.js';
import { EMAIL_PATTERN } from './email-address.js';

export type AuthMode = 'json' | 'cookie' | 'session';
export type Body = Record<string, unknown>;

const AnyObject = Type.Object({}, { errorMessage: 'Payload has to be an object' });
const RequiredObject = compileSchema(Type.Intersect([Present('Payload in body is required'), AnyObject]));
const OptionalObject = compileSchema(Nullable(AnyObject));

/** The route's body: an object; with `required` false, no body (or null) reads as `{}`. */
export function authRouteBody(body: unknown, required: boolean): Body {
  if (required) return checkBody(RequiredObject, body) as Body;
  return (checkBody(OptionalObject, body) as Body | null) ?? {};
}

/** Strings that must be given and not empty, checked one key after the other (the first missing one is named). */
function requiredStrings(keys: readonly string[], extra: TSchema[] = []) {
  const steps = keys.map((key) =>
    Type.Object({ [key]: Type.String({ minLength: 1, errorMessage: `"${key}" is required` }) }),
  );
  return compileSchema(Type.Intersect([...steps, ...extra]));
}

const ModeValue = OneOf(['json', 'cookie', 'session'] as const, {
  nullable: true,
  errorMessage: '"mode" must be one of [json, cookie, session]',
});
const Mode = Type.Object({ mode: Type.Optional(ModeValue) });

/** Directus checks the address's shape before looking anyone up (a malformed one is 400, not 401). */
/** The code is checked with the user's secret: any other value is a wrong code (401 INVALID_OTP). */
const Otp = Type.Object({
  otp: Type.Optional(Type.Unknown({ description: 'The six-digit two-factor code, when the user has it on.' })),
});
export const LoginBody = requiredStrings(
  ['email', 'password'],
  [
    Type.Object({ email: Type.String({ pattern: EMAIL_PATTERN, errorMessage: '"email" must be a valid email' }) }),
    Mode,
    Otp,
  ],
);

/** A directory login (`POST /auth/login/{provider}` of an ldap provider): an identifier in place of the email. */
export const ProviderLoginBody = requiredStrings(['identifier', 'password'], [Mode, Otp]);

export function checkProviderLogin(body: Body): {
  identifier: string;
  password: string;
  mode?: AuthMode | null;
  otp?: unknown;
} {
  return checkBody(ProviderLoginBody, body) as { identifier: string; password: string; mode?: AuthMode | null };
}

/** Refresh and logout: a `refresh_token` that is not a string is no token (the cookie is read instead). */
export const RefreshBody = compileSchema(
  Type.Object({
    refresh_token: Type.Optional(
      Type.Unknown({ description: 'The refresh token (json mode); without it, the refresh cookie.' }),
    ),
    mode: Type.Optional(ModeValue),
  }),
);

/**
 * GraphQL's auth_login checks no address: Directus looks a malformed one up like any other, finds nobody and answers
 * 401 INVALID_CREDENTIALS (only its REST route answers 400).
 */
const LoginBodyAnyEmail = requiredStrings(['password'], [Type.Object({ email: Type.String() }), Mode, Otp]);

export function checkLogin(
  body: Body,
  emailShape: 'checked' | 'unchecked' = 'checked',
): { email: string; password: string; mode?: AuthMode | null; otp?: unknown } {
  const schema = emailShape === 'checked' ? LoginBody : LoginBodyAnyEmail;
  return checkBody(schema, body) as { email: string; password: string; mode?: AuthMode | null };
}

/** `mode` of refresh and logout, when given. */
export function checkMode(body: Body): AuthMode | null | undefined {
  return (checkBody(RefreshBody, body) as { mode?: AuthMode | null }).mode;
}

export const TfaGenerateBody = requiredStrings(['password']);
export const TfaEnableBody = requiredStrings(['secret', 'otp']);
export const TfaDisableBody = requiredStrings(['otp']);

export const checkTfaGenerate = (body: Body) => checkBody(TfaGenerateBody, body) as { password: string };
export const checkTfaEnable = (body: Body) => checkBody(TfaEnableBody, body) as { secret: string; otp: string };
export const checkTfaDisable = (body: Body) => checkBody(TfaDisableBody, body) as { otp: string };
