/**
 * What an upload's bytes pass through on their way to storage: counted against FILES_MAX_UPLOAD_SIZE (the stream
 * fails once the limit is passed, so storage drops the partial object), and their first bytes held back until the
 * type is sniffed from them (file-type) and checked against FILES_MIME_TYPE_ALLOW_LIST, before any byte is stored.
 */
import { Transform, type TransformCallback } from 'node:stream';
import { fileTypeFromBuffer } from 'file-type';
import { ContentTooLargeError, UnsupportedMediaTypeError } from '../../errors/catalogue.js';

/** Enough for file-type to recognise every format it knows. */
const SNIFF_BYTES = 4100;

/** Types whose content file-type recognises: a file declared as one but not recognised is not one. */
const SNIFFABLE = /^(image\/(png|jpeg|gif|webp|avif|tiff|bmp|heic|heif)|application\/(pdf|zip|gzip)|video\/mp4)$/;

export function mimeAllowed(type: string, allowList: string[]): boolean {
  const [kind] = type.split('/');
  return allowList.some((allowed) => allowed === '*/*' || allowed === type || allowed === `${kind}/*`);
}

export class UploadGuard extends Transform {
  /** Bytes seen so far (not `size`: stream consumers such as the S3 SDK read a `size` as the stream's length). */
  received = 0;
  type: string;
  private head: Buffer[] = [];
  private headSize = 0;
  private checked = false;

  constructor(
    declaredType: string,
    private readonly limit: number,
    private readonly allowList: string[],
  ) {
    super();
    this.type = declaredType.split(';')[0]!.trim().toLowerCase() || 'application/octet-stream';
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.limit) return callback(new ContentTooLargeError(this.limit, 'FILES_MAX_UPLOAD_SIZE'));
    if (this.checked) return callback(null, chunk);
    this.head.push(chunk);
    this.headSize += chunk.length;
    if (this.headSize < SNIFF_BYTES) return callback();
    this.release(callback);
  }

  override _flush(callback: TransformCallback): void {
    if (this.checked) return callback();
    this.release(callback);
  }

  private release(callback: TransformCallback): void {
    const head = Buffer.concat(this.head);
    this.head = [];
    this.checked = true;
    fileTypeFromBuffer(head).then(
      (sniffed) => {
        if (sniffed) this.type = sniffed.mime;
        else if (SNIFFABLE.test(this.type)) this.type = 'application/octet-stream';
        if (!mimeAllowed(this.type, this.allowList))
          return callback(new UnsupportedMediaTypeError(this.type, 'uploaded file'));
        callback(null, head);
      },
      (error: unknown) => callback(error as Error),
    );
  }
}
