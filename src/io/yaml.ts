/**
 * The yaml package, loaded on first use: only the schema snapshot's YAML form and YAML exports need it, and most
 * processes (tests, CLI commands, a server nobody asks for YAML) would otherwise parse its 70 modules at start.
 */
import { createRequire } from 'node:module';

type Yaml = typeof import('yaml');

let yaml: Yaml | null = null;

export function yamlModule(): Yaml {
  return (yaml ??= createRequire(import.meta.url)('yaml') as Yaml);
}

/**
 * YAML text of a value, with strings that a YAML 1.1 reader (js-yaml's default schema, which Directus's tools use)
 * would take for a date or time quoted: `"2024-01-02"` stays a string there, as it is here.
 */
export function toYaml(value: unknown): string {
  return yamlModule().stringify(value, { customTags: ['timestamp'] });
}
