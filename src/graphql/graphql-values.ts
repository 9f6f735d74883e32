/**
 * The JSON form of values as GraphQL serialises them, for reads whose JSON text becomes a GraphQL response as it
 * is: keys (`ID`) are strings and decimals (`Float`) numbers; every other type has the same form as over REST. The
 * read engine applies it to the planned outputs before compiling (engine/read/items-service.ts `OutputForm`).
 */
import type { PlannedOutput } from '../plan/read-plan.js';
import type { FieldOverview } from '../schema/types.js';
import type { OutputForm } from '../engine/read/items-service.js';

function formOf(field: FieldOverview): 'text' | 'number' | undefined {
  if (field.primaryKey && (field.type === 'integer' || field.type === 'bigInteger')) return 'text';
  if (field.type === 'decimal') return 'number';
  return undefined;
}

export function graphqlValues(outputs: PlannedOutput[]): PlannedOutput[] {
  return outputs.map((output) => {
    switch (output.kind) {
      case 'value': {
        const as = output.operand.kind === 'field' ? formOf(output.field) : undefined;
        return as ? { ...output, as } : output;
      }
      case 'object':
      case 'list':
        return { ...output, level: { ...output.level, outputs: graphqlValues(output.level.outputs) } };
      case 'any':
        return {
          ...output,
          branches: output.branches.map((b) => ({
            ...b,
            level: { ...b.level, outputs: graphqlValues(b.level.outputs) },
          })),
        };
    }
  });
}

export const GRAPHQL_VALUES: OutputForm = { name: 'graphql', outputs: graphqlValues };
