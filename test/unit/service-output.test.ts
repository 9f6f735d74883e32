/**
 * Services hand their answers over as data (items-service.ts: the database's JSON text in `JsonRead`, or values in
 * the `rows` variants); nothing parses or slices a service's answer again. Checked on the syntax trees of src/:
 * every `JSON.parse(...)` call must be one of the places below, each decoding input from outside the process or
 * the database's own JSON text once; and `.json` of a read is sliced only where the read engine joins its chunks.
 * A new JSON.parse belongs here only with a reason of that kind.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '../../src');

/** `file#function` → why it parses JSON. */
const ALLOWED: Record<string, string> = {
  'auth/access-tokens.ts#looksLikeJwt': 'a JWT header sent by the client',
  'flows/operations/request-operation.ts#request': "a request operation's answer from a remote server",
  'flows/safe-objects.ts#parseJson':
    "JSON columns of service_flows, service_operations and the outbox; a transform's JSON text",
  'http/routes/flows.ts#shown': 'the payload column of service_flow_deliveries',
  'bus/redis-bus.ts#subscribe': 'a notice from another instance',
  'cli/schema-commands.ts#runApply': 'a snapshot file given on the command line',
  'http/json-bodies.ts#prototypeKeyError': 'a JSON body the parser refused, to name its reserved key',
  'db/dialects/postgres/write-hooks.ts#arrayValue': 'a JSON value of a write payload, sent as text',
  'db/schema-journal.ts#statements': 'a JSON column of service_schema_journal',
  'request/graphql-body.ts#parseVariables': 'GraphQL variables of a GET request',
  'io/import-records.ts#csvPayload': 'an imported file',
  'extensions/extension-manifest.ts#manifestOf': "an extension's package.json",
  'request/upload-form.ts#formValue': 'a form field of a multipart upload',
  'engine/files/pending-files.ts#parseTags': 'the tags of a tus upload, sent in its Upload-Metadata header',
  'project/settings-service.ts#assetPresets': 'a JSON column of service_settings',
  'request/asset-query.ts#parseTransforms': 'a transforms list sent as a JSON string in the URL',
  'io/import-records.ts#record': 'an imported file',
  'io/import-records.ts#parseElement': 'an imported file',
  'permissions/access-resolver.ts#dynamicValues': "the database's JSON text of the caller's user or role row",
  'permissions/permission-store.ts#json': 'a JSON column of service_permissions',
  'request/parse-filter.ts#filterObject': 'a filter sent as a JSON string in the URL',
  'request/parse-query.ts#parseObjectParam': 'a query parameter sent as a JSON string in the URL',
  'request/parse-query.ts#deepObject': 'a query parameter sent as a JSON string in the URL',
  'realtime/websocket/session.ts#receive': 'a message sent by the WebSocket client',
  'realtime/graphql-ws/server.ts#subscribeId': 'a graphql-ws message sent by the client (its type and id)',
  'schema/overview-builder.ts#jsonValue': 'a JSON column of service_fields / service_collections',
  'schema-admin/sync/snapshot.ts#plain': 'a deep copy of a snapshot value',
  'schema-admin/plan/field-columns.ts#parseDefault': 'a default value sent in a field body',
  'schema-admin/plan/field-columns.ts#sameDefault': 'default values sent in a field body',
  'engine/read/items-service.ts#rows': "the database's JSON text of a read, decoded once for the rows variants",
  'engine/write/system-writes.ts#read': "the database's JSON text of a read inside a system write's transaction",
  'engine/write/audit-trail.ts#readAfter': "the database's JSON text of the items after a write, for their revisions",
  'engine/read/revision-access.ts#judgeRevisions': "the database's JSON text of a non-admin's revisions, to judge each",
  'config/auth-providers-config.ts#roleMapping': 'an AUTH_<PROVIDER>_ROLE_MAPPING setting (JSON in the environment)',
  'config/oauth-config.ts#params': 'an AUTH_<PROVIDER>_PARAMS setting (JSON in the environment)',
  'project/settings-service.ts#jsonObject': 'a JSON column of service_settings',
  'engine/read/read-events.ts#meta': "the database's JSON text of a read, decoded for items.read action hooks only",
  'version.ts#': 'package.json',
};

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') ? [full] : [];
  });
}

/** The name of the innermost named function, method or variable holding `node` ('' at the top level). */
function enclosingName(node: ts.Node): string {
  for (let at = node.parent; at; at = at.parent) {
    if ((ts.isFunctionDeclaration(at) || ts.isMethodDeclaration(at)) && at.name) return at.name.getText();
    if (
      ts.isVariableDeclaration(at) &&
      at.initializer &&
      (ts.isArrowFunction(at.initializer) || ts.isFunctionExpression(at.initializer))
    )
      return at.name.getText();
  }
  return '';
}

function findCalls(test: (call: ts.CallExpression) => boolean): string[] {
  const found: string[] = [];
  for (const file of sourceFiles(SRC)) {
    const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isCallExpression(node) && test(node))
        found.push(`${path.relative(SRC, file).split(path.sep).join('/')}#${enclosingName(node)}`);
      ts.forEachChild(node, visit);
    };
    visit(source);
  }
  return found;
}

const isJsonParse = (call: ts.CallExpression) =>
  ts.isPropertyAccessExpression(call.expression) && call.expression.getText() === 'JSON.parse';
/** `<x>.json.slice(...)`: slicing the text of a read. */
const slicesReadText = (call: ts.CallExpression) =>
  ts.isPropertyAccessExpression(call.expression) &&
  call.expression.name.text === 'slice' &&
  ts.isPropertyAccessExpression(call.expression.expression) &&
  call.expression.expression.name.text === 'json';

describe('service output', () => {
  it('is never parsed again: JSON.parse only on outside input or the database text, in the places listed', () => {
    const unexpected = findCalls(isJsonParse).filter((place) => !(place in ALLOWED));
    assert.deepEqual(unexpected, []);
  });

  it('finds the calls it looks for (the check itself works)', () => {
    const places = new Set(findCalls(isJsonParse));
    assert.ok(places.has('engine/read/items-service.ts#rows'));
    assert.ok(places.has('request/graphql-body.ts#parseVariables'));
  });

  it('is never sliced, except where the read engine joins the chunks of one read', () => {
    assert.deepEqual(findCalls(slicesReadText), ['engine/read/items-service.ts#readKeys']);
  });
});
