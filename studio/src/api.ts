/**
 * The one client of the API: the real @directus/sdk, in session mode (an httpOnly session cookie carries every
 * request, so a reload stays signed in and no token ever reaches script-readable storage).
 */
import { authentication, createDirectus, rest } from '@directus/sdk';

export const client = createDirectus<any>(location.origin)
  .with(authentication('session', { credentials: 'include', autoRefresh: false }))
  .with(rest({ credentials: 'include' }));

export interface ApiError {
  message: string;
  code: string;
  /** The field a validation error names, when it names one. */
  field?: string;
  /** Where a nested write's field sits (`articles.0.title`), when the API gives the path. */
  path?: (string | number)[];
}

/** The errors of an SDK rejection, in one shape (network failures and thrown strings included). */
export function apiErrors(error: unknown): ApiError[] {
  const list = (error as { errors?: unknown })?.errors;
  if (Array.isArray(list)) {
    return list.map((e: any) => ({
      message: String(e?.message ?? 'Request failed'),
      code: String(e?.extensions?.code ?? 'UNKNOWN'),
      field: e?.extensions?.field ?? undefined,
      path: e?.extensions?.path ?? undefined,
    }));
  }
  if (typeof list === 'string') return [{ message: list, code: 'UNKNOWN' }];
  return [{ message: error instanceof Error ? error.message : String(error), code: 'UNKNOWN' }];
}

/** One line for a banner. */
export function errorText(error: unknown): string {
  return apiErrors(error)
    .map((e) => e.message)
    .join(' ');
}
