import path from 'node:path';

/** A test file's name relative to the root, as its .ts source whether it ran bundled (build/test-js/…/x.test.js) or through tsx. */
export function sourceName(root, file) {
  const compiled = path.join(root, 'build', 'test-js');
  return file.startsWith(compiled + path.sep)
    ? path.relative(compiled, file).replace(/\.js$/, '.ts')
    : path.relative(root, file);
}
