/**
 * Provider failures as coded errors. What the provider or the network said is never passed on (it can echo codes,
 * tokens or the client secret in a URL): a refusal is INVALID_CREDENTIALS, anything else SERVICE_UNAVAILABLE, and
 * the log gets only the error's class and code.
 */
import * as oidc from 'openid-client';
import { InvalidCredentialsError, ServiceError, ServiceUnavailableError } from '../../errors/catalogue.js';

export class ProviderFailure extends Error {
  constructor(
    readonly error: ServiceError,
    /** Safe to log: the class and code of what failed, nothing the provider sent. */
    readonly logged: { provider: string; failure: string; code: string | null },
  ) {
    super(error.message);
  }
}

/** The oauth2 profile URL answered no JSON object. */
export class ProfileError extends Error {}

export function providerFailure(provider: string, driver: string, error: unknown): ProviderFailure {
  if (error instanceof ProviderFailure) return error;
  const code = typeof (error as { code?: unknown })?.code === 'string' ? (error as { code: string }).code : null;
  const failure = error instanceof Error ? error.constructor.name : typeof error;
  const logged = { provider, failure, code };
  // The provider refused (bad code, denied consent, a check of ours failed on what it sent): the sign-in is refused.
  const refused =
    error instanceof oidc.AuthorizationResponseError ||
    error instanceof oidc.ResponseBodyError ||
    (error instanceof oidc.ClientError && code !== null && !/TIMEOUT|FETCH/.test(code));
  if (refused) return new ProviderFailure(new InvalidCredentialsError(), logged);
  return new ProviderFailure(new ServiceUnavailableError(driver, 'The identity provider could not be reached'), logged);
}
