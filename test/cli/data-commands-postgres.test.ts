/** The data commands through the `strata` binary on PostgreSQL (test/cli/data-commands.ts). */
import { describe } from 'node:test';
import { testClients } from '../helpers/test-db.js';
import { dataCommandsSuite } from './data-commands.js';

if (testClients().includes('pg')) describe(...dataCommandsSuite('pg'));
