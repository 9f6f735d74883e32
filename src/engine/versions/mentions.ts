/**
 * User mentions in a comment, as Directus writes them: `@` and the user's uuid (version 4, as Directus matches them),
 * each user once, in the order first mentioned.
 */
const MENTION = /@([0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12})/gi;

export function mentionedUsers(comment: string): string[] {
  const users: string[] = [];
  for (const match of comment.matchAll(MENTION)) {
    const user = match[1]!.toLowerCase();
    if (!users.includes(user)) users.push(user);
  }
  return users;
}
