/**
 * Checks of a JSON request body made on its text, before it is parsed: nesting depth (every later stage walks
 * payloads recursively, so a body nested 20,000 levels deep would overflow the stack) and NUL characters (which
 * PostgreSQL cannot store or compare; refusing them everywhere keeps the databases alike).
 */
import { InvalidPayloadError } from '../errors/catalogue.js';

/** A `\u0000` escape: preceded by an even number of backslashes (an odd number would escape the backslash itself). */
const NUL_ESCAPE = /(?<!\\)(?:\\\\)*\\u0000/;

export function checkJsonText(text: string, maxDepth: number): void {
  if (text.includes('\\u0000') && NUL_ESCAPE.test(text))
    throw new InvalidPayloadError("Values can't contain NUL characters");
  if (nestingDepth(text, maxDepth) > maxDepth)
    throw new InvalidPayloadError(`JSON can't be nested more than ${maxDepth} levels deep`);
}

/** The deepest nesting of objects and arrays (brackets inside strings ignored); stops counting past `stopAt`. */
function nestingDepth(text: string, stopAt: number): number {
  // Few brackets in all: the depth cannot be larger (the common case, with no character loop).
  let brackets = 0;
  for (let at = text.indexOf('['); at !== -1 && brackets <= stopAt; at = text.indexOf('[', at + 1)) brackets++;
  for (let at = text.indexOf('{'); at !== -1 && brackets <= stopAt; at = text.indexOf('{', at + 1)) brackets++;
  if (brackets <= stopAt) return brackets;
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const ch = text.charCodeAt(i);
    if (inString) {
      if (ch === 92 /* \ */) i++;
      else if (ch === 34 /* " */) inString = false;
    } else if (ch === 34) inString = true;
    else if (ch === 91 /* [ */ || ch === 123 /* { */) {
      if (++depth > deepest && (deepest = depth) > stopAt) return deepest;
    } else if (ch === 93 /* ] */ || ch === 125 /* } */) depth--;
  }
  return deepest;
}
