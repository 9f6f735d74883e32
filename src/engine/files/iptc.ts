/**
 * IPTC-IIM application records (2:xx) as Directus keeps them in a file's `metadata.iptc`: a few named datasets, each
 * text, a repeated one (keywords) as a list. The block is what sharp reads from a JPEG's APP13 (Photoshop resources
 * holding the IIM datasets) or a TIFF's IPTC tag. Bounded: a dataset's text at most MAX_TEXT characters, at most
 * MAX_VALUES values of one name, at most MAX_DATASETS datasets read; anything malformed ends the reading, not an error.
 */

/** Dataset numbers of record 2 and the names Directus gives them. */
const NAMES = new Map<number, string>([
  [0x05, 'title'],
  [0x0f, 'category'],
  [0x19, 'keywords'],
  [0x37, 'dateCreated'],
  [0x50, 'byline'],
  [0x55, 'bylineTitle'],
  [0x69, 'headline'],
  [0x6e, 'credit'],
  [0x73, 'source'],
  [0x74, 'copyright'],
  [0x78, 'caption'],
  [0x7a, 'captionWriter'],
]);

export const MAX_TEXT = 2000;
export const MAX_VALUES = 64;
const MAX_DATASETS = 4096;
const TAG_MARKER = 0x1c;
const APPLICATION_RECORD = 2;

export type Iptc = Record<string, string | string[]>;

/** The named datasets of `block`; an empty object when it holds none. */
export function parseIptc(block: Buffer): Iptc {
  const out: Iptc = Object.create(null);
  let at = block.indexOf(TAG_MARKER);
  for (let read = 0; at >= 0 && at + 5 <= block.length && read < MAX_DATASETS; read++) {
    if (block[at] !== TAG_MARKER) {
      at = block.indexOf(TAG_MARKER, at + 1);
      continue;
    }
    const record = block[at + 1]!;
    const dataset = block[at + 2]!;
    const size = block.readUInt16BE(at + 3);
    // Extended datasets (high bit set: a length of length) are never texts Directus keeps: the reading stops.
    if (size & 0x8000) break;
    const start = at + 5;
    const end = start + size;
    if (end > block.length) break;
    const name = record === APPLICATION_RECORD ? NAMES.get(dataset) : undefined;
    if (name) add(out, name, text(block.subarray(start, end)));
    at = end;
  }
  return out;
}

function add(out: Iptc, name: string, value: string): void {
  if (value === '') return;
  const previous = out[name];
  if (previous === undefined) out[name] = name === 'keywords' ? [value] : value;
  else if (Array.isArray(previous)) {
    if (previous.length < MAX_VALUES) previous.push(value);
  } else out[name] = [previous, value];
}

/** UTF-8 (the common case, and what Directus reads), without control characters, trimmed, at most MAX_TEXT long. */
function text(bytes: Buffer): string {
  // eslint-disable-next-line no-control-regex
  return bytes
    .toString('utf8')
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/g, '')
    .trim()
    .slice(0, MAX_TEXT);
}
