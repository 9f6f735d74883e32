/**
 * POST /utils/import/{collection} over a real socket, with a client that streams its body: a failed import answers
 * its error at once and closes the connection (the client is told `Connection: close` and the socket ends), rather
 * than leaving a half-read body paused on an open connection for minutes (which also held shutdown for
 * SHUTDOWN_TIMEOUT); and an upload whose Content-Length is over IMPORT_MAX_FILE_SIZE (or a JSON body over
 * MAX_PAYLOAD_SIZE) is refused before its body is read, with a message naming the setting.
 */
import assert from 'node:assert/strict';
import { once } from 'node:events';
import http from 'node:http';
import type { Socket } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { clientLabel, testClients } from '../helpers/test-db.js';
import { ADMIN, listenOnLoopback, startTestApp, type TestApp } from '../helpers/test-app.js';
import { addWriteFixture } from '../helpers/write-fixture.js';

const MB = 1024 * 1024;
/** Far longer than closing takes, far shorter than the minutes an unclosed connection stayed open. */
const CLOSE_BOUND_MS = 15_000;

interface Streamed {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
  /** Bytes of the body the client had written when the answer came. */
  sent: number;
  /** The connection was closed (by the server) after the answer, within CLOSE_BOUND_MS. */
  closed: boolean;
}

/**
 * Sends `first`, then `filler` over and over (as fast as the socket takes it) up to `total` bytes announced in
 * Content-Length, and stops writing as soon as the answer comes. `stall`: after `first`, write nothing more.
 */
async function stream(
  base: string,
  path: string,
  type: string,
  parts: { first: string; filler?: string; total: number; stall?: boolean; chunked?: boolean },
): Promise<Streamed> {
  const url = new URL(path, base);
  const request = http.request(url, {
    method: 'POST',
    // A client that keeps its connections (as browsers and SDKs do): the server is the one to close it.
    agent: new http.Agent({ keepAlive: true, maxSockets: 1 }),
    headers: {
      'content-type': type,
      ...(parts.chunked ? {} : { 'content-length': String(parts.total) }),
      authorization: `Bearer ${ADMIN.token}`,
    },
  });
  let sent = 0;
  let answered = false;
  const socket = await new Promise<Socket>((resolve) => request.once('socket', resolve));
  const closed = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), CLOSE_BOUND_MS);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  request.on('error', () => {});
  const gone = new Promise((resolve) => socket.once('close', resolve));
  const response = new Promise<http.IncomingMessage>((resolve) =>
    request.once('response', (res) => {
      answered = true;
      resolve(res);
    }),
  );
  void (async () => {
    const write = (chunk: string) => {
      sent += Buffer.byteLength(chunk);
      return request.write(chunk);
    };
    write(parts.first);
    if (parts.stall || !parts.filler) return;
    const filler = parts.filler.repeat(Math.max(1, Math.floor((64 * 1024) / parts.filler.length)));
    while (!answered && !socket.destroyed && sent + filler.length <= parts.total) {
      if (!write(filler))
        await Promise.race([new Promise((resolve) => request.once('drain', resolve)), gone, response]);
    }
  })().catch(() => {});
  const res = await Promise.race([
    response,
    new Promise<null>((resolve) => setTimeout(() => resolve(null), CLOSE_BOUND_MS).unref()),
  ]);
  if (!res) {
    request.destroy();
    assert.fail(`no answer within ${CLOSE_BOUND_MS} ms (${sent} bytes sent)`);
  }
  let body = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => (body += chunk));
  await once(res, 'end').catch(() => {});
  const wasClosed = await closed;
  request.destroy();
  return { status: res.statusCode!, headers: res.headers, body, sent, closed: wasClosed };
}

