/**
 * The creation of a user a provider vouched for (single sign-on's or a directory's first sign-in) goes through the
 * items writer as a system write, as Directus creates it through its users service: the activity and revision of the
 * create, the address check, change events and `users.create` hooks are those of any user created through the API.
 */
import { randomUUID } from 'node:crypto';
import type { ItemsWriter } from '../../engine/write/items-writer.js';
import type { Accountability } from '../../permissions/accountability.js';
import type { Payload } from '../../request/write-body.js';

/** Creates the service_users row `payload` describes; answers its id. */
export type CreateProviderUser = (payload: Payload) => Promise<string>;

/** Nobody signed in yet acts here: the write is the system's, with no user (as the mail flows' writes). */
const SYSTEM: Accountability = { user: null, role: null, roles: [], policies: [], admin: true, app: true, ip: null };

export function providerUserCreator(writer: ItemsWriter): CreateProviderUser {
  return async (payload) => {
    const target = await writer.open('service_users', 'create', SYSTEM, { system: true });
    const id = randomUUID();
    await writer.create(target, [{ ...payload, id }], false, { fields: ['id'] });
    return id;
  };
}
