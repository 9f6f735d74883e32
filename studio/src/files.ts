/**
 * The file library's client side: asset addresses (thumbnails are variants the server makes once and keeps), uploads
 * with progress (fetch reports none, so uploads go through XMLHttpRequest; the session cookie rides along as for
 * every same-origin request), and how a file reads in a list.
 */
export interface FileRow {
  id: string;
  title?: string | null;
  description?: string | null;
  filename_download?: string;
  type?: string | null;
  filesize?: number | string | null;
  width?: number | null;
  height?: number | null;
  folder?: string | null;
  tags?: string[] | null;
  focal_point_x?: number | null;
  focal_point_y?: number | null;
  uploaded_on?: string | null;
  created_on?: string | null;
}

export interface FolderRow {
  id: string;
  name: string;
  parent: string | null;
}

/** The fields a list of files reads. */
export const FILE_FIELDS = [
  'id',
  'title',
  'filename_download',
  'type',
  'filesize',
  'width',
  'height',
  'folder',
  'focal_point_x',
  'focal_point_y',
];

/** Images the transform pipeline can make thumbnails of (SVG and others are shown by their icon). */
export const isThumbnailable = (type: string | null | undefined) =>
  /^image\/(jpeg|png|webp|gif|avif|tiff)$/.test(type ?? '');

/**
 * A file's address; with a size, its square thumbnail. The thumbnail names the focal point it is cropped around, so a
 * moved focal point is a new address (the browser keeps assets it has seen for the cache lifetime).
 */
export function assetUrl(id: string, size?: number, extra: Record<string, string> = {}, file?: FileRow): string {
  const query = new URLSearchParams(extra);
  if (size) {
    query.set('width', String(size));
    query.set('height', String(size));
    query.set('fit', 'cover');
    const x = file?.focal_point_x;
    const y = file?.focal_point_y;
    if (typeof x === 'number' && typeof y === 'number') {
      query.set('focal_point_x', String(x));
      query.set('focal_point_y', String(y));
    }
  }
  const text = query.toString();
  return `/assets/${encodeURIComponent(id)}${text ? `?${text}` : ''}`;
}

/** A short word for the file's type, shown where there is no thumbnail. */
export function typeLabel(type: string | null | undefined): string {
  if (!type) return 'FILE';
  if (type === 'application/pdf') return 'PDF';
  if (type.startsWith('image/')) return type === 'image/svg+xml' ? 'SVG' : 'IMAGE';
  if (type.startsWith('video/')) return 'VIDEO';
  if (type.startsWith('audio/')) return 'AUDIO';
  if (type.startsWith('text/')) return 'TEXT';
  if (/zip|tar|gzip|compressed/.test(type)) return 'ARCHIVE';
  if (/json|xml|javascript/.test(type)) return 'CODE';
  return 'FILE';
}

export function fileTitle(file: FileRow | null | undefined): string {
  if (!file) return '—';
  return file.title || file.filename_download || file.id;
}

export function formatSize(size: number | string | null | undefined): string {
  const n = Number(size);
  if (size === null || size === undefined || Number.isNaN(n)) return '—';
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} kB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(1)} GB`;
}

/**
 * Uploads one file (multipart: the fields first, then the file, as the API reads them in order), reporting progress
 * as a fraction. Resolves with the new row; rejects with the API's errors.
 */
export function uploadFile(
  file: File,
  fields: { folder?: string | null },
  onProgress: (fraction: number) => void,
): Promise<FileRow> {
  const form = new FormData();
  if (fields.folder) form.append('folder', fields.folder);
  form.append('file', file, file.name);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', '/files');
    request.withCredentials = true;
    request.responseType = 'json';
    request.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress(event.loaded / event.total);
    };
    request.onload = () => {
      const body = request.response as { data?: FileRow; errors?: unknown } | null;
      if (request.status < 300 && body?.data) {
        onProgress(1);
        resolve(body.data);
      } else {
        reject(body?.errors ? body : { errors: `Upload failed (${request.status}).` });
      }
    };
    request.onerror = () => reject({ errors: 'Upload failed: the server could not be reached.' });
    request.send(form);
  });
}

/** Folders in tree order (parents before children, by name), with their depth; a cycle edited by hand shows once. */
export function folderTree(folders: FolderRow[]): { folder: FolderRow; depth: number }[] {
  const known = new Set(folders.map((f) => f.id));
  const out: { folder: FolderRow; depth: number }[] = [];
  const seen = new Set<string>();
  const walk = (parent: string | null, depth: number) => {
    for (const folder of folders
      .filter((f) => (f.parent && known.has(f.parent) ? f.parent : null) === parent)
      .sort((a, b) => a.name.localeCompare(b.name))) {
      if (seen.has(folder.id)) continue;
      seen.add(folder.id);
      out.push({ folder, depth });
      walk(folder.id, depth + 1);
    }
  };
  walk(null, 0);
  return out;
}

/** A folder's name indented for a <select>. */
export const folderOptionLabel = (row: { folder: FolderRow; depth: number }) =>
  `${'\u00a0\u00a0'.repeat(row.depth)}${row.folder.name}`;
