/** A file arriving (a multipart part, a fetched URL): its bytes, and the name and type its sender gave. */
import type { Readable } from 'node:stream';

export interface IncomingFile {
  stream: Readable;
  filename: string;
  mimetype: string;
}
