/** Strata Studio in chromium on SQLite (test/e2e/studio-suite.ts). */
import { describe } from 'node:test';
import { testClients } from '../helpers/test-db.js';
import { studioSuite } from './studio-suite.js';

if (testClients().includes('sqlite3')) describe(...studioSuite('sqlite3'));
