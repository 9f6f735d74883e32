/**
 * A wrong password for a known user, thrown by a sign-on provider that checks passwords itself: answered as every
 * INVALID_CREDENTIALS, and counted toward the user's `auth_login_attempts` as a wrong local password is.
 */
import { InvalidCredentialsError } from '../errors/catalogue.js';

export class RefusedCredentialsError extends InvalidCredentialsError {
  constructor(readonly user: string) {
    super();
  }
}
