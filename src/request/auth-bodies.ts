/**
 * Bodies of the authentication routes and mutations (Directus docs: Authentication): login, refresh, logout and the
 * two-factor steps, as TypeBox schemas. REST and GraphQL (auth_login, users_me_tfa_*) pass through the same ones.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { checkBody, compileSchema, Nullable, OneOf, Present } from './body-check.js';

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

const Mode = Type.Object({
  mode: Type.Optional(
    OneOf(['json', 'cookie', 'session'] as const, {
      nullable: true,
      errorMessage: '"mode" must be one of [json, cookie, session]',
    }),
  ),
});

/** Directus checks the address's shape before looking anyone up (a malformed one is 400, not 401). */
const EMAIL = '^[^\\s@]+@[^\\s@.]+(\\.[^\\s@.]+)+$';
const Login = requiredStrings(
  ['email', 'password'],
  [Type.Object({ email: Type.String({ pattern: EMAIL, errorMessage: '"email" must be a valid email' }) }), Mode],
);
const ModeOnly = compileSchema(Mode);

export function checkLogin(body: Body): { email: string; password: string; mode?: AuthMode | null; otp?: unknown } {
  return checkBody(Login, body) as { email: string; password: string; mode?: AuthMode | null };
}

/** `mode` of refresh and logout, when given. */
export function checkMode(body: Body): AuthMode | null | undefined {
  return (checkBody(ModeOnly, body) as { mode?: AuthMode | null }).mode;
}

const TfaGenerate = requiredStrings(['password']);
const TfaEnable = requiredStrings(['secret', 'otp']);
const TfaDisable = requiredStrings(['otp']);

export const checkTfaGenerate = (body: Body) => checkBody(TfaGenerate, body) as { password: string };
export const checkTfaEnable = (body: Body) => checkBody(TfaEnable, body) as { secret: string; otp: string };
export const checkTfaDisable = (body: Body) => checkBody(TfaDisable, body) as { otp: string };