/** The server's open connections, once those being closed have closed (waits a little for 0, then tells). */
async function openConnections(t: TestApp): Promise<number> {
  const count = () =>
    new Promise<number>((resolve, reject) =>
      t.app.server.getConnections((error, n) => (error ? reject(error) : resolve(n))),
    );
  for (let i = 0; i < 50; i++) {
    if ((await count()) === 0) return 0;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return count();
}

function boundary(): string {
  return '----strata-import-connections';
}

for (const client of testClients()) {
  describe(`import connections (${clientLabel(client)})`, () => {
    let t: TestApp;
    let base: string;
    before(async () => {
      t = await startTestApp(client, { env: { IMPORT_MAX_FILE_SIZE: '60mb', MAX_PAYLOAD_SIZE: '1mb' } });
      await addWriteFixture(t);
      base = await listenOnLoopback(t);
    });
    after(async () => {
      await t?.close();
    });

    const failedImports = [
      { format: 'CSV', type: 'text/csv', first: 'name,bio\nA1,x\n,no name\n', filler: 'Filler,x\n' },
      {
        format: 'JSON',
        type: 'application/json',
        first: '[{"name":"A1"},\n{"bio":"no name"},\n',
        filler: '{"name":"F"},\n',
      },
    ];
    const multipartHead = (type: string) =>
      `--${boundary()}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\nContent-Type: ${type}\r\n\r\n`;
    const ways = [
      { way: 'raw', wrap: (type: string, first: string) => ({ type, first }) },
      { way: 'chunked', chunked: true, wrap: (type: string, first: string) => ({ type, first }) },
      {
        way: 'multipart',
        wrap: (type: string, first: string) => ({
          type: `multipart/form-data; boundary=${boundary()}`,
          first: multipartHead(type) + first,
        }),
      },
    ];
    for (const { format, type: fileType, first: rows, filler } of failedImports)
      for (const { way, wrap, chunked } of ways) {
        const { type, first } = wrap(fileType, rows);
        it(`a ${format} import (${way}) with a bad row early in a 50 MB body answers at once and closes its connection`, async () => {
          const result = await stream(base, '/utils/import/authors', type, { first, filler, total: 50 * MB, chunked });
          assert.equal(result.status, 400, result.body);
          assert.equal(JSON.parse(result.body).errors[0].extensions.line, format === 'CSV' ? 3 : 2);
          assert.equal(result.headers.connection, 'close');
          assert.ok(result.sent < 50 * MB, 'the answer came before the whole body was sent');
          assert.ok(result.closed, 'the server closed the connection after its answer');
          assert.equal(await openConnections(t), 0, 'nothing left open to hold a shutdown');
        });
      }

    const refusedFirst = [
      { what: 'a collection that does not exist', path: '/utils/import/nope', type: 'text/csv', status: 403 },
      { what: 'a media type it does not take', path: '/utils/import/authors', type: 'text/plain', status: 415 },
    ];
    for (const { what, path, type, status } of refusedFirst) {
      it(`a 50 MB import to ${what} answers at once and closes its connection`, async () => {
        const result = await stream(base, path, type, { first: 'name\n', filler: 'Filler\n', total: 50 * MB });
        assert.equal(result.status, status, result.body);
        assert.equal(result.headers.connection, 'close');
        assert.ok(result.sent < 50 * MB, 'the answer came before the whole body was sent');
        assert.ok(result.closed, 'the server closed the connection after its answer');
        assert.equal(await openConnections(t), 0, 'nothing left open to hold a shutdown');
      });
    }

    it('an import whose Content-Length is over IMPORT_MAX_FILE_SIZE is refused before its body is read', async () => {
      const result = await stream(base, '/utils/import/authors', 'text/csv', {
        first: 'name\nX\n',
        total: 61 * MB,
        stall: true,
      });
      assert.equal(result.status, 413, result.body);
      const error = JSON.parse(result.body).errors[0];
      assert.equal(error.extensions.code, 'CONTENT_TOO_LARGE');
      assert.match(error.message, /IMPORT_MAX_FILE_SIZE/);
      assert.ok(result.closed, 'the server closed the connection after its answer');
    });

    it('a multipart upload whose Content-Length is over IMPORT_MAX_FILE_SIZE is refused before its body is read', async () => {
      const result = await stream(base, '/utils/import/authors', `multipart/form-data; boundary=${boundary()}`, {
        first: `--${boundary()}\r\nContent-Disposition: form-data; name="file"; filename="a.csv"\r\nContent-Type: text/csv\r\n\r\nname\nX\n`,
        total: 61 * MB,
        stall: true,
      });
      assert.equal(result.status, 413, result.body);
      const error = JSON.parse(result.body).errors[0];
      assert.equal(error.extensions.code, 'CONTENT_TOO_LARGE');
      assert.match(error.message, /IMPORT_MAX_FILE_SIZE/);
      assert.ok(result.closed, 'the server closed the connection after its answer');
    });

    it('a JSON body whose Content-Length is over MAX_PAYLOAD_SIZE is refused before it is read, naming the setting', async () => {
      const result = await stream(base, '/items/authors', 'application/json', {
        first: '{"name":"',
        total: 2 * MB,
        stall: true,
      });
      assert.equal(result.status, 400, result.body);
      const error = JSON.parse(result.body).errors[0];
      assert.equal(error.extensions.code, 'INVALID_PAYLOAD');
      assert.match(error.message, /request entity too large/);
      assert.match(error.message, /MAX_PAYLOAD_SIZE/);
      assert.ok(result.closed, 'the server closed the connection after its answer');
    });
  });
}
