/** Strata Studio in chromium on PostgreSQL (test/e2e/studio-suite.ts). */
import { describe } from 'node:test';
import { testClients } from '../helpers/test-db.js';
import { studioSuite } from './studio-suite.js';

if (testClients().includes('pg')) describe(...studioSuite('pg'));
