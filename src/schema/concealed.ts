/**
 * What reads answer for a concealed field (hash fields, tokens, secrets), as Directus does; sent back by a write,
 * it keeps the stored value.
 */
export const CONCEALED = '**********';
